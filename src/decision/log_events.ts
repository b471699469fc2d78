/**
 * Writing a run's decision events to the log, when it is on: the one place
 * that asks whether it is. Shared by the Stop hook and the watchdog.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { describe } from "../shared/errors.ts";
import type { EventRecord } from "../events/event_log.ts";
import type { Settings } from "../settings/settings.ts";
import { reportLine } from "../recovery/report_line.ts";

/**
 * Appends events when the log is on. Requires write access to the log's
 * folder inside `.claude`.
 *
 * @returns `""`, or one stderr line saying why the log was not written (a
 * broken log must never change a decision).
 */
export async function logEvents(
  io: Pick<CliIO, "cwd" | "sleep">,
  settings: Settings,
  events: readonly EventRecord[],
): Promise<string> {
  if (!settings.eventLogEnabled || events.length === 0) return "";
  try {
    // Loaded lazily: only when the log is on (most stops write no log line).
    const { appendEvents } = await import("../events/event_log.ts");
    await appendEvents(events, {
      cwd: io.cwd,
      path: settings.eventLogPath,
      maxBytes: settings.eventLogMaxBytes,
      sleep: io.sleep,
    });
    return "";
  } catch (error) {
    return reportLine(`event log not written (${describe(error)})`) + "\n";
  }
}
