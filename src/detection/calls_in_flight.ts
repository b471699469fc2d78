/**
 * Calls still waiting for their result (a hung call fires no hook): the status line's.
 *
 * @module
 */

import { type Entry, isModelActivity } from "../transcript/entry.ts";
import type { ToolInputSummary } from "../transcript/tool_input.ts";

/** One call of the turn without a result yet. */
export interface CallInFlight {
  toolName: string;
  toolUseId: string;
  toolInput?: ToolInputSummary;
  /** Its line's `timestamp`, ms. */
  startedAt: number;
}

/** The last message's unanswered calls with a `timestamp`, oldest first; none after an interrupt or hook stop. */
export function callsInFlight(turn: readonly Entry[]): CallInFlight[] {
  const last = turn.findLastIndex(isModelActivity);
  if (last < 0) return [];
  const answered = new Set<string>();
  for (const [index, entry] of turn.entries()) {
    if (entry.kind === "results") {
      for (const result of entry.results) answered.add(result.toolUseId);
    } else if (
      index > last && (entry.kind === "interrupt" || entry.kind === "hook_stop")
    ) {
      return [];
    }
  }
  const message = (turn[last] as Entry & { kind: "assistant" }).messageId;
  const calls: CallInFlight[] = [];
  for (let i = last; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant" || !isModelActivity(entry)) continue;
    // The lines of one API message share its id; without one, a line is one.
    if (i !== last && (message === null || entry.messageId !== message)) break;
    if (entry.time === undefined) continue;
    for (const use of entry.toolUses) {
      if (answered.has(use.id)) continue;
      calls.push({
        toolName: use.name,
        toolUseId: use.id,
        ...(use.input ? { toolInput: use.input } : {}),
        startedAt: entry.time,
      });
    }
  }
  return calls.sort((a, b) => a.startedAt - b.startedAt);
}
