/**
 * Effective settings: environment over config file over defaults. Every
 * unusable value is a problem and falls to the next source, so a typo never
 * disables the hook silently. Pure: environment and config are parameters.
 *
 * @example
 * ```ts
 * const { settings, problems } = resolveSettings(Deno.env.toObject(), new Map());
 * ```
 *
 * @module
 */

import {
  isAbsolute,
  isDeviceName,
  isDriveRelative,
  isInside,
  NATIVE,
  networkPathReason,
  normalize,
  type PathStyle,
  resolvePath,
} from "../shared/paths.ts";
import {
  NUDGE_PRESETS,
  type NudgePreset,
  presetText,
  type RecoveryText,
} from "../recovery/nudge_texts.ts";
import { projectRecoveryText, recoveryText } from "./_recovery_text.ts";
import {
  boolean,
  type Converter,
  envName,
  integerIn,
  numberIn,
  oneOf,
  path,
  show,
} from "./_converters.ts";

const POLICIES = ["allow", "check"] as const;

/** What the hook does when Claude Code says it is already continuing. */
type StopHookActivePolicy = typeof POLICIES[number];

/** How a block is written: exit 2 + stderr, JSON `decision`, or `additionalContext` (2.1.163+). */
export type OutputMode = "stderr" | "json" | "context";

const OUTPUT_MODES: readonly OutputMode[] = ["stderr", "json", "context"];

const ANNOUNCED = ["log", "block"] as const;

/** `announced_no_call`: logged only (the default), or nudged once a turn. */
export type AnnouncedNoCallMode = typeof ANNOUNCED[number];

/** Every setting stall-watch reads. Paths are as given (relative to the start directory). */
export interface Settings {
  maxRetries: number;
  cooldownSeconds: number;
  /** Config file `kill_switch: true` turns recovery off. */
  killSwitch: boolean;
  killSwitchEnv: string;
  /** The kill-switch marker, as given (see {@link markerRefusal}). */
  killSwitchFile: string | null;
  /** Where the marker was set: `env STALL_WATCH_KILL_SWITCH_FILE` or `file:line:column`. */
  killSwitchFileSource: string | null;
  output: OutputMode;
  /** Which texts the recovery prompt starts from. */
  nudgePreset: NudgePreset;
  stateDir: string;
  eventLogEnabled: boolean;
  eventLogPath: string;
  eventLogMaxBytes: number;
  stopHookActive: StopHookActivePolicy;
  lagWaitMs: number;
  announcedNoCall: AnnouncedNoCallMode;
  /** Watchdog: seconds without transcript growth that count as a stall. */
  idleSeconds: number;
  /** Watchdog: seconds after which a watcher gives up. */
  watchMaxSeconds: number;
  /** Status line: seconds a call may run without a result before it is named. */
  statusLineAfterSeconds: number;
  recovery: RecoveryText;
}

/** One unusable setting, for the user. */
export interface SettingProblem {
  /** Where it came from: `env STALL_WATCH_X` or `stall-watch.jsonc:3:5`. */
  source: string;
  message: string;
  /** Set aside on purpose, not a mistake (a project's recovery texts): `doctor` warns. */
  warning?: true;
}

/** Below Claude Code's 8 consecutive Stop blocks (and not reset by tool calls). */
const MAX_RETRIES_LIMIT = 7;

/** The documented defaults. */
export const DEFAULT_SETTINGS: Readonly<Settings> = Object.freeze({
  maxRetries: 3,
  cooldownSeconds: 0,
  killSwitch: false,
  killSwitchEnv: "STALL_WATCH_DISABLED",
  killSwitchFile: null,
  killSwitchFileSource: null,
  output: "stderr",
  nudgePreset: "default",
  stateDir: ".claude/stall_watch",
  eventLogEnabled: false,
  eventLogPath: ".claude/stall_watch/events.jsonl",
  eventLogMaxBytes: 10 * 1024 * 1024,
  stopHookActive: "allow",
  lagWaitMs: 1000,
  announcedNoCall: "log",
  idleSeconds: 30,
  watchMaxSeconds: 600,
  statusLineAfterSeconds: 300,
  recovery: presetText("default"),
});

/** The config file's keys with their expected JSON types (nested by object). */
export const CONFIG_KEYS = {
  $schema: "string",
  max_retries: "integer",
  cooldown_seconds: "number",
  kill_switch: "boolean",
  kill_switch_env: "string",
  kill_switch_file: "string",
  output: "string",
  nudge_preset: "string",
  state_dir: "string",
  stop_hook_active: "string",
  lag_wait_ms: "integer",
  announced_no_call: "string",
  event_log: { enabled: "boolean", path: "string", max_bytes: "integer" },
  watch: { idle_seconds: "number", max_seconds: "number" },
  statusline: { after_seconds: "number" },
  recovery: {
    header: "string",
    idle_header: "string",
    footer: "string",
    default_nudge: "string",
    nudges: {
      pending_tool_use: "string",
      empty_tool_result: "string",
      hung_mcp_call: "string",
      missing_followup: "string",
      subagent_no_report: "string",
      lost_tool_call: "string",
      announced_no_call: "string",
    },
  },
} as const;

/** A config value located in its file, for problem messages. */
export interface ConfigValue {
  value: unknown;
  /** `file:line:column`. */
  where: string;
}

/** Config values by dotted key (`event_log.path`), already type-checked. */
type ConfigValues = ReadonlyMap<string, ConfigValue>;

interface ResolvedSettings {
  settings: Settings;
  problems: SettingProblem[];
}

/** What {@link resolveSettings} judges a path by: who chose it, and where it runs. */
export interface SettingsOrigin {
  /** A config file inside the start directory is the project's; one elsewhere, the user's. */
  configOwner: "project" | "user";
  /** The start directory; `null`: paths are judged on their text alone. */
  cwd: string | null;
  style: PathStyle;
}

/** A project's config, judged on the text of its paths alone. */
const PROJECT_CONFIG: SettingsOrigin = {
  configOwner: "project",
  cwd: null,
  style: NATIVE,
};

/** Where a plain setting comes from: `STALL_WATCH_<env>` (or none), config key, converter. */
type Source<T> = readonly [env: string | null, key: string, Converter<T>];

/** Seconds in a day, the longest wait a setting may name. */
const DAY = 86_400;

/** Each plain setting's sources, in the order problems are reported. */
const SOURCES: { readonly [K in keyof Settings]?: Source<Settings[K]> } = {
  maxRetries: ["MAX_RETRIES", "max_retries", integerIn(0, MAX_RETRIES_LIMIT)],
  cooldownSeconds: ["COOLDOWN_SECONDS", "cooldown_seconds", numberIn(0, DAY)],
  killSwitch: [null, "kill_switch", boolean],
  killSwitchEnv: ["KILL_SWITCH_ENV", "kill_switch_env", envName],
  output: ["OUTPUT", "output", oneOf(OUTPUT_MODES)],
  nudgePreset: ["NUDGE_PRESET", "nudge_preset", oneOf(NUDGE_PRESETS)],
  stateDir: ["STATE_DIR", "state_dir", path],
  eventLogEnabled: [null, "event_log.enabled", boolean],
  eventLogPath: ["LOG_FILE", "event_log.path", path],
  eventLogMaxBytes: [null, "event_log.max_bytes", integerIn(4096, 1024 ** 3)],
  stopHookActive: ["STOP_HOOK_ACTIVE", "stop_hook_active", oneOf(POLICIES)],
  lagWaitMs: ["LAG_WAIT_MS", "lag_wait_ms", integerIn(0, 5000)],
  announcedNoCall: ["ANNOUNCED_NO_CALL", "announced_no_call", oneOf(ANNOUNCED)],
  idleSeconds: ["IDLE_SECONDS", "watch.idle_seconds", numberIn(0.05, DAY)],
  watchMaxSeconds: [
    "WATCH_MAX_SECONDS",
    "watch.max_seconds",
    numberIn(0.1, DAY),
  ],
  statusLineAfterSeconds: [
    "STATUSLINE_AFTER_SECONDS",
    "statusline.after_seconds",
    numberIn(1, DAY),
  ],
};

/**
 * Merges environment, config file (`file`, see `config_file.ts`) and
 * `defaults` (a client's own state folder); `origin` says who wrote the file.
 */
export function resolveSettings(
  env: Readonly<Record<string, string>>,
  file: ConfigValues,
  origin: SettingsOrigin = PROJECT_CONFIG,
  defaults: Readonly<Settings> = DEFAULT_SETTINGS,
): ResolvedSettings {
  const problems: SettingProblem[] = [];
  const pick = <T>([suffix, key, convert]: Source<T>, fallback: T): T => {
    const envName = `STALL_WATCH_${suffix}`;
    const raw = suffix === null ? undefined : env[envName];
    if (raw) {
      const result = convert(raw);
      if (result.ok) return result.value;
      problems.push({ source: `env ${envName}`, message: result.message });
    }
    const fromFile = file.get(key);
    if (fromFile !== undefined) {
      const result = convert(fromFile.value);
      if (result.ok) return result.value;
      problems.push({
        source: fromFile.where,
        message: `"${key}" ${result.message}`,
      });
    }
    return fallback;
  };
  const settings: Settings = { ...defaults };
  const fields = settings as unknown as Record<string, unknown>;
  for (const [field, source] of Object.entries(SOURCES)) {
    // The log file's variable turns the log on, whatever the file says.
    fields[field] = field === "eventLogEnabled" && env.STALL_WATCH_LOG_FILE
      ? true
      : pick(source as Source<unknown>, fields[field]);
  }
  // The defaults' own texts for their preset (a client's words).
  const base = settings.nudgePreset === defaults.nudgePreset
    ? defaults.recovery
    : presetText(settings.nudgePreset);
  settings.recovery = origin.configOwner === "user"
    ? recoveryText(file, base, problems)
    : projectRecoveryText(file, settings.nudgePreset, base, problems);
  const marker = killSwitchMarker(env, file, origin, problems);
  settings.killSwitchFile = marker?.path ?? null;
  settings.killSwitchFileSource = marker?.source ?? null;
  return { settings, problems };
}

/** The kill-switch marker from the environment, else config, judged by {@link markerRefusal}. */
function killSwitchMarker(
  env: Readonly<Record<string, string>>,
  file: ConfigValues,
  origin: SettingsOrigin,
  problems: SettingProblem[],
): { path: string; source: string } | null {
  const name = "STALL_WATCH_KILL_SWITCH_FILE";
  const raw = env[name];
  if (raw !== undefined && raw !== "") {
    const refusal = markerRefusal(raw, "operator", origin);
    if (refusal === null) return { path: raw, source: `env ${name}` };
    problems.push({ source: `env ${name}`, message: refusal });
  }
  const found = file.get("kill_switch_file");
  if (found === undefined) return null;
  const chooser = origin.configOwner === "user" ? "operator" : "project";
  const refusal = typeof found.value === "string"
    ? markerRefusal(found.value, chooser, origin)
    : `must be a non-empty path, got ${show(found.value)}`;
  if (refusal === null) {
    return { path: found.value as string, source: found.where };
  }
  problems.push({
    source: found.where,
    message: `"kill_switch_file" ${refusal}`,
  });
  return null;
}

/**
 * Why a kill-switch marker cannot be used, from its text alone, or `null` (items 20, 34): never a
 * network, device, drive-relative or other platform's path from any source; a project's config
 * names only one inside the project (the operator, any).
 */
export function markerRefusal(
  text: string,
  chooser: "operator" | "project",
  origin: Pick<SettingsOrigin, "cwd" | "style">,
): string | null {
  const given = path(text);
  if (!given.ok) return given.message;
  const never = (what: string) =>
    `must not be ${what}, which is never looked at; got ${show(text)}`;
  if (networkPathReason(text) !== null) {
    return never(
      "a network or device path (\\\\host, //host, \\\\?\\, \\\\.\\)",
    );
  }
  if (isDriveRelative(text)) {
    return never("a drive-relative path (C:x, on that drive's current folder)");
  }
  const style = origin.style;
  if (style.windows && /^[\\/]/.test(text)) {
    return never("a path without its drive (\\x, on the current drive)");
  }
  if (!style.windows && /^[A-Za-z]:[\\/]/.test(text)) {
    return never("a Windows drive path on this system");
  }
  if (text.split(/[\\/]/).some(isDeviceName)) {
    return never("a Windows device name (CON, NUL, COM1, LPT1, ...)");
  }
  if (chooser === "operator") return null;
  const inside = origin.cwd === null
    ? !isAbsolute(text, style) &&
      normalize(text, style).split(style.sep)[0] !== ".."
    : isInside(origin.cwd, resolvePath(origin.cwd, text, style), style);
  return inside
    ? null
    : `must be a path inside the project (the project's config names no marker elsewhere; the environment may), got ${
      show(text)
    }`;
}
