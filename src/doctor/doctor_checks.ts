/**
 * The `doctor` checklist: facts about the set-up in, one result per check
 * (with a fix for each failure) out, and the report text.
 *
 * Pure: the command gathers the facts (files, stats, probes) first.
 *
 * @module
 */

import type { KillSwitchStatus } from "../guardrails/guardrails.ts";
import type { MarkerLook } from "../decision/kill_switch.ts";
import type { AnnouncedNoCallMode } from "../config/settings.ts";
import {
  handlerIdentity,
  HOOK_EVENTS,
  type Invocation,
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
import { timerChecks, type TimerFacts } from "./_doctor_timers.ts";
import { clientChecks, type ClientFacts } from "./_doctor_client.ts";
import {
  pluginChecks,
  pluginEnabled,
  type PluginFacts,
} from "./doctor_plugin.ts";

/** What was found in one settings file. */
export interface SettingsFileFacts {
  scope: Scope;
  /** As shown to the user. */
  display: string;
  exists: boolean;
  /** Why the file cannot be used (one line naming it), or `null`. */
  error: string | null;
  handlers: OwnHandler[];
  /** Where `hooks` is not shaped as Claude Code reads it (see `hooksShapeProblems`). */
  shapeProblems: string[];
  /** stall-watch handlers under events they are not for. */
  misregistered: Misregistration[];
}

/** What the file system says about a path a handler runs. */
export interface PathFacts {
  exists: boolean;
  isFile: boolean;
  /** Has an execute bit (POSIX) or an `.exe` name (Windows). */
  executable: boolean;
  /** Where it leads, links resolved (absent: not known). */
  realPath?: string;
  /** Why it was never looked at (a network path); absent: it was. */
  refused?: string;
}

/** Everything the checks look at. */
export interface DoctorFacts {
  version: string;
  self: Invocation;
  platform: Platform;
  /** The project root (the start directory). */
  projectDir: string;
  /**
   * The file that is this stall-watch (the binary, or `main.ts` from
   * source), links resolved; absent when not known.
   */
  selfPath?: string;
  files: SettingsFileFacts[];
  /** Facts per path from {@link handlerPaths}. */
  paths: ReadonlyMap<string, PathFacts>;
  /** `null` when `.claude` is writable, else why not. */
  claudeDirError: string | null;
  /** The config file in use, or `null` for none. */
  configPath: string | null;
  /** Config and environment problems, one line each. */
  problems: readonly string[];
  killSwitch: KillSwitchStatus;
  /**
   * The kill-switch marker in force: its path as given, where it was set
   * (`env STALL_WATCH_KILL_SWITCH_FILE`, or the config's `file:line:col`)
   * and what a look found; absent or `null`: none is set.
   */
  killSwitchMarker?: {
    path: string;
    source: string;
    look: MarkerLook;
  } | null;
  /** What the hook does with an announced action that never came. */
  announcedNoCall: AnnouncedNoCallMode;
  watchMaxSeconds: number;
  /** The watchdog's windows against Claude Code's timers (`_doctor_timers.ts`). */
  timers: TimerFacts;
  /** stall-watch as a Claude Code plugin here (`doctor_plugin.ts`). */
  plugin: PluginFacts;
  /** The Claude Code release the project runs (`_doctor_client.ts`). */
  client: ClientFacts;
  /**
   * The status line Claude Code shows (the most specific file's), when it
   * runs a stall-watch's `statusline`; its program's paths are in
   * {@link paths}; absent or `null`: none.
   */
  statusLine?: {
    /** The settings file, as shown. */
    file: string;
    scope: Scope;
    /** The `statusLine` value. */
    value: Readonly<Record<string, unknown>>;
  } | null;
}

/** The files a handler runs: the program, and `main.ts` for `deno run`. */
export interface HandlerPaths {
  /** As written (after quotes are removed). */
  written: string[];
  /** With `$CLAUDE_PROJECT_DIR` expanded, for the file system. */
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
export function isAbsolutePath(path: string): boolean {
  return /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(path);
}

/** Runs every check, in report order. */
export function doctorChecks(facts: DoctorFacts): CheckResult[] {
  const results: CheckResult[] = [versionCheck(facts)];
  for (const file of facts.files) {
    if (file.error !== null) {
      results.push({
        status: "fail",
        text: file.error,
        // A duplicate key, deep nesting or an unreadable file: the error
        // line says what to do; this fix is for syntax only.
        ...(file.error.includes("not strict JSON")
          ? {
            fix:
              "make it strict JSON (no comments, no trailing commas): Claude Code ignores the whole file until then",
          }
          : {}),
      });
    }
  }
  for (const file of facts.files) {
    for (const problem of file.shapeProblems) {
      results.push({
        status: "fail",
        text: `${file.display} has ${problem}`,
        fix:
          'fix it by hand: Claude Code reads {"hooks": {"<Event>": [{"hooks": [{"type": "command", ...}]}]}}',
      });
    }
  }
  results.push(...registrationChecks(facts));
  results.push(
    ...pluginChecks(
      facts.plugin,
      facts.files.filter((f) => f.handlers.length > 0)
        .map((f) => ({ scope: f.scope, display: f.display })),
    ),
  );
  for (const file of facts.files) {
    for (const handler of file.handlers) {
      results.push(...handlerChecks(facts, file, handler));
    }
    for (const wrong of file.misregistered) {
      results.push(misregistrationCheck(file, wrong));
    }
  }
  results.push(...duplicateChecks(facts));
  results.push(
    facts.claudeDirError === null
      ? { status: "ok", text: ".claude is writable (state, log, backups)" }
      : {
        status: "fail",
        text: `.claude is not writable: ${facts.claudeDirError}`,
        fix:
          "make the project's .claude a writable folder (no symlinks leading outside it)",
      },
  );
  results.push(
    ...configChecks(facts),
    killSwitchCheck(facts),
    ...markerCheck(facts),
    announcedCheck(facts),
  );
  results.push(...timerChecks(facts.timers));
  const statusLine = statusLineChecks(facts);
  results.push(...clientChecks(
    statusLine.length === 0
      ? facts.client
      : { ...facts.client, statusLine: null },
  ));
  results.push(...statusLine);
  return results;
}

function versionCheck(facts: DoctorFacts): CheckResult {
  const how = facts.self.fromSource
    ? `from source: ${facts.self.args.at(-1)} via ${facts.self.program}`
    : `compiled: ${facts.self.program}`;
  return { status: "ok", text: `stall-watch ${facts.version} (${how})` };
}

function registrationChecks(facts: DoctorFacts): CheckResult[] {
  // Where each handler is registered shows on its own line below.
  const stop = facts.files.some((f) =>
    f.handlers.some((h) => h.event === "Stop")
  );
  if (stop || pluginEnabled(facts.plugin)) return [];
  const disabled = facts.plugin.states[0]?.install.id;
  return [{
    status: "fail",
    text: "stall-watch is not registered for Stop in any settings file",
    fix: disabled
      ? `enable its plugin here ("claude plugin enable ${disabled}"), or run "stall-watch install" in the project root`
      : 'run "stall-watch install" in the project root',
  }];
}

/** What a stall-watch hook would do under an event it is not for. */
const MISREGISTERED_EFFECT: Readonly<Record<string, string>> = {
  PreToolUse:
    "the call about to run is unanswered there by nature, so it would block every tool call",
  UserPromptSubmit: "it would block every prompt",
};

function misregistrationCheck(
  file: SettingsFileFacts,
  wrong: Misregistration,
): CheckResult {
  const what = wrong.kind === "watch"
    ? '"stall-watch watch"'
    : "the stall-watch hook";
  const effect = MISREGISTERED_EFFECT[wrong.event] ??
    "it does nothing useful there";
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

function handlerChecks(
  facts: DoctorFacts,
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
  const [program, ...words] = parsed?.words ?? [];
  if (program !== undefined && isInNpxCache(program)) {
    results.push({
      status: "warn",
      text:
        `${at}: ${program} is in npx's cache, which npm empties without notice (then every stop fails)`,
      fix: NPX_CACHE_FIX,
    });
  }
  if (
    program !== undefined && isDenoProgram(program) &&
    !words.includes(SOURCE_RUN_FLAGS[0] as string)
  ) {
    results.push({
      status: "warn",
      text:
        `${at}: "deno run" without --quiet: on a cold cache Deno's download lines reach the model`,
      fix: reinstall,
    });
  }
  if (parsed?.form === "shell" && !parsed.startsInProjectDir) {
    results.push({
      status: "warn",
      text:
        `${at}: starts in the session's current folder, not the project root`,
      fix:
        `begin the command with ${PROJECT_DIR_PREFIX.trim()} (or ${reinstall})`,
    });
  }
  if (command.startsWith(OLD_PROJECT_DIR_PREFIX)) {
    results.push({
      status: "warn",
      text:
        `${at}: if the project folder is moved or deleted, the failed cd exits 2 (dash, the sh of Debian and Ubuntu), which Claude Code reads as a block at every stop`,
      fix: reinstall,
    });
  }
  return results;
}

/** How {@link programChecks} words its lines. */
interface ProgramWording {
  /** What runs, as shown ("/x/stall-watch (timeout 30 s)"). */
  runs: string;
  /** The line when doctor can vouch for the program; `null`: none. */
  ok: string | null;
  /** When the program runs ("at every stop"). */
  when: string;
  /** How to register it again. */
  reinstall: string;
}

/**
 * What doctor can vouch for of the program a hook or the status line
 * runs, the same checks for both: whether it is this stall-watch (the
 * binary, or `main.ts` for `deno run`, links resolved), and whether it
 * lives inside the project, where a pull or a cloned repository changes
 * what runs. A repository can register its own `tools/stall-watch` under
 * either (say, a `curl | sh`).
 */
function programChecks(
  facts: DoctorFacts,
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
  // As written: a link inside the project can be changed like a file. A
  // relative path is found in the session's folder, the project.
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

/**
 * The status line Claude Code shows, when it runs a stall-watch's
 * `statusline`: the program checks of a hook ({@link programChecks}).
 * doctor's other line on it (what it names, how often) is an `ok` only
 * when nothing here warned.
 */
function statusLineChecks(facts: DoctorFacts): CheckResult[] {
  const line = facts.statusLine;
  if (!line) return [];
  const at = `the status line in ${line.file}`;
  const paths = handlerPaths(line.value, facts.projectDir);
  return programChecks(
    facts,
    at,
    paths,
    {
      runs: `${paths.written.join(" ")} statusline`,
      ok: null,
      when: "on screen",
      reinstall: `run "stall-watch install --statusline --scope ${line.scope}"`,
    },
  );
}

function duplicateChecks(facts: DoctorFacts): CheckResult[] {
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

function configChecks(facts: DoctorFacts): CheckResult[] {
  const file = facts.configPath ?? "no config file";
  if (facts.problems.length === 0) {
    return [{
      status: "ok",
      text: `config: ${file}${facts.configPath ? " is valid" : " (defaults)"}`,
    }];
  }
  // Every problem on its own line: a list cut short hides the one to fix.
  return facts.problems.map((problem) => ({
    status: "fail",
    text: `config: ${problem}`,
    fix: "fix the value named (the hook uses the default for it meanwhile)",
  }));
}

/**
 * What `announced_no_call` does here. Its precision as measured on real
 * sessions (`deno task corpus`; docs/detection.md) goes with it, so that
 * whoever turns blocking on knows what to expect.
 */
function announcedCheck(facts: DoctorFacts): CheckResult {
  const measured = "on 1,347 real turn ends it fired 3 times, every one " +
    "a real announced stop, and caught 3 of 5; nine languages";
  if (facts.announcedNoCall === "block") {
    return {
      status: "ok",
      text: "announced_no_call blocks: a turn whose last words announce an " +
        `action that never came is nudged once (${measured})`,
    };
  }
  return {
    status: "ok",
    text: "announced_no_call is logged only (off by default): a turn whose " +
      "last words announce an action that never came is allowed and logged " +
      `(${measured}); "announced_no_call": "block" nudges it`,
  };
}

/**
 * Which kill-switch marker is in force, who set it, and whether it is
 * there: a marker that cannot work (a link on the way leads out of the
 * project) is a warning, since the operator counts on it.
 */
function markerCheck(facts: DoctorFacts): CheckResult[] {
  const marker = facts.killSwitchMarker;
  if (!marker) return [];
  const named = `kill-switch marker ${marker.path} (set by ${marker.source})`;
  const { look } = marker;
  if (look.state === "refused") {
    return [{
      status: "warn",
      text: `${named} is never looked at: ${look.reason}`,
      fix: "name a marker reached without a link leading out of the project",
    }];
  }
  return [{
    status: "ok",
    text: look.state === "present"
      ? `${named} exists: every stop is allowed while it does`
      : `${named} does not exist (create it to allow every stop)`,
  }];
}

function killSwitchCheck(facts: DoctorFacts): CheckResult {
  const { active, source } = facts.killSwitch;
  if (!active) return { status: "ok", text: "kill switch is off" };
  const [kind, rest = ""] = source.split(" ", 2);
  const fix = kind === "env"
    ? `unset ${rest.split("=")[0]}`
    : kind === "file"
    ? `remove ${source.slice(5)}`
    : `set "kill_switch": false in ${facts.configPath ?? "the config file"}`;
  return {
    status: "warn",
    text: `kill switch is on (${source}): every stop is allowed`,
    fix,
  };
}
