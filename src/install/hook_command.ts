/**
 * The hook handlers stall-watch registers, and how it knows its own again. On POSIX
 * `cd -- "$CLAUDE_PROJECT_DIR" || exit 1; /abs/stall-watch`, so state lands in the project's
 * `.claude` wherever the session `cd`-ed; on Windows exec form with forward slashes (no command
 * line means the same in Git Bash and PowerShell). Pure.
 *
 * @example
 * ```ts
 * const self = selfInvocation(Deno.execPath(), Deno.mainModule, "posix");
 * buildHandler("Stop", self, { timeout: 30, platform: "posix" });
 * ```
 *
 * @module
 */

import {
  EARLIER_PERMISSION_FLAGS,
  HOOK_PERMISSION_FLAGS,
} from "../shared/permissions.ts";
import { HANDLER_EVENTS } from "../claude_client/hook_events.ts";
import { shellQuote } from "../shared/shell_quote.ts";

/** Every event stall-watch may own handlers in, in settings order. */
export const HOOK_EVENTS = Object.freeze(
  ["Stop", "SubagentStop", "PostToolUse", "PostToolUseFailure"] as const,
);

/** The hook events stall-watch registers for. */
export type HookEvent = typeof HOOK_EVENTS[number];

/** The events `watch` runs on (a call that succeeded, or failed): the handler's own list. */
export const WATCH_EVENTS: readonly HookEvent[] = HANDLER_EVENTS
  .watch as readonly HookEvent[];

/** Whether `event` is one of {@link WATCH_EVENTS}. */
export function isWatchEvent(event: string): boolean {
  return (WATCH_EVENTS as readonly string[]).includes(event);
}

/** Platforms that differ in how a handler must be written. */
export type Platform = "posix" | "windows";

/** The platform of a `Deno.build.os` value. */
export function platformOf(os: string): Platform {
  return os === "windows" ? "windows" : "posix";
}

/** The argv that starts this stall-watch, without a subcommand. */
export interface Invocation {
  program: string;
  args: string[];
  /** `deno run ... main.ts` rather than a compiled binary. */
  fromSource: boolean;
}

/** `deno run`'s flags besides the permissions: `--quiet`, as stderr reaches the model. */
export const SOURCE_RUN_FLAGS: readonly string[] = Object.freeze(["--quiet"]);

/** Starts a handler in the project root; a failed `cd` exits 1 (`&&` passes dash's 2: a block). */
export const PROJECT_DIR_PREFIX = 'cd -- "$CLAUDE_PROJECT_DIR" || exit 1; ';

/** The prefix older versions wrote, which passes a failed `cd`'s 2 on. */
export const OLD_PROJECT_DIR_PREFIX = 'cd -- "$CLAUDE_PROJECT_DIR" && ';

/** Default `timeout` (seconds) of the Stop and SubagentStop handlers. */
export const DEFAULT_HOOK_TIMEOUT = 30;

/** Seconds the watch handler's timeout exceeds the watchdog's deadline. */
export const WATCH_TIMEOUT_MARGIN = 60;

/** How to start this stall-watch: its executable, or `deno run` with the release flags and `main.ts`. */
export function selfInvocation(
  execPath: string,
  mainModule: string,
  platform: Platform,
): Invocation {
  const program = portablePath(execPath, platform);
  const fromSource = isDenoProgram(execPath) && mainModule.startsWith("file:");
  if (!fromSource) return { program, args: [], fromSource };
  const main = portablePath(filePathOfUrl(mainModule, platform), platform);
  return {
    program,
    args: ["run", ...SOURCE_RUN_FLAGS, ...HOOK_PERMISSION_FLAGS, main],
    fromSource,
  };
}

/** The paths that identify this stall-watch in handlers: the binary, or `main.ts`. */
export function knownPathsOf(invocation: Invocation): string[] {
  const path = invocation.fromSource
    ? invocation.args[invocation.args.length - 1]
    : invocation.program;
  return path === undefined ? [] : [path];
}

/** Whether `path` lies in npx's cache (`_npx`), which npm empties without notice. */
export function isInNpxCache(path: string): boolean {
  return /(^|[\\/])_npx[\\/]/.test(path);
}

/** What to do instead of registering a program from npx's cache. */
export const NPX_CACHE_FIX =
  'install Deno for good ("npm install -g deno@2.9.6", or a release binary of stall-watch) and run "install" with it';

/** A path as a handler must hold it: forward slashes on Windows. */
function portablePath(path: string, platform: Platform): string {
  return platform === "windows" ? path.replaceAll("\\", "/") : path;
}

function filePathOfUrl(url: string, platform: Platform): string {
  const parsed = new URL(url);
  const path = decodeURIComponent(parsed.pathname);
  if (platform === "posix") return path;
  const local = path.replace(/^\/([A-Za-z]:)/, "$1");
  return parsed.host ? `//${parsed.host}${local}` : local;
}

/** The handler object for one event: the hook, or `watch` (async, may wake with exit 2). */
export function buildHandler(
  event: HookEvent,
  invocation: Invocation,
  options: { timeout: number; platform: Platform },
): Record<string, unknown> {
  const watch = isWatchEvent(event);
  const argv = [invocation.program, ...invocation.args];
  if (watch) argv.push("watch");
  return {
    type: "command",
    ...(options.platform === "windows"
      ? { command: argv[0], args: argv.slice(1) }
      : { command: PROJECT_DIR_PREFIX + argv.map(shellQuote).join(" ") }),
    timeout: options.timeout,
    ...(watch ? { async: true, asyncRewake: true } : {}),
  };
}

interface ParsedCommand {
  form: "shell" | "exec";
  /** The program and its arguments, unquoted; variables kept as text. */
  words: string[];
  /** A shell command that changes to `$CLAUDE_PROJECT_DIR` first. */
  startsInProjectDir: boolean;
  /** One program alone after `cd "$CLAUDE_PROJECT_DIR"` steps: maybe one stall-watch wrote. */
  alone: boolean;
}

/** A handler's command as words, leading `cd <dir> &&` steps skipped; `null` when unreadable. */
export function parseHandlerCommand(
  handler: Readonly<Record<string, unknown>>,
): ParsedCommand | null {
  const command = handler.command;
  if (typeof command !== "string") return null;
  if (Array.isArray(handler.args)) {
    const args = handler.args.filter((a): a is string => typeof a === "string");
    return {
      form: "exec",
      words: [command, ...args],
      startsInProjectDir: false,
      alone: args.length === handler.args.length,
    };
  }
  const steps = shellSteps(command);
  if (steps === null) return null;
  let startsInProjectDir = false;
  let onlyProjectCds = true;
  let index = 0;
  while (index < steps.length - 1 && steps[index]?.[0] === "cd") {
    const step = steps[index] ?? [];
    const dirs = step.slice(1).filter((word, i) => !(i === 0 && word === "--"));
    startsInProjectDir = dirs.length === 1 &&
      /^\$\{?CLAUDE_PROJECT_DIR\}?\/?$/.test(dirs[0] ?? "");
    onlyProjectCds &&= startsInProjectDir;
    index++;
    // `cd ... || exit 1;` (PROJECT_DIR_PREFIX): the exit belongs to the cd.
    const next = steps[index] ?? [];
    if (
      index < steps.length - 1 && next.length === 2 && next[0] === "exit" &&
      next[1] === "1"
    ) {
      index++;
    }
  }
  return {
    form: "shell",
    words: steps[index] ?? [],
    startsInProjectDir,
    alone: onlyProjectCds && index === steps.length - 1 &&
      !/[<>`]|\$\(/.test(command),
  };
}

/** Splits a shell command line into simple commands of unquoted words. */
function shellSteps(command: string): string[][] | null {
  const steps: string[][] = [[]];
  let word: string | null = null;
  const end = () => {
    if (word !== null) steps[steps.length - 1]?.push(word);
    word = null;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i] as string;
    if (/\s/.test(c)) {
      end();
    } else if (c === "&" || c === "|" || c === ";") {
      end();
      if (command[i + 1] === c) i++;
      if ((steps[steps.length - 1]?.length ?? 0) > 0) steps.push([]);
    } else if (c === "'") {
      const close = command.indexOf("'", i + 1);
      if (close === -1) return null;
      word = (word ?? "") + command.slice(i + 1, close);
      i = close;
    } else if (c === '"') {
      let text = "";
      let j = i + 1;
      for (; j < command.length && command[j] !== '"'; j++) {
        if (command[j] === "\\" && /["\\$`]/.test(command[j + 1] ?? "")) j++;
        text += command[j];
      }
      if (j >= command.length) return null;
      word = (word ?? "") + text;
      i = j;
    } else if (c === "\\") {
      word = (word ?? "") + (command[i + 1] ?? "");
      i++;
    } else {
      word = (word ?? "") + c;
    }
  }
  end();
  return steps.filter((s) => s.length > 0);
}

/**
 * What a handler passes to stall-watch (`[]`, `["watch"]`), or `null` when stall-watch did not
 * write it (item 9): the program alone, one of `knownPaths`, a release binary's name, or
 * `deno run [--quiet]` with the exact release flags of a `main.ts`; never `stall-watch-notify.sh`.
 */
export function stallWatchArgs(
  parsed: ParsedCommand,
  knownPaths: readonly string[],
): string[] | null {
  return hookArgs(parsed.alone ? programArgs(parsed.words, knownPaths) : null);
}

/** What a command handler passes to stall-watch (by {@link stallWatchArgs}), or `null`. */
export function ownHandlerArgs(
  handler: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): string[] | null {
  return hookArgs(ownCommandArgs(handler, knownPaths));
}

/** Any arguments a command handler passes to stall-watch alone ({@link stallWatchArgs}' rules). */
export function ownCommandArgs(
  handler: Readonly<Record<string, unknown>>,
  knownPaths: readonly string[],
): string[] | null {
  if (handler.type !== "command") return null;
  const parsed = parseHandlerCommand(handler);
  return parsed?.alone ? programArgs(parsed.words, knownPaths) : null;
}

/** `args` when the hook's (`[]`) or the watcher's (`["watch"]`), else `null`. */
function hookArgs(args: string[] | null): string[] | null {
  if (args === null || args.length > 1) return null;
  return args.length === 0 || args[0] === "watch" ? args : null;
}

function programArgs(
  words: readonly string[],
  knownPaths: readonly string[],
): string[] | null {
  const [program, ...rest] = words;
  if (program === undefined) return null;
  const known = new Set(knownPaths.map(normalise));
  if (known.has(normalise(program)) && !isDenoProgram(program)) return rest;
  if (isStallWatchProgram(program)) return rest;
  if (!isDenoProgram(program) || !rest.includes("run")) return null;
  const main = rest.findIndex((word) => known.has(normalise(word)));
  if (main !== -1) return rest.slice(main + 1);
  // `deno run [--quiet] <the release flags> <any>/main.ts`, from a checkout.
  if (rest[0] !== "run") return null;
  const start = rest[1] === SOURCE_RUN_FLAGS[0] ? 2 : 1;
  // This release's flags, or an earlier one's (before 0.2: `.claude` only).
  for (const list of [HOOK_PERMISSION_FLAGS, ...EARLIER_PERMISSION_FLAGS]) {
    const flags = rest.slice(start, start + list.length);
    const entry = rest[start + list.length] ?? "";
    if (baseName(entry) === "main.ts" && flags.join(" ") === list.join(" ")) {
      return rest.slice(start + 1 + list.length);
    }
  }
  return null;
}

/** The release binaries' names, maybe with a target suffix, `_` for `-` allowed. */
const STALL_WATCH_NAME =
  /^stall[-_]watch(?:[-_](?:x86_64|aarch64)-(?:unknown-linux-gnu|apple-darwin|pc-windows-msvc))?$/i;

function isStallWatchProgram(path: string): boolean {
  return STALL_WATCH_NAME.test(baseName(path).replace(/\.exe$/i, ""));
}

/** The `deno` executable itself (`deno`, `deno.exe`). */
export function isDenoProgram(path: string): boolean {
  return /^deno(\.exe)?$/i.test(baseName(path));
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? "";
}

function normalise(path: string): string {
  const slashed = path.replaceAll("\\", "/");
  // Windows paths compare case-insensitively.
  return /^[A-Za-z]:\//.test(slashed) ? slashed.toLowerCase() : slashed;
}

/** The identity Claude Code deduplicates handlers by. */
export function handlerIdentity(
  handler: Readonly<Record<string, unknown>>,
): string {
  return JSON.stringify([handler.command ?? null, handler.args ?? null]);
}

/** A one-line display of a handler's command. */
export function describeCommand(
  handler: Readonly<Record<string, unknown>>,
): string {
  const command = typeof handler.command === "string" ? handler.command : "?";
  if (!Array.isArray(handler.args)) return command;
  return [command, ...handler.args.map((a) => shellQuote(String(a)))].join(
    " ",
  );
}
