/**
 * Whether a stalled-looking tail may still be a transcript that lags behind
 * the Stop: the only case worth waiting for.
 *
 * Stop can fire before the final assistant lines reach the file. Since
 * 2.1.47 the payload carries the final reply's text in
 * `last_assistant_message`, and when it is absent the final reply had no
 * visible text (real 2.1.332 omits it then). A reply without text and
 * without a call (Stop fired, so it made none) is no follow-up however late
 * its line lands, so waiting cannot change the verdict. Only a Claude Code
 * older than 2.1.47, or one whose version nothing shows, leaves the payload
 * silent about a reply that may yet appear (the release's features are in
 * `claude_client/release.ts`).
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";
import { releaseOf, supports } from "../claude_client/release.ts";

/** What {@link mayLag} weighs. */
export interface LagEvidence {
  /** The payload's `last_assistant_message`, `null` when absent. */
  lastAssistantMessage: string | null;
  /**
   * The payload carries a field only later versions send (`prompt_id`,
   * 2.1.196+; `background_tasks`, 2.1.145+).
   */
  payloadSendsLastMessage: boolean;
}

/**
 * Whether the lag wait can change the verdict of `turn`.
 *
 * @param evidence What the payload shows.
 * @param turn The turn's entries in file order; the newest one that names
 * its `version` tells which Claude Code wrote the file.
 */
export function mayLag(
  evidence: LagEvidence,
  turn: readonly Entry[],
): boolean {
  if (evidence.lastAssistantMessage !== null) return false;
  if (evidence.payloadSendsLastMessage) return false;
  // An unknown release might be one without the field: wait.
  return supports(releaseOf(turn), "last_assistant_message") !== true;
}

/**
 * Whether the turn holds a model reply (any assistant entry, Claude Code's
 * own included). Stop fires only after one, so at a Stop a turn without
 * it is a transcript that has not caught up yet, on any release.
 */
export function hasReply(turn: readonly Entry[]): boolean {
  return turn.some((entry) => entry.kind === "assistant");
}
