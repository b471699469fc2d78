/**
 * `codexReader`: the `TranscriptReader` of Codex rollouts handed to
 * `detectStalls()`; the turn's `turn_id` travels as the options' `promptId`.
 *
 * @module
 */

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
    const { turnId: _turnId, otherTurn: _otherTurn, ...turn } = scan;
    return { ...turn, opener: null }; // a Codex turn opens with task_started
  },
  appended: appendedRolloutLines,
};

/** Whether lines appended from `from` on hold a record (`null`: file gone or unreadable). */
function appendedRolloutLines(
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
