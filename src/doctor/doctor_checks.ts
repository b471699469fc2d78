/**
 * The `doctor` checklist: facts about the set-up in (the command gathers
 * them), one result per check out, with a fix for each failure. Pure.
 *
 * @example
 * ```ts
 * io.writeStdout(renderDoctorReport(doctorChecks(facts), false));
 * ```
 *
 * @module
 */

import type { KillSwitchStatus } from "../guardrails/guardrails.ts";
import type { MarkerLook } from "../decision/kill_switch.ts";
import type { AnnouncedNoCallMode } from "../config/settings.ts";
import type { Invocation } from "../install/hook_command.ts";
import type { CheckResult } from "./doctor_report.ts";
import {
  duplicateChecks,
  handlerChecks,
  type HandlerFacts,
  misregistrationCheck,
  statusLineChecks,
} from "./_doctor_handlers.ts";
import { timerChecks, type TimerFacts } from "./_doctor_timers.ts";
import { clientChecks, type ClientFacts } from "./_doctor_client.ts";
import {
  pluginChecks,
  pluginEnabled,
  type PluginFacts,
} from "./_doctor_plugin.ts";

export {
  handlerPaths,
  type PathFacts,
  type SettingsFileFacts,
} from "./_doctor_handlers.ts";

/** Everything the checks look at. */
export interface DoctorFacts extends HandlerFacts {
  version: string;
  self: Invocation;
  /** `null` when `.claude` is writable, else why not. */
  claudeDirError: string | null;
  configPath: string | null;
  /** Config and environment problems, one line each. */
  problems: readonly string[];
  /** Settings set aside on purpose (a project's recovery texts): warnings. */
  configWarnings?: readonly string[];
  killSwitch: KillSwitchStatus;
  /** The kill-switch marker in force, who set it, what a look found. */
  killSwitchMarker?: {
    path: string;
    source: string;
    look: MarkerLook;
  } | null;
  announcedNoCall: AnnouncedNoCallMode;
  timers: TimerFacts;
  plugin: PluginFacts;
  client: ClientFacts;
}

/** Runs every check, in report order. */
export function doctorChecks(facts: DoctorFacts): CheckResult[] {
  const statusLine = statusLineChecks(facts);
  return [
    versionCheck(facts),
    ...facts.files.flatMap((file): CheckResult[] =>
      file.error === null ? [] : [{
        status: "fail",
        text: file.error,
        // Other errors say what to do; this fix is for syntax only.
        ...(file.error.includes("not strict JSON")
          ? {
            fix:
              "make it strict JSON (no comments, no trailing commas): Claude Code ignores the whole file until then",
          }
          : {}),
      }]
    ),
    ...facts.files.flatMap((file) =>
      file.shapeProblems.map((problem): CheckResult => ({
        status: "fail",
        text: `${file.display} has ${problem}`,
        fix:
          'fix it by hand: Claude Code reads {"hooks": {"<Event>": [{"hooks": [{"type": "command", ...}]}]}}',
      }))
    ),
    ...registrationChecks(facts),
    ...pluginChecks(
      facts.plugin,
      facts.files.filter((f) => f.handlers.length > 0),
    ),
    ...facts.files.flatMap((file) => [
      ...file.handlers.flatMap((own) => handlerChecks(facts, file, own)),
      ...file.misregistered.map((wrong) => misregistrationCheck(file, wrong)),
    ]),
    ...duplicateChecks(facts),
    facts.claudeDirError === null
      ? { status: "ok", text: ".claude is writable (state, log, backups)" }
      : {
        status: "fail",
        text: `.claude is not writable: ${facts.claudeDirError}`,
        fix:
          "make the project's .claude a writable folder (no symlinks leading outside it)",
      },
    ...configChecks(facts),
    killSwitchCheck(facts),
    ...markerCheck(facts),
    announcedCheck(facts),
    ...timerChecks(facts.timers),
    // Where the status line's program has checks, they stand for the client's line on it.
    ...clientChecks(
      statusLine.length === 0
        ? facts.client
        : { ...facts.client, statusLine: null },
    ),
    ...statusLine,
  ];
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

function configChecks(facts: DoctorFacts): CheckResult[] {
  const file = facts.configPath ?? "no config file";
  const warnings: CheckResult[] = (facts.configWarnings ?? []).map((
    warning,
  ) => ({
    status: "warn",
    text: `config: ${warning}`,
    fix: "remove the key from the project's config",
  }));
  if (facts.problems.length === 0) {
    return [{
      status: "ok",
      text: `config: ${file}${facts.configPath ? " is valid" : " (defaults)"}`,
    }, ...warnings];
  }
  // Every problem on its own line: a list cut short hides the one to fix.
  return [
    ...facts.problems.map((problem): CheckResult => ({
      status: "fail",
      text: `config: ${problem}`,
      fix: "fix the value named (the hook uses the default for it meanwhile)",
    })),
    ...warnings,
  ];
}

/** What `announced_no_call` does here, with its measured precision (`deno task corpus`). */
function announcedCheck(facts: DoctorFacts): CheckResult {
  const measured =
    "on 1,347 real turn ends it fired 3 times, every one a real announced stop, and caught 3 of 5; nine languages";
  return {
    status: "ok",
    text: facts.announcedNoCall === "block"
      ? `announced_no_call blocks: a turn whose last words announce an action that never came is nudged once (${measured})`
      : `announced_no_call is logged only (off by default): a turn whose last words announce an action that never came is allowed and logged (${measured}); "announced_no_call": "block" nudges it`,
  };
}

/** The kill-switch marker in force; one that cannot work is a warning (item 34). */
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
