/**
 * The I/O edges around `decideOnStall` that the Stop hook and the watchdog
 * share: finding out whether the kill switch's marker file exists, and
 * writing the decision events to the log.
 *
 * @module
 */

import { resolvePath } from "../shared/paths.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { describe } from "../shared/errors.ts";
import type { EventRecord } from "../events/event_log.ts";
import {
  type KillSwitchStatus,
  killSwitchStatus,
} from "../guardrails/guardrails.ts";
import type { Settings } from "../settings/settings.ts";
import { reportLine } from "../recovery/report_line.ts";

/** The parts of the process boundary these edges use. */
export type DecisionIO = Pick<CliIO, "env" | "cwd" | "sleep">;

/**
 * The kill switch as it stands now: the variable, the marker file (checked
 * on disk, relative to the start directory) and the config file. Requires
 * `--allow-read`.
 */
export function killSwitchOf(
  settings: Settings,
  io: DecisionIO,
): KillSwitchStatus {
  const file = settings.killSwitchFile;
  let fileExists = false;
  if (file !== null) {
    try {
      Deno.statSync(resolvePath(io.cwd, file));
      fileExists = true;
    } catch {
      fileExists = false;
    }
  }
  return killSwitchStatus({
    env: io.env,
    envName: settings.killSwitchEnv,
    file,
    fileExists,
    configured: settings.killSwitch,
  });
}

/**
 * Appends events when the log is on. Requires write access to the log's
 * folder inside `.claude`.
 *
 * @returns `""`, or one stderr line saying why the log was not written (a
 * broken log must never change a decision).
 */
export async function logEvents(
  io: DecisionIO,
  settings: Settings,
  events: readonly EventRecord[],
): Promise<string> {
  if (!settings.eventLogEnabled) return "";
  try {
    // Loaded only when logging is on: most stops never write a log line.
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
