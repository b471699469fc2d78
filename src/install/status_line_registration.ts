/**
 * The status line `install --statusline` registers: `stall-watch
 * statusline`, re-run by Claude Code every {@link STATUS_LINE_REFRESH_SECONDS}
 * seconds (also while a tool call runs, 2.1.97+), so a call hung in flight is
 * named on screen. A settings file holds one `statusLine`: install adds
 * stall-watch's where there is none, updates its own, and never replaces
 * someone else's; uninstall removes only its own. A status line is
 * recognised by the hook's program rules (`hook_command.ts`), and is its
 * own only when install could have written it: a repository's own
 * `"$CLAUDE_PROJECT_DIR"/tools/stall-watch statusline` is a program
 * inside the project, which is not stall-watch's to update or remove
 * (doctor warns of it as it does of such a hook).
 *
 * Pure: settings in, edits out.
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

/**
 * Whether a `statusLine` value runs a stall-watch's `statusline`, by the
 * hook's program rules: this stall-watch, a release binary's name, or
 * `deno run` of a `main.ts` with the release flags. Whose program that is
 * doctor checks as it does a hook's.
 */
export function runsStallWatchStatusLine(
  value: unknown,
  knownPaths: readonly string[],
): value is Record<string, unknown> {
  if (!isPlainObject(value) || value.type !== "command") return false;
  const parsed = parseHandlerCommand(value);
  const args = parsed && ownCommandArgs(parsed, knownPaths);
  return args?.length === 1 && args[0] === "statusline";
}

/**
 * Whether a `statusLine` value is stall-watch's own, to update or remove:
 * it runs a stall-watch's `statusline` ({@link runsStallWatchStatusLine})
 * from a program install could have written, an absolute path or a name
 * on the `PATH`, never one the project holds (see {@link programInProject}).
 */
export function isOwnStatusLine(
  value: unknown,
  knownPaths: readonly string[],
): value is Record<string, unknown> {
  return runsStallWatchStatusLine(value, knownPaths) &&
    !programInProject(value);
}

/**
 * Whether the program a command runs (or the `main.ts` of `deno run`) is
 * written as a file in the project: below `$CLAUDE_PROJECT_DIR`, or a
 * relative path, which Claude Code resolves in the session's folder.
 * install writes neither: it names the program by its absolute path.
 */
export function programInProject(value: Record<string, unknown>): boolean {
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
