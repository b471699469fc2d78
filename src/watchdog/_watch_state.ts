/**
 * Where one tool call stands in the current turn, as the watchdog sees it.
 *
 * @module
 */

import { type Entry, isModelActivity } from "../transcript/entry.ts";
import { openerPending } from "../transcript/turn_rule.ts";

/** The watched call's state in the current turn. */
export type CallState =
  /** Neither the call nor its result is in the current turn. */
  | { kind: "absent" }
  /** The call is there, its result not yet (it may lag behind PostToolUse). */
  | { kind: "awaiting_result" }
  /** The user interrupted the turn after the call: not a stall. */
  | { kind: "interrupted" }
  /** Another hook ended the turn on purpose after the call: not a stall. */
  | { kind: "hook_stopped"; hookName: string }
  /** The model wrote text or a new call after the result. */
  | { kind: "followed_up" }
  /** The result is in and nothing has answered it yet. */
  | {
    kind: "answered";
    resultOffset: number;
    /** Some call of the turn has no result yet. */
    callsPending: boolean;
    /** The client's `API Error` entry follows. */
    apiError: boolean;
    /** The turn's prompt line is not on file yet. */
    openerPending: boolean;
  };

/** Where `toolUseId` stands in the turn and what happened after it (`opener`: what opened the turn). */
export function callState(
  turn: readonly Entry[],
  toolUseId: string,
  opener: Entry | null = null,
): CallState {
  let callAt = -1;
  let resultAt = -1;
  const calls = new Set<string>();
  const answered = new Set<string>();
  turn.forEach((entry, index) => {
    if (isModelActivity(entry)) {
      for (const use of entry.toolUses) {
        calls.add(use.id);
        if (use.id === toolUseId && callAt < 0) callAt = index;
      }
    } else if (entry.kind === "results") {
      for (const result of entry.results) {
        answered.add(result.toolUseId);
        if (result.toolUseId === toolUseId && resultAt < 0) resultAt = index;
      }
    }
  });
  if (callAt < 0 && resultAt < 0) return { kind: "absent" };
  // Only what came after both answers (a result's line may precede its call's).
  const after = turn.slice(Math.max(callAt, resultAt) + 1);
  if (after.some((e) => e.kind === "interrupt")) return { kind: "interrupted" };
  const stop = after.find((e) => e.kind === "hook_stop");
  if (stop) return { kind: "hook_stopped", hookName: stop.hookName };
  if (resultAt < 0) return { kind: "awaiting_result" };
  const followedUp = after.some(isModelActivity);
  if (followedUp) return { kind: "followed_up" };
  return {
    kind: "answered",
    resultOffset: (turn[resultAt] as Entry).offset,
    callsPending: [...calls].some((id) => !answered.has(id)),
    apiError: after.some((e) => e.kind === "assistant" && e.apiError === true),
    openerPending: openerPending(turn, opener),
  };
}
