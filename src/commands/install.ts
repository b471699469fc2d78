/**
 * `stall-watch install`: registers this stall-watch as a Claude Code hook
 * in one settings file, idempotently and without disturbing the file.
 *
 * @module
 */

import { dirname, join, normalize, resolvePath } from "../shared/paths.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { parseOptions, parseSeconds } from "../shared/command_options.ts";
import { InputError, UsageError } from "../shared/errors.ts";
import { readRegularText } from "../shared/regular_file.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import {
  DEFAULT_HOOK_TIMEOUT,
  type HookEvent,
  isInNpxCache,
  knownPathsOf,
  NPX_CACHE_FIX,
  platformOf,
  selfInvocation,
  WATCH_EVENTS,
  WATCH_TIMEOUT_MARGIN,
} from "../install/hook_command.ts";
import { planInstall } from "../install/hook_registration.ts";
import { STATUS_LINE_REFRESH_SECONDS } from "../install/status_line_registration.ts";
import { loadSettings } from "../config/load_settings.ts";
import {
  parseScope,
  type Scope,
  settingsPath,
} from "../client_settings/settings_scope.ts";
import {
  displayPath,
  updateSettings,
} from "../client_settings/settings_update.ts";
import { type InstallFacts, installNotes } from "../install/install_notes.ts";
import { lookUpPlugin } from "../client_settings/plugin_lookup.ts";
import { describePlugin } from "../client_settings/plugin_records.ts";
import { installForCodex } from "../install/codex_install.ts";

/** The scope used without `--scope`: the command holds a path on this machine. */
export const DEFAULT_SCOPE: Scope = "local";

const MAX_TIMEOUT_SECONDS = 3600;

/** The `help install` text. */
export const help: string =
  `stall-watch install: register stall-watch as a Claude Code hook

Usage:
  stall-watch install [--scope local|project|user] [--subagents] [--watch]
                      [--statusline] [--timeout S] [--dry-run]
  stall-watch install --codex [--user] [--timeout S] [--dry-run]

Adds a Stop handler that starts this stall-watch by its absolute path
(from source: "deno run" with the release permissions and main.ts), with
an explicit timeout, to one settings file:
  --scope local    .claude/settings.local.json (default: this machine only,
                   git-ignored, because the command holds a local path)
  --scope project  .claude/settings.json (shared with the repo)
  --scope user     ~/.claude/settings.json ($CLAUDE_CONFIG_DIR when set)

Options:
  --subagents  also register SubagentStop (judges each subagent's transcript)
  --watch      also register the watchdog: async PostToolUse and
               PostToolUseFailure handlers running "stall-watch watch"
               that may wake an idle session;
               its timeout is the watchdog's deadline (watchMaxSeconds,
               default 600) plus ${WATCH_TIMEOUT_MARGIN} s
  --statusline also make "stall-watch statusline" the status line, re-run
               every ${STATUS_LINE_REFRESH_SECONDS} s: it names a tool call that has had no result for
               minutes (a call hung in flight fires no hook); refused when
               the file already has someone else's status line
  --timeout S  seconds Claude Code gives the Stop handler (default
               ${DEFAULT_HOOK_TIMEOUT}, or the timeout already registered)
  --dry-run    print the change as a diff and write nothing

Run it in the project root. On macOS and Linux the handler is
  cd -- "$CLAUDE_PROJECT_DIR" || exit 1; /abs/path/stall-watch
so state always lands in the project's .claude (and a project folder that
is gone is a hook error, never a block); on Windows it is exec form
("command" + "args", forward slashes), which needs neither Git Bash nor
PowerShell.

Safe to repeat: an existing stall-watch handler is updated in place, never
duplicated, and a second run changes nothing. Other keys and the file's
formatting are kept, the old file is backed up to
.claude/stall_watch/backups/ first, and a file that is not strict JSON is
refused and left untouched.

stall-watch may only write inside ./.claude, so for --scope user run it
from your home folder (where ./.claude is ~/.claude):
  cd ~ && /abs/path/stall-watch install --scope user

When stall-watch already runs here as a Claude Code plugin, install
refuses (each stall would be nudged twice) and says how to go on.

For OpenAI's Codex CLI, --codex writes the Stop hook
"/abs/path/stall-watch codex-stop" into .codex/hooks.json (--user: the
user's, $CODEX_HOME/hooks.json, ~/.codex by default; run it from your home
folder), keeping everything else in the file, then trusts it through
"codex app-server": Codex skips an untrusted hook without a word, and a
project's .codex/ only loads in a project Codex trusts. Without codex on
the PATH it says how to trust the hook (/hooks in codex). Each Codex stop
is then judged like Claude Code's (see "stall-watch help codex-stop").

Exit codes: 0 done (or nothing to change), 1 file refused, not writable
from here, or the plugin already runs here, 64 usage error. Then check
with: stall-watch doctor
`;

/** Runs `install`. Requires `--allow-read`, `--allow-env`, and writes `.claude` (not with `--dry-run`). */
export async function run(
  args: readonly string[],
  io: CliIO,
): Promise<number> {
  const options = parseOptions("install", args, {
    scope: "value",
    subagents: "flag",
    watch: "flag",
    statusline: "flag",
    timeout: "value",
    "dry-run": "flag",
    codex: "flag",
    user: "flag",
  });
  if (options.codex || options.user) return await runCodex(options, io);
  const scope = typeof options.scope === "string"
    ? parseScope(options.scope)
    : DEFAULT_SCOPE;
  const timeout = typeof options.timeout === "string"
    ? parseSeconds("timeout", options.timeout, 1, MAX_TIMEOUT_SECONDS)
    : null;
  const events: HookEvent[] = ["Stop"];
  if (options.subagents) events.push("SubagentStop");
  if (options.watch) events.push(...WATCH_EVENTS);
  const platform = platformOf(Deno.build.os);
  const invocation = selfInvocation(io.execPath, io.mainModule, platform);
  if (isInNpxCache(invocation.program)) {
    throw new InputError(
      `Refusing to register ${invocation.program}: it is in npx's cache, which npm empties without notice (then every stop fails): ${NPX_CACHE_FIX}`,
    );
  }
  const { settings } = await loadSettings(io.env, io.cwd);
  const path = settingsPath(scope, io.env, io.cwd);
  refuseBesidePlugin(io, displayPath(io.cwd, path));
  noteProjectDir(io, scope);
  const before = await placeFacts(io);
  const result = await updateSettings(io, {
    command: "install",
    scope,
    path,
    dryRun: options["dry-run"] === true,
  }, (text, name) =>
    planInstall(text, name, {
      invocation,
      platform,
      knownPaths: knownPathsOf(invocation),
      events,
      timeout,
      watchTimeout: settings.watchMaxSeconds + WATCH_TIMEOUT_MARGIN,
      statusLine: options.statusline === true,
    }));
  if (result.changes.length > 0 && options["dry-run"] !== true) {
    io.writeStdout("Check the set-up with: stall-watch doctor\n");
  }
  const notes = installNotes({
    ...before,
    scope,
    settingsFile: displayPath(io.cwd, path),
    program: invocation.program,
    gitignore: readGitignores(io.cwd),
  });
  for (const note of notes) io.writeStderr(`stall-watch: note: ${note}\n`);
  return result.exitCode;
}

/** `install --codex`: Codex's `hooks.json` instead of Claude Code's settings. */
function runCodex(
  options: Record<string, string | true | undefined>,
  io: CliIO,
): Promise<number> {
  if (!options.codex) {
    throw new UsageError(
      '"--user" goes with "--codex" (for Claude Code: --scope user)',
    );
  }
  const other = ["scope", "subagents", "watch", "statusline"].find((name) =>
    options[name] !== undefined
  );
  if (other !== undefined) {
    throw new UsageError(`"--${other}" is for Claude Code, not "--codex"`);
  }
  return installForCodex(io, {
    scope: options.user ? "user" : "project",
    timeout: typeof options.timeout === "string"
      ? parseSeconds("timeout", options.timeout, 1, MAX_TIMEOUT_SECONDS)
      : null,
    dryRun: options["dry-run"] === true,
  });
}

/** Refuses a settings registration while the plugin runs here: each stall would be nudged twice. */
function refuseBesidePlugin(io: CliIO, file: string): void {
  const { states } = lookUpPlugin(io.env, io.cwd);
  const plugin = states.find((s) => s.enabled);
  if (!plugin) return;
  const id = plugin.install.id;
  throw new InputError(
    `Refusing to register stall-watch in ${file}: it already runs here as the Claude Code plugin ${
      describePlugin(plugin)
    }, and both would nudge every stall. Keep the plugin (there is nothing to install), or remove it first ("claude plugin uninstall ${id}", or for this project only "claude plugin disable ${id} --scope local") and run install again`,
  );
}

/** Where install runs, before it writes: see {@link InstallFacts}. */
async function placeFacts(
  io: CliIO,
): Promise<Pick<InstallFacts, "claudeDirExisted" | "rootAbove" | "isGitRoot">> {
  const exists = (path: string) =>
    Deno.lstat(path).then(() => true, () => false);
  const start = normalize(io.cwd);
  const isGitRoot = await exists(join(start, ".git"));
  const claudeDirExisted = await exists(join(start, ".claude"));
  const home = io.env.HOME || io.env.USERPROFILE;
  let rootAbove: InstallFacts["rootAbove"] = null;
  for (let dir = dirname(start); !isGitRoot; dir = dirname(dir)) {
    if (await exists(join(dir, ".git"))) {
      rootAbove = { dir, marker: ".git" };
    } else if (
      // ~/.claude holds the user's settings, not a project's.
      (home === undefined || resolvePath(io.cwd, home) !== dir) &&
      await exists(join(dir, ".claude"))
    ) {
      rootAbove = { dir, marker: ".claude" };
    }
    if (rootAbove !== null || dirname(dir) === dir) break;
  }
  return { claudeDirExisted, rootAbove, isGitRoot };
}

/** Largest `.gitignore` read; a cloned one may be a symlink to `/dev/zero`. */
const MAX_GITIGNORE_BYTES = 1024 * 1024;

/** `.gitignore` and `.claude/.gitignore` of the start folder ("" for an unusable one: it tunes a note). */
function readGitignores(cwd: string): string {
  return [join(cwd, ".gitignore"), join(cwd, ".claude", ".gitignore")].map(
    (path) => {
      try {
        return readRegularText(path, ".gitignore", MAX_GITIGNORE_BYTES, {
          inside: cwd,
        }) ?? "";
      } catch {
        return "";
      }
    },
  ).join("\n");
}

/** Warns when run inside a Claude Code session from below its project root. */
function noteProjectDir(io: CliIO, scope: Scope): void {
  const projectDir = io.env.CLAUDE_PROJECT_DIR;
  if (scope === "user" || !projectDir) return;
  if (resolvePath(io.cwd, projectDir) === normalize(io.cwd)) return;
  io.writeStderr(
    `stall-watch: note: installing into ${
      escapeTerminal(io.cwd)
    }, but CLAUDE_PROJECT_DIR is ${escapeTerminal(projectDir)}\n`,
  );
}
