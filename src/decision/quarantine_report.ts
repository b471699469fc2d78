/**
 * What the user and the event log are told when a session's state or lock
 * file could not be used and was moved aside (`guardrails/state.ts`): one
 * report line each, and a `state_quarantined` event each. Shared by the
 * Stop hook and the watchdog.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import type { EventRecord } from "../events/event_log.ts";
import type { QuarantinedEntry } from "../guardrails/state.ts";
import type { Settings } from "../settings/settings.ts";
import { reportLine } from "../recovery/report_line.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { eventRecord, type EventSubject } from "./event_record.ts";
import { logEvents } from "./log_events.ts";
import type { Outcome } from "./outcome.ts";

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

/**
 * A `state_quarantined` event for each entry moved aside.
 *
 * @param ts Seconds since the epoch.
 */
export function quarantineEvents(
  entries: readonly QuarantinedEntry[],
  subject: EventSubject,
  ts: number,
): EventRecord[] {
  return entries.map((entry) =>
    eventRecord("state_quarantined", subject, ts, {
      file: entry.file,
      path: entry.path,
      moved_to: entry.movedTo,
      reason: entry.reason,
    })
  );
}

/**
 * `outcome` with a line on stderr for each state or lock file the run moved
 * aside, and their `state_quarantined` events logged.
 */
export async function withQuarantineReport(
  outcome: Outcome,
  entries: readonly QuarantinedEntry[],
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
