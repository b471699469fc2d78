/**
 * `codexReader`: the `TranscriptReader` (`transcript/tail_scan.ts`) of
 * Codex rollouts, which a Codex door hands to `detectStalls()` as the Stop
 * hook hands it Claude Code's: the current turn read from the end by its
 * `turn_id` (passed as the options' `promptId`: the one id a Codex turn
 * has, which the reader stamps on its entries too), and whether lines
 * appended since can change it. `scan` uses it on a rollout today.
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";
import { readLinesForward, syncReader } from "../transcript/line_reader.ts";
import {
  openTranscript,
  SCAN_LINE_OPTIONS,
  type TranscriptReader,
  type TurnScan,
} from "../transcript/tail_scan.ts";
import { scanCodexTurn } from "./_current_turn.ts";
import { rolloutLineRecords } from "./_rollout_lines.ts";

/** Codex's rollout, read by this folder. */
export const codexReader: TranscriptReader = {
  async currentTurn(path, options): Promise<TurnScan | null> {
    const scan = await scanCodexTurn(path, {
      turnId: options.promptId,
      ...(options.budgets ? { budgets: options.budgets } : {}),
      ...(options.stopWhen ? { stopWhen: options.stopWhen } : {}),
      ...(options.chunkBytes ? { chunkBytes: options.chunkBytes } : {}),
    });
    if (scan === null) return null;
    const opener: Entry | null = null; // a Codex turn opens with task_started
    return {
      entries: scan.entries,
      reachedStart: scan.reachedStart,
      startOffset: scan.startOffset,
      opener,
      budget: scan.budget,
      fileSize: scan.fileSize,
      bytesScanned: scan.bytesScanned,
      endOffset: scan.endOffset,
      stopped: scan.stopped,
      endedOnFile: scan.endedOnFile,
    };
  },
  appended: appendedRolloutLines,
};

/**
 * Whether the lines appended to a rollout from `from` on hold a record
 * (an entry or a turn marker); a line still being written is not looked
 * at. Requires `--allow-read`.
 *
 * @returns `null` when the file is gone or cannot be read.
 */
export async function appendedRolloutLines(
  path: string,
  from: number,
): Promise<boolean | null> {
  let file: Deno.FsFile | null;
  try {
    file = openTranscript(path);
  } catch {
    return null;
  }
  if (!file) return null;
  try {
    const reader = syncReader(file);
    await reader.seek(from, Deno.SeekMode.Start);
    for await (const raw of readLinesForward(reader, SCAN_LINE_OPTIONS)) {
      if (rolloutLineRecords(raw).length > 0) return true;
    }
    return false;
  } catch {
    return null;
  } finally {
    file.close();
  }
}
