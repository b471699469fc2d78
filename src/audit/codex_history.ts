/**
 * Codex rollouts judged as transcripts are, for `audit` and `scan
 * --all-turns`; above both, so detection never imports a client's reader.
 *
 * @module
 */

import {
  readRolloutTurns,
  type RolloutHistoryOptions,
  type SyncFile,
} from "../codex/rollout_history.ts";
import {
  type HistoryVerdict,
  historyVerdict,
} from "../detection/history_turns.ts";

/** The verdict of every turn of an open rollout, in file order (moves its position). Requires `--allow-read`. */
export async function* readRolloutVerdicts(
  file: SyncFile,
  options: RolloutHistoryOptions = {},
): AsyncGenerator<HistoryVerdict> {
  for await (const turn of readRolloutTurns(file, options)) {
    yield historyVerdict(turn, false);
  }
}
