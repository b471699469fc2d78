/**
 * What the user and the event log are told when a session's state or lock
 * file could not be used and was moved aside (`guardrails/state.ts`): one
 * report line each, and a `state_quarantined` event each. Shared by the
 * Stop hook and the watchdog.
 *
 * @module
 */

import type { EventRecord } from "../events/event_log.ts";
import type { QuarantinedEntry } from "../guardrails/state.ts";
import { reportLine } from "../recovery/report_line.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";

/**
 * The one stderr line for an entry moved aside: which file, why, where it
 * went, and what the session does now.
 */
export function quarantineLine(entry: QuarantinedEntry): string {
  const fresh = entry.file === "state"
    ? "started a fresh retry budget"
    : "took a fresh lock";
  return reportLine(
    `session ${entry.file} file "${escapeTerminal(entry.path)}" could not ` +
      `be used (${entry.reason}); moved it aside to ` +
      `${escapeTerminal(entry.movedTo)} and ${fresh}`,
  );
}

/** A `state_quarantined` event for each entry moved aside. */
export function quarantineEvents(
  entries: readonly QuarantinedEntry[],
  base: { sessionId: string; ts: number; hookEvent: string },
): EventRecord[] {
  return entries.map((entry) => ({
    event: "state_quarantined",
    sessionId: base.sessionId,
    ts: base.ts,
    data: {
      hook_event: base.hookEvent,
      file: entry.file,
      path: entry.path,
      moved_to: entry.movedTo,
      reason: entry.reason,
    },
  }));
}
