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
 * silent about a reply that may yet appear.
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";

/** The first version whose Stop payload carries `last_assistant_message`. */
export const LAST_MESSAGE_SINCE: readonly [number, number, number] = [2, 1, 47];

const VERSION = /^(\d+)\.(\d+)\.(\d+)/;

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
  const version = newestVersion(turn);
  return version === null || !atLeast(version, LAST_MESSAGE_SINCE);
}

function newestVersion(turn: readonly Entry[]): number[] | null {
  for (let i = turn.length - 1; i >= 0; i--) {
    const match = VERSION.exec(turn[i]?.version ?? "");
    if (match) return match.slice(1, 4).map(Number);
  }
  return null;
}

function atLeast(version: number[], floor: readonly number[]): boolean {
  for (let i = 0; i < floor.length; i++) {
    const part = version[i] ?? 0;
    if (part !== floor[i]) return part > (floor[i] as number);
  }
  return true;
}
