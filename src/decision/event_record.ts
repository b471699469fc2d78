/**
 * The one builder of a decision event (`events/event_log.ts` writes them):
 * every event of a run names its session and the hook event it ran under
 * first, then its own facts.
 *
 * @module
 */

import type { EventName, EventRecord } from "../events/event_log.ts";

/** Who a run's events are about (a parsed payload is one). */
export interface EventSubject {
  sessionId: string;
  /** `Stop`, `SubagentStop`, `PostToolUse`, ... */
  hookEventName: string;
}

/**
 * An event of `subject`'s run.
 *
 * @param ts Seconds since the epoch.
 * @param data Its facts, after `hook_event` in this order.
 */
export function eventRecord(
  name: EventName,
  subject: EventSubject,
  ts: number,
  data: Record<string, unknown>,
): EventRecord {
  return {
    event: name,
    sessionId: subject.sessionId,
    ts,
    data: { hook_event: subject.hookEventName, ...data },
  };
}
