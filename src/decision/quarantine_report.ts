/**
 * What the user and the event log are told when a session's state or lock
 * file could not be used (`guardrails/state.ts`): moved aside, or, when it
 * holds someone else's content, left untouched with the session kept in
 * stall-watch's own folder. One report line each, and a
 * `state_quarantined` or `state_relocated` event each. Shared by the Stop
 * hook and the watchdog.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import type { EventRecord } from "../events/event_log.ts";
import { isRelocated, type StateRescue } from "../guardrails/state.ts";
import type { Settings } from "../settings/settings.ts";
import { reportLine } from "../recovery/report_line.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { eventRecord, type EventSubject } from "./event_record.ts";
import { logEvents } from "./log_events.ts";
import type { Outcome } from "./outcome.ts";

/**
 * The one stderr line for an entry moved aside, or a session kept
 * elsewhere: which file, why, where it went, and what the session does now.
 */
export function quarantineLine(entry: StateRescue): string {
  if (isRelocated(entry)) {
    return reportLine(
      `session state file "${escapeTerminal(entry.path)}" is someone ` +
        `else's (${entry.reason}); left it untouched and kept this ` +
        `session's retry budget in "${escapeTerminal(entry.keptIn)}"`,
    );
  }
  const fresh = entry.file === "state"
    ? "started a fresh retry budget"
    : "took a fresh lock";
  return reportLine(
    `session ${entry.file} file "${escapeTerminal(entry.path)}" could not ` +
      `be used (${entry.reason}); moved it aside to ` +
      `${escapeTerminal(entry.movedTo)} and ${fresh}`,
  );
}

/**
 * A `state_quarantined` event for each entry moved aside, a
 * `state_relocated` event for each session kept elsewhere.
 *
 * @param ts Seconds since the epoch.
 */
export function quarantineEvents(
  entries: readonly StateRescue[],
  subject: EventSubject,
  ts: number,
): EventRecord[] {
  return entries.map((entry) =>
    isRelocated(entry)
      ? eventRecord("state_relocated", subject, ts, {
        file: entry.file,
        path: entry.path,
        kept_in: entry.keptIn,
        reason: entry.reason,
      })
      : eventRecord("state_quarantined", subject, ts, {
        file: entry.file,
        path: entry.path,
        moved_to: entry.movedTo,
        reason: entry.reason,
      })
  );
}

/**
 * `outcome` with a line on stderr for each state or lock file the run moved
 * aside or left for someone else's, and their events logged.
 */
export async function withQuarantineReport(
  outcome: Outcome,
  entries: readonly StateRescue[],
  context: {
    io: Pick<CliIO, "cwd" | "now" | "sleep">;
    settings: Settings;
    subject: EventSubject;
  },
): Promise<Outcome> {
  if (entries.length === 0) return outcome;
  const { io, settings, subject } = context;
  const logError = await logEvents(
    io,
    settings,
    quarantineEvents(entries, subject, io.now() / 1000),
  );
  const lines = entries.map((entry) => quarantineLine(entry) + "\n");
  return { ...outcome, stderr: outcome.stderr + lines.join("") + logError };
}
