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
import {
  type AppendedLines,
  appendedLinesMatching,
  type AppendedLinesOptions,
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
 * Whether the lines appended to a rollout from `from` on hold a record (an
 * entry or a turn marker), within the options' byte budget and deadline;
 * a line still being written is not looked at. Requires `--allow-read`.
 *
 * @returns `null` when the file is gone or cannot be read.
 */
export function appendedRolloutLines(
  path: string,
  from: number,
  options: AppendedLinesOptions,
): Promise<AppendedLines | null> {
  return appendedLinesMatching(
    path,
    from,
    options,
    (raw) => rolloutLineRecords(raw).length > 0,
  );
}
