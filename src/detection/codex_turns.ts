/**
 * Codex rollouts judged as Claude Code transcripts are: every turn of a
 * rollout through the history verdict (`history_turns.ts`
 * `historyVerdict`, the same classifier, ending and announcement rules),
 * for `audit` and `scan --all-turns`; and the current turn, for `scan` of
 * one rollout (the Stop hook's reading, by `turn_id`, without the hook's
 * guardrails). Turns come from `codex/rollout_history.ts` and
 * `codex/current_turn.ts` in Claude Code's turn shape.
 *
 * @module
 */

import { scanCodexTurn } from "../codex/current_turn.ts";
import {
  readRolloutTurns,
  type RolloutHistoryOptions,
  type SyncFile,
} from "../codex/rollout_history.ts";
import { classifyTurn, type StallSignature } from "./classify.ts";
import { withLineNumbers } from "./detect.ts";
import { type HistoryVerdict, historyVerdict } from "./history_turns.ts";
import type { Entry } from "../transcript/entry.ts";
import type { ScanBudgetName } from "../transcript/tail_scan.ts";

/**
 * The verdict of every turn of an open rollout, in file order. Requires
 * `--allow-read`; the file's position is moved.
 */
export async function* readRolloutVerdicts(
  file: SyncFile,
  options: RolloutHistoryOptions = {},
): AsyncGenerator<HistoryVerdict> {
  for await (const turn of readRolloutTurns(file, options)) {
    yield historyVerdict(turn, false);
  }
}

/** The current turn of a rollout, judged. */
export interface RolloutTurnVerdict {
  /** Signatures with 1-based line numbers, sorted by line. */
  signatures: StallSignature[];
  reason: string;
  endedOnApiError: boolean;
  /** The turn's entries (for the announcement rule). */
  entries: Entry[];
  /** The budget that kept the reader from the turn's start, or null. */
  budget: ScanBudgetName | null;
  /** The turn read (`turn_id`), when the file names it. */
  turnId: string | null;
}

/**
 * Reads and judges the current turn of the rollout at `path`: the turn
 * `turnId` names, or the newest. Requires `--allow-read`.
 *
 * @returns `null` when the file does not exist.
 */
export async function judgeRolloutTurn(
  path: string,
  turnId: string | null,
): Promise<RolloutTurnVerdict | null> {
  const scan = await scanCodexTurn(path, { turnId });
  if (scan === null) return null;
  const verdict = classifyTurn(scan.entries, { backgroundTasks: [] });
  return {
    signatures: verdict.signatures.length === 0
      ? []
      : await withLineNumbers(path, verdict.signatures),
    reason: verdict.reason,
    endedOnApiError: verdict.endedOnApiError === true,
    entries: scan.entries,
    budget: scan.budget,
    turnId: scan.turnId,
  };
}
