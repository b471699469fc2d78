/**
 * The status line `install --statusline` writes, re-run every {@link STATUS_LINE_REFRESH_SECONDS} s
 * (also during a call, 2.1.97+): added where none is, never over someone else's; updated or removed
 * only where install could have written it, never a program inside the project (item 31). Pure.
 *
 * @module
 */

import {
  describeCommand,
  type Invocation,
  isDenoProgram,
  ownCommandArgs,
  parseHandlerCommand,
} from "./hook_command.ts";
import { shellQuote } from "../shared/shell_quote.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import {
  type JsonEditor,
  SettingsFileError,
} from "../client_settings/settings_json.ts";

/** How often Claude Code re-runs the status line, in seconds. */
export const STATUS_LINE_REFRESH_SECONDS = 30;

function buildStatusLine(invocation: Invocation): Record<string, unknown> {
  // A shell command (no exec form here); it only reads, so any folder will do.
  const argv = [invocation.program, ...invocation.args, "statusline"];
  return {
    type: "command",
    command: argv.map(shellQuote).join(" "),
    refreshInterval: STATUS_LINE_REFRESH_SECONDS,
  };
}

/** Whether a `statusLine` value runs a stall-watch's `statusline`, by the hook's program rules. */
export function runsStallWatchStatusLine(
  value: unknown,
  knownPaths: readonly string[],
): value is Record<string, unknown> {
  if (!isPlainObject(value)) return false;
  const args = ownCommandArgs(value, knownPaths);
  return args?.length === 1 && args[0] === "statusline";
}

/** Whether a `statusLine` value is stall-watch's own to update or remove: none the project holds. */
function isOwnStatusLine(
  value: unknown,
  knownPaths: readonly string[],
): value is Record<string, unknown> {
  return runsStallWatchStatusLine(value, knownPaths) &&
    !programInProject(value);
}

/** Whether the program (or `deno run`'s `main.ts`) is below `$CLAUDE_PROJECT_DIR` or relative. */
function programInProject(value: Record<string, unknown>): boolean {
  const [program, ...rest] = parseHandlerCommand(value)?.words ?? [];
  if (program === undefined) return false;
  const files = [program];
  if (isDenoProgram(program)) {
    files.push(...rest.filter((word) => /\.[jt]s$/.test(word)));
  }
  return files.some((file) =>
    /\$\{?CLAUDE_PROJECT_DIR\b/.test(file) ||
    (/[\\/]/.test(file) && !/^(\/|[A-Za-z]:[\\/]|\\\\|~[\\/])/.test(file))
  );
}

/** Adds or updates stall-watch's status line; someone else's is a {@link SettingsFileError}. */
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
