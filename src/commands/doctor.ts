/**
 * `stall-watch doctor`: checks the set-up and says how to fix what is wrong
 * (facts gathered here, checks pure in `doctor/doctor_checks.ts`).
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { parseOptions } from "../shared/command_options.ts";
import { killSwitchOf, lookAtMarker } from "../decision/kill_switch.ts";
import {
  doctorChecks,
  type DoctorFacts,
  handlerPaths,
  type PathFacts,
  type SettingsFileFacts,
} from "../doctor/doctor_checks.ts";
import {
  renderDoctorJson,
  renderDoctorReport,
} from "../doctor/doctor_report.ts";
import { describe, ExitCode } from "../shared/errors.ts";
import {
  knownPathsOf,
  type Platform,
  platformOf,
  selfInvocation,
} from "../install/hook_command.ts";
import {
  findOwnHandlers,
  hooksShapeProblems,
} from "../install/hook_registration.ts";
import {
  findMisregistered,
  findTurnEndingHooks,
} from "../install/registered_hooks.ts";
import { formatProblems, loadSettings } from "../config/load_settings.ts";
import { runsStallWatchStatusLine } from "../install/status_line_registration.ts";
import { readSettingsFile } from "../client_settings/settings_file.ts";
import { parseSettingsText } from "../client_settings/settings_json.ts";
import {
  applicableSettingsFiles,
  type Scope,
} from "../client_settings/settings_scope.ts";
import { displayPath } from "../client_settings/settings_update.ts";
import { colorEnabled } from "../shared/term_style.ts";
import { VERSION } from "../shared/version.ts";
import { codexChecks, gatherCodexFacts } from "../doctor/doctor_codex.ts";
import {
  pathFacts,
  pluginFacts,
  probeClaudeDir,
  projectsDirsOf,
  realPathOrNull,
} from "../doctor/doctor_probes.ts";
import { projectRelease } from "../transcript/transcript_files.ts";

/** The `help doctor` text. */
export const help: string = `stall-watch doctor: check the set-up

Usage:
  stall-watch doctor [--json] [--codex]

Run it in the project root. Checks, with a fix for each failure:
  - which settings files register stall-watch (Stop, SubagentStop, watch),
    that each of them is strict JSON, and that "hooks" has the shape
    Claude Code reads
  - no stall-watch handler under another event (the hook belongs in Stop
    and SubagentStop, watch in PostToolUse and PostToolUseFailure: under
    PreToolUse the hook would block every tool call)
  - each handler's program: absolute path, present, executable; forward
    slashes; a timeout; no "if" on a Stop handler; the watch handler async
    with a timeout above the watchdog's deadline
  - no duplicate registrations with different commands (each would run)
  - .claude is writable
  - the config file and STALL_WATCH_* variables are valid (every problem)
  - from source: "deno run --quiet", and no Deno inside npx's cache
  - the kill switch (a warning when on)
  - the version
  - the Claude Code release of the project's newest transcript and what
    works on it: the watchdog (asyncRewake, 2.1.84+) and the output mode
    ("context" needs 2.1.163+), with the fix (upgrade, or drop --watch)
  - stall-watch as a Claude Code plugin: installed and enabled here, what
    it runs (its release binary, or its source with Deno), and a warning
    when a settings file registers stall-watch beside it (double nudges)

Reads .claude/settings.json, .claude/settings.local.json, the user's
settings (~/.claude or $CLAUDE_CONFIG_DIR) and Claude Code's list of
installed plugins (plugins/installed_plugins.json there). Writes nothing but a probe file
in .claude, removed at once. Colour as for every command (--color,
FORCE_COLOR, NO_COLOR; by default only on a terminal).

When .codex/hooks.json or the user's $CODEX_HOME/hooks.json registers
stall-watch for OpenAI's Codex CLI, it also asks Codex (codex app-server)
whether it will run that hook: trusted, modified since it was trusted, not
trusted, or in a project Codex does not trust (Codex skips all of these
without a word).

Options:
  --json   one JSON object instead: {"version", "healthy", "problems",
           "warnings", "checks": [{"status": "ok|warn|fail", "text", "fix"}]}
  --codex  the Codex checks only; no Codex registration is a failure

Exit codes: 0 healthy (warnings allowed), 1 a check failed, 64 usage error.
`;

/** Runs `doctor`. Requires `--allow-read`, `--allow-env`, and writes a probe in `.claude`. */
export async function run(
  args: readonly string[],
  io: CliIO,
): Promise<number> {
  const options = parseOptions("doctor", args, { json: "flag", codex: "flag" });
  const platform = platformOf(Deno.build.os);
  const codex = codexChecks(await gatherCodexFacts(io, options.codex === true));
  const results = options.codex
    ? codex
    : [...doctorChecks(await gatherFacts(io, platform)), ...codex];
  io.writeStdout(
    options.json
      ? renderDoctorJson(results, VERSION)
      : renderDoctorReport(results, colorEnabled(io, "stdout")),
  );
  return results.some((r) => r.status === "fail")
    ? ExitCode.inputError
    : ExitCode.ok;
}

async function gatherFacts(
  io: CliIO,
  platform: Platform,
): Promise<DoctorFacts> {
  const self = selfInvocation(io.execPath, io.mainModule, platform);
  const knownPaths = knownPathsOf(self);
  const selfPath = knownPaths[0] === undefined
    ? null
    : realPathOrNull(knownPaths[0], platform);
  const files: SettingsFileFacts[] = [];
  const paths = new Map<string, PathFacts>();
  const lookAt = async (handler: Record<string, unknown>) => {
    for (const resolved of handlerPaths(handler, io.cwd).resolved) {
      if (!paths.has(resolved)) {
        paths.set(resolved, await pathFacts(resolved, platform, io.cwd));
      }
    }
  };
  const turnEnding: string[] = [];
  const statusLines = new Map<Scope, NonNullable<DoctorFacts["statusLine"]>>();
  for (const { scope, path } of applicableSettingsFiles(io.env, io.cwd)) {
    const display = displayPath(io.cwd, path);
    const facts: SettingsFileFacts = {
      scope,
      display,
      exists: false,
      error: null,
      handlers: [],
      shapeProblems: [],
      misregistered: [],
    };
    files.push(facts);
    try {
      const file = readSettingsFile(path, scope === "user" ? null : io.cwd);
      facts.exists = file.exists;
      if (!file.exists) continue;
      const settings = parseSettingsText(file.text, display);
      facts.handlers = findOwnHandlers(settings, knownPaths);
      facts.shapeProblems = hooksShapeProblems(settings);
      facts.misregistered = findMisregistered(settings, knownPaths);
      // Recognised by name; its program is checked as a hook's is.
      if (runsStallWatchStatusLine(settings.statusLine, knownPaths)) {
        statusLines.set(scope, {
          file: display,
          scope,
          value: settings.statusLine,
        });
        await lookAt(settings.statusLine);
      }
      turnEnding.push(
        ...findTurnEndingHooks(settings, knownPaths).map((hook) =>
          `${hook.event} in ${display}: ${hook.what}`
        ),
      );
    } catch (error) {
      facts.error = describe(error);
      continue;
    }
    for (const own of facts.handlers) await lookAt(own.handler);
  }
  const loaded = await loadSettings(io.env, io.cwd);
  // The status line Claude Code uses: the most specific file's.
  const statusLine = statusLines.get("local") ?? statusLines.get("project") ??
    statusLines.get("user") ?? null;
  const refresh = statusLine?.value.refreshInterval;
  const watchEvents = [
    ...new Set(
      files.flatMap((f) => f.handlers)
        .filter((h) => h.args[0] === "watch").map((h) => h.event),
    ),
  ];
  const seen = await projectRelease(projectsDirsOf(io.env), io.cwd);
  const { killSwitchFile } = loaded.settings;
  return {
    client: {
      transcript: seen === null ? null : seen.path,
      release: seen?.release ?? null,
      watch: watchEvents.length > 0,
      output: loaded.settings.output,
      idleSeconds: loaded.settings.idleSeconds,
      turnEndingHooks: turnEnding,
      statusLine: statusLine === null ? null : {
        file: statusLine.file,
        refreshSeconds: typeof refresh === "number" && refresh > 0
          ? refresh
          : null,
        afterSeconds: loaded.settings.statusLineAfterSeconds,
      },
    },
    statusLine,
    plugin: await pluginFacts(io, platform),
    version: VERSION,
    self,
    platform,
    projectDir: io.cwd,
    ...(selfPath === null ? {} : { selfPath }),
    files,
    paths,
    claudeDirError: await probeClaudeDir(io.cwd),
    configPath: loaded.configPath,
    problems: formatProblems(loaded.problems.filter((p) => !p.warning)),
    configWarnings: formatProblems(loaded.problems.filter((p) => p.warning)),
    killSwitch: killSwitchOf(loaded.settings, io),
    killSwitchMarker: killSwitchFile === null ? null : {
      path: killSwitchFile,
      source: loaded.settings.killSwitchFileSource ?? "the settings",
      look: lookAtMarker(io.cwd, killSwitchFile),
    },
    announcedNoCall: loaded.settings.announcedNoCall,
    watchMaxSeconds: loaded.settings.watchMaxSeconds,
    timers: {
      watchEvents,
      idleSeconds: loaded.settings.idleSeconds,
      watchMaxSeconds: loaded.settings.watchMaxSeconds,
      maxRetries: loaded.settings.maxRetries,
      env: io.env,
    },
  };
}
