/**
 * doctor's checks of each registered handler and of the program it (or the
 * status line) runs: present, absolute, executable, this stall-watch, and
 * outside the project (item 18). Pure.
 *
 * @module
 */

import {
  handlerIdentity,
  HOOK_EVENTS,
  isDenoProgram,
  isInNpxCache,
  isWatchEvent,
  NPX_CACHE_FIX,
  OLD_PROJECT_DIR_PREFIX,
  parseHandlerCommand,
  type Platform,
  PROJECT_DIR_PREFIX,
  SOURCE_RUN_FLAGS,
} from "../install/hook_command.ts";
import { shellQuote } from "../shared/shell_quote.ts";
import type { CheckResult } from "./doctor_report.ts";
import type { OwnHandler } from "../install/hook_registration.ts";
import type { Misregistration } from "../install/registered_hooks.ts";
import type { Scope } from "../client_settings/settings_scope.ts";

/** What was found in one settings file. */
export interface SettingsFileFacts {
  scope: Scope;
  display: string;
  exists: boolean;
  /** Why the file cannot be used (one line naming it), or `null`. */
  error: string | null;
  handlers: OwnHandler[];
  shapeProblems: string[];
  misregistered: Misregistration[];
}

/** What the file system says about a path a handler runs. */
export interface PathFacts {
  exists: boolean;
  isFile: boolean;
  /** Has an execute bit (POSIX) or an `.exe` name (Windows). */
  executable: boolean;
  /** Where it leads, links resolved. */
  realPath?: string;
  /** Why it was never looked at (a network path). */
  refused?: string;
}

/** What the handler checks look at (a part of `DoctorFacts`). */
export interface HandlerFacts {
  platform: Platform;
  projectDir: string;
  /** This stall-watch's file (the binary, or `main.ts`), links resolved. */
  selfPath?: string;
  files: SettingsFileFacts[];
  /** Facts per path from {@link handlerPaths}. */
  paths: ReadonlyMap<string, PathFacts>;
  watchMaxSeconds: number;
  /** The status line Claude Code shows, when it runs a stall-watch's `statusline`. */
  statusLine?: {
    /** The settings file, as shown. */
    file: string;
    scope: Scope;
    value: Readonly<Record<string, unknown>>;
  } | null;
}

/** The files a handler runs (the program, and `main.ts` for `deno run`): as written, and `$CLAUDE_PROJECT_DIR` expanded. */
interface HandlerPaths {
  written: string[];
  resolved: string[];
}

/** The paths a handler depends on, `$CLAUDE_PROJECT_DIR` expanded. */
export function handlerPaths(
  handler: Readonly<Record<string, unknown>>,
  projectDir: string,
): HandlerPaths {
  const words = parseHandlerCommand(handler)?.words ?? [];
  const [program, ...rest] = words;
  if (program === undefined) return { written: [], resolved: [] };
  const written = [program];
  if (isDenoProgram(program)) {
    const main = rest.find((w) => /\.[jt]s$/.test(w));
    if (main) written.push(main);
  }
  const resolved = written.map((w) =>
    w.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR/g, projectDir)
  );
  return { written, resolved };
}

/** Whether `path` is `dir` or below it (either platform's separators). */
function isPathInside(dir: string, path: string): boolean {
  const norm = (p: string) => p.replaceAll("\\", "/").replace(/\/+$/, "");
  const base = norm(dir);
  const target = norm(path);
  return base !== "" && (target === base || target.startsWith(`${base}/`));
}

/** An absolute path on either platform (`/x`, `C:/x`, `C:\x`, `//server/x`). */
function isAbsolutePath(path: string): boolean {
  return /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(path);
}

/** What a stall-watch hook would do under an event it is not for. */
const MISREGISTERED_EFFECT: Readonly<Record<string, string>> = {
  PreToolUse:
    "the call about to run is unanswered there by nature, so it would block every tool call",
  UserPromptSubmit: "it would block every prompt",
};

/** The failure of a stall-watch handler under an event it is not for. */
export function misregistrationCheck(
  file: SettingsFileFacts,
  wrong: Misregistration,
): CheckResult {
  const what = wrong.kind === "watch"
    ? '"stall-watch watch"'
    : "the stall-watch hook";
  // Own keys only: a settings file may name an event `toString`.
  const effect = Object.hasOwn(MISREGISTERED_EFFECT, wrong.event)
    ? MISREGISTERED_EFFECT[wrong.event]
    : "it does nothing useful there";
  const flag = wrong.kind === "watch" ? " --watch" : "";
  return {
    status: "fail",
    text: `${wrong.event} in ${file.display}: runs ${what}, which is for ${
      wrong.belongs.join(" and ")
    } only (${effect})`,
    fix:
      `remove that entry from "hooks.${wrong.event}" in ${file.display}, then run "stall-watch install --scope ${file.scope}${flag}"`,
  };
}

/** The checks of one registered handler. */
export function handlerChecks(
  facts: HandlerFacts,
  file: SettingsFileFacts,
  own: OwnHandler,
): CheckResult[] {
  const { handler, event } = own;
  const at = `${event} in ${file.display}`;
  const reinstall = `run "stall-watch install --scope ${file.scope}${
    event === "SubagentStop" ? " --subagents" : ""
  }${isWatchEvent(event) ? " --watch" : ""}"`;
  const problems: CheckResult[] = [];
  const fail = (text: string, fix: string) =>
    problems.push({ status: "fail", text: `${at}: ${text}`, fix });
  const parsed = parseHandlerCommand(handler);
  const paths = handlerPaths(handler, facts.projectDir);
  const command = String(handler.command);
  if (parsed?.form === "shell" && /[A-Za-z]:\\|\\[A-Za-z0-9_]/.test(command)) {
    // Git Bash runs `C:\x\y.exe` as `C:xy.exe`: the path checks are moot.
    fail(
      `${command} has backslashes, which bash drops`,
      "write the path with forward slashes (or " + reinstall + ")",
    );
    paths.written.length = 0;
  }
  paths.written.forEach((written, i) => {
    const resolved = paths.resolved[i] as string;
    const path = facts.paths.get(resolved);
    if (path?.refused !== undefined) {
      fail(`${written} was never looked at: ${path.refused}`, reinstall);
    } else if (!isAbsolutePath(resolved)) {
      fail(`${written} is not an absolute path`, reinstall);
    } else if (!path?.exists) {
      fail(
        `${written} does not exist`,
        `${reinstall} with the stall-watch you want to keep`,
      );
    } else if (!path.isFile) {
      fail(`${written} is not a file`, reinstall);
    } else if (i === 0 && !path.executable) {
      fail(
        `${written} is not executable`,
        facts.platform === "windows"
          ? "use the .exe from the release archive"
          : `chmod +x ${shellQuote(written)}`,
      );
    }
  });
  const timeout = handler.timeout;
  if (typeof timeout !== "number" || !(timeout > 0)) {
    fail(
      'no "timeout" (Claude Code would wait up to 600 s)',
      `add "timeout": 30, or ${reinstall}`,
    );
  }
  if (isWatchEvent(event)) {
    if (handler.async !== true || handler.asyncRewake !== true) {
      fail(
        'the watch handler needs "async": true and "asyncRewake": true',
        reinstall,
      );
    }
    if (typeof timeout === "number" && timeout <= facts.watchMaxSeconds) {
      fail(
        `timeout ${timeout} s is not above the watchdog's deadline (${facts.watchMaxSeconds} s)`,
        reinstall,
      );
    }
  } else {
    if ("if" in handler || own.groupKeys.includes("if")) {
      fail(`has an "if", so it never runs`, 'remove the "if" field');
    }
    if (own.args.length > 0) {
      fail(
        `runs "stall-watch ${own.args.join(" ")}" instead of the hook`,
        reinstall,
      );
    }
  }
  if (problems.length > 0) return problems;
  const runs = `${
    [...paths.written, ...own.args].join(" ")
  } (timeout ${timeout} s)`;
  const results = programChecks(facts, at, paths, {
    runs,
    ok: `${at}: ${runs}`,
    when: "at every stop",
    reinstall,
  });
  const warn = (text: string, fix: string) =>
    results.push({ status: "warn", text: `${at}: ${text}`, fix });
  const [program, ...words] = parsed?.words ?? [];
  if (program !== undefined && isInNpxCache(program)) {
    warn(
      `${program} is in npx's cache, which npm empties without notice (then every stop fails)`,
      NPX_CACHE_FIX,
    );
  }
  if (
    program !== undefined && isDenoProgram(program) &&
    !words.includes(SOURCE_RUN_FLAGS[0] as string)
  ) {
    warn(
      `"deno run" without --quiet: on a cold cache Deno's download lines reach the model`,
      reinstall,
    );
  }
  if (parsed?.form === "shell" && !parsed.startsInProjectDir) {
    warn(
      "starts in the session's current folder, not the project root",
      `begin the command with ${PROJECT_DIR_PREFIX.trim()} (or ${reinstall})`,
    );
  }
  if (command.startsWith(OLD_PROJECT_DIR_PREFIX)) {
    warn(
      "if the project folder is moved or deleted, the failed cd exits 2 (dash, the sh of Debian and Ubuntu), which Claude Code reads as a block at every stop",
      reinstall,
    );
  }
  return results;
}

interface ProgramWording {
  /** What runs, as shown ("/x/stall-watch (timeout 30 s)"). */
  runs: string;
  /** The line when doctor can vouch for the program; `null`: none. */
  ok: string | null;
  /** When the program runs ("at every stop"). */
  when: string;
  reinstall: string;
}

/**
 * What doctor can vouch for of the program a hook or the status line runs:
 * whether it is this stall-watch, and whether it lives inside the project,
 * where a pull changes what runs (a repository's own `tools/stall-watch`).
 */
function programChecks(
  facts: HandlerFacts,
  at: string,
  paths: HandlerPaths,
  wording: ProgramWording,
): CheckResult[] {
  const results: CheckResult[] = [];
  // The file that is stall-watch: `main.ts` for `deno run`, else the program.
  const identifying = paths.resolved.at(-1);
  const real = identifying === undefined
    ? undefined
    : facts.paths.get(identifying)?.realPath;
  if (
    real !== undefined && facts.selfPath !== undefined &&
    real !== facts.selfPath
  ) {
    results.push({
      status: "warn",
      text:
        `${at}: runs ${wording.runs}, a different program than this stall-watch (${facts.selfPath}), which doctor cannot vouch for`,
      fix: `if you did not put it there, remove it and ${wording.reinstall}`,
    });
  } else if (wording.ok !== null) {
    results.push({ status: "ok", text: wording.ok });
  }
  // As written: a link in the project changes like a file; relative is in it.
  if (
    identifying !== undefined &&
    (!isAbsolutePath(identifying) ||
      isPathInside(facts.projectDir, identifying))
  ) {
    results.push({
      status: "warn",
      text: `${at}: ${
        paths.written.at(-1)
      } lives inside the project, so whatever changes the project (a pull, a cloned repository, a tool) changes what runs ${wording.when}`,
      fix:
        `install stall-watch outside the project and ${wording.reinstall} with it`,
    });
  }
  return results;
}

/** The program checks of a hook for the status line, when it runs a stall-watch's. */
export function statusLineChecks(facts: HandlerFacts): CheckResult[] {
  const line = facts.statusLine;
  if (!line) return [];
  const paths = handlerPaths(line.value, facts.projectDir);
  return programChecks(facts, `the status line in ${line.file}`, paths, {
    runs: `${paths.written.join(" ")} statusline`,
    ok: null,
    when: "on screen",
    reinstall: `run "stall-watch install --statusline --scope ${line.scope}"`,
  });
}

/** A failure per hook event that runs stall-watch with different commands. */
export function duplicateChecks(facts: HandlerFacts): CheckResult[] {
  const results: CheckResult[] = [];
  for (const event of HOOK_EVENTS) {
    const commands = new Map<string, string[]>();
    for (const file of facts.files) {
      for (const own of file.handlers.filter((h) => h.event === event)) {
        const id = handlerIdentity(own.handler);
        commands.set(id, [...commands.get(id) ?? [], file.display]);
      }
    }
    if (commands.size > 1) {
      const files = [...new Set([...commands.values()].flat())];
      results.push({
        status: "fail",
        text:
          `${event} runs stall-watch ${commands.size} times (different commands in ${
            files.join(", ")
          }), so each stall is nudged ${commands.size} times`,
        fix: 'keep one: "stall-watch uninstall --scope <scope>" for the others',
      });
    }
  }
  if (results.length === 0) {
    results.push({ status: "ok", text: "no duplicate registrations" });
  }
  return results;
}
