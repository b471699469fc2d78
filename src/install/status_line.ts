/**
 * The status line `install --statusline` registers: `stall-watch
 * statusline`, re-run by Claude Code every {@link STATUS_LINE_REFRESH_SECONDS}
 * seconds (also while a tool call runs, 2.1.97+), so a call hung in flight is
 * named on screen. A settings file holds one `statusLine`: install adds
 * stall-watch's where there is none, updates its own, and never replaces
 * someone else's; uninstall removes only its own.
 *
 * Pure: settings in, edits out.
 *
 * @module
 */

import {
  describeCommand,
  type Invocation,
  ownCommandArgs,
  parseHandlerCommand,
} from "./hook_command.ts";
import { shellQuote } from "../shared/shell_quote.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import {
  type JsonEditor,
  SettingsFileError,
} from "../claude_settings/settings_json.ts";

/** How often Claude Code re-runs the status line, in seconds. */
export const STATUS_LINE_REFRESH_SECONDS = 30;

/** The `statusLine` value install writes. */
export function buildStatusLine(
  invocation: Invocation,
): Record<string, unknown> {
  // A shell command (statusLine has no exec form), started where Claude
  // Code runs it: it only reads, so it needs no particular folder.
  const argv = [invocation.program, ...invocation.args, "statusline"];
  return {
    type: "command",
    command: argv.map(shellQuote).join(" "),
    refreshInterval: STATUS_LINE_REFRESH_SECONDS,
  };
}

/** Whether a `statusLine` value runs this stall-watch's `statusline`. */
export function isOwnStatusLine(
  value: unknown,
  knownPaths: readonly string[],
): value is Record<string, unknown> {
  if (!isPlainObject(value) || value.type !== "command") return false;
  const parsed = parseHandlerCommand(value);
  const args = parsed && ownCommandArgs(parsed, knownPaths);
  return args?.length === 1 && args[0] === "statusline";
}

/**
 * Adds or updates stall-watch's status line in `settings` (through
 * `editor`); returns the changes in words.
 *
 * @throws {SettingsFileError} When the file holds someone else's status
 * line: it is left as it is, and the message says how to show both.
 */
export function addStatusLine(
  editor: JsonEditor,
  settings: Readonly<Record<string, unknown>>,
  name: string,
  invocation: Invocation,
  knownPaths: readonly string[],
): string[] {
  const desired = buildStatusLine(invocation);
  const current = settings.statusLine;
  const what =
    `${desired.command} (refreshInterval ${desired.refreshInterval} s)`;
  if (current === undefined) {
    editor.set(["statusLine"], desired);
    return [`statusLine: added ${what}`];
  }
  if (!isOwnStatusLine(current, knownPaths)) {
    const theirs = isPlainObject(current) ? describeCommand(current) : "?";
    throw new SettingsFileError(
      `${name} already has a status line (${theirs}), which stall-watch leaves as it is; to show both, end that command with the output of "stall-watch statusline" on the same payload (see "stall-watch help statusline")`,
    );
  }
  const changed = Object.entries(desired).filter(([key, value]) =>
    JSON.stringify(current[key]) !== JSON.stringify(value)
  );
  for (const [key, value] of changed) editor.set(["statusLine", key], value);
  return changed.length > 0
    ? [`statusLine: updated ${changed.map(([k]) => k).join(", ")} of ${what}`]
    : [];
}

/** Removes stall-watch's status line, if the file holds it. */
export function removeStatusLine(
  editor: JsonEditor,
  settings: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): string[] {
  const current = settings.statusLine;
  if (!isOwnStatusLine(current, knownPaths)) return [];
  editor.remove(["statusLine"]);
  return [`statusLine: removed ${describeCommand(current)}`];
}
