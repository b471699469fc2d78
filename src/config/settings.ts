/**
 * Effective settings: environment over config file over defaults.
 *
 * Pure: the environment and the parsed config file are parameters. Every
 * value that cannot be used is reported as a problem and replaced by the
 * next source, so a typo never disables the hook silently.
 *
 * @module
 */

import type { StallKind } from "../detection/classify.ts";
import { isPlainObject } from "../shared/plain_object.ts";
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
  slotsIn,
  TEMPLATE_SLOTS,
  unknownSlots,
} from "../recovery/nudge_texts.ts";

/** What the hook does when Claude Code says it is already continuing. */
export type StopHookActivePolicy = "allow" | "check";

/**
 * How a block decision is written: exit 2 with the report and prompt on
 * stderr; JSON `decision: "block"`; or JSON `additionalContext`, which Claude
 * Code 2.1.163+ feeds to the model without labelling the hook a problem.
 */
export type OutputMode = "stderr" | "json" | "context";

/** Every output mode. */
export const OUTPUT_MODES: readonly OutputMode[] = [
  "stderr",
  "json",
  "context",
];

/**
 * What the hook does with an announced action the turn ended without
 * (`announced_no_call`): log it only (the default: detected, logged,
 * never a block), or block the stop with a nudge, at most once a turn.
 */
export type AnnouncedNoCallMode = "log" | "block";

/** Every mode of {@link AnnouncedNoCallMode}. */
export const ANNOUNCED_NO_CALL_MODES: readonly AnnouncedNoCallMode[] = [
  "log",
  "block",
];

/** Every setting stall-watch reads. Paths are as given (relative to the start directory). */
export interface Settings {
  maxRetries: number;
  cooldownSeconds: number;
  /** Config file `kill_switch: true` turns recovery off. */
  killSwitch: boolean;
  killSwitchEnv: string;
  /** The kill-switch marker, as given (see {@link markerRefusal}). */
  killSwitchFile: string | null;
  /**
   * Where {@link killSwitchFile} was set: `env STALL_WATCH_KILL_SWITCH_FILE`
   * or the config file's `file:line:column`; `null` with no marker.
   */
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
  /** See {@link AnnouncedNoCallMode}. */
  announcedNoCall: AnnouncedNoCallMode;
  /** Watchdog: seconds without transcript growth that count as a stall. */
  idleSeconds: number;
  /** Watchdog: seconds after which a watcher gives up. */
  watchMaxSeconds: number;
  /**
   * Status line: seconds a call may run without a result before
   * `statusline` names it.
   */
  statusLineAfterSeconds: number;
  recovery: RecoveryText;
}

/** One unusable setting, for the user. */
export interface SettingProblem {
  /** Where it came from: `env STALL_WATCH_X` or `stall-watch.jsonc:3:5`. */
  source: string;
  message: string;
}

/**
 * Claude Code ends a turn after 8 consecutive Stop blocks; our cap stays
 * below it (and, unlike it, is not reset by tool calls).
 */
export const MAX_RETRIES_LIMIT = 7;

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
export type ConfigValues = ReadonlyMap<string, ConfigValue>;

/** Result of {@link resolveSettings}. */
export interface ResolvedSettings {
  settings: Settings;
  problems: SettingProblem[];
}

/**
 * Who chose the config file's values: the project (the default
 * `.claude/stall-watch.jsonc`, or any config file inside the start
 * directory: a cloned repository wrote it) or the user (a config file
 * elsewhere, named by `STALL_WATCH_CONFIG`).
 */
export type ConfigOwner = "project" | "user";

/** What {@link resolveSettings} judges a path by: who chose it, and where it runs. */
export interface SettingsOrigin {
  /** Who wrote the config file. */
  configOwner: ConfigOwner;
  /** The start directory; `null`: paths are judged on their text alone. */
  cwd: string | null;
  /** How paths are spelled here. */
  style: PathStyle;
}

/** A project's config, judged on the text of its paths alone. */
const PROJECT_CONFIG: SettingsOrigin = {
  configOwner: "project",
  cwd: null,
  style: NATIVE,
};

/**
 * Merges environment, config file and defaults.
 *
 * @param env The process environment.
 * @param file Values from the config file (see `config_file.ts`).
 * @param origin Who wrote the config file, and the start directory.
 * @param defaults What an unset setting is (a client's own state folder).
 */
export function resolveSettings(
  env: Readonly<Record<string, string>>,
  file: ConfigValues,
  origin: SettingsOrigin = PROJECT_CONFIG,
  defaults: Readonly<Settings> = DEFAULT_SETTINGS,
): ResolvedSettings {
  const problems: SettingProblem[] = [];
  const pick = <T>(
    envName: string | null,
    key: string,
    fallback: T,
    convert: Converter<T>,
  ): T => {
    const raw = envName === null ? undefined : env[envName];
    if (envName !== null && raw !== undefined && raw !== "") {
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
  const d = defaults;
  const settings: Settings = {
    maxRetries: pick(
      "STALL_WATCH_MAX_RETRIES",
      "max_retries",
      d.maxRetries,
      integerIn(0, MAX_RETRIES_LIMIT),
    ),
    cooldownSeconds: pick(
      "STALL_WATCH_COOLDOWN_SECONDS",
      "cooldown_seconds",
      d.cooldownSeconds,
      numberIn(0, 86_400),
    ),
    killSwitch: pick(null, "kill_switch", d.killSwitch, boolean),
    killSwitchEnv: pick(
      "STALL_WATCH_KILL_SWITCH_ENV",
      "kill_switch_env",
      d.killSwitchEnv,
      envName,
    ),
    killSwitchFile: null,
    killSwitchFileSource: null,
    output: pick(
      "STALL_WATCH_OUTPUT",
      "output",
      d.output,
      oneOf(OUTPUT_MODES),
    ),
    nudgePreset: pick(
      "STALL_WATCH_NUDGE_PRESET",
      "nudge_preset",
      d.nudgePreset,
      oneOf(NUDGE_PRESETS),
    ),
    stateDir: pick("STALL_WATCH_STATE_DIR", "state_dir", d.stateDir, path),
    eventLogEnabled: env.STALL_WATCH_LOG_FILE
      ? true
      : pick(null, "event_log.enabled", d.eventLogEnabled, boolean),
    eventLogPath: pick(
      "STALL_WATCH_LOG_FILE",
      "event_log.path",
      d.eventLogPath,
      path,
    ),
    eventLogMaxBytes: pick(
      null,
      "event_log.max_bytes",
      d.eventLogMaxBytes,
      integerIn(4096, 1024 ** 3),
    ),
    stopHookActive: pick(
      "STALL_WATCH_STOP_HOOK_ACTIVE",
      "stop_hook_active",
      d.stopHookActive,
      oneOf(["allow", "check"]),
    ),
    lagWaitMs: pick(
      "STALL_WATCH_LAG_WAIT_MS",
      "lag_wait_ms",
      d.lagWaitMs,
      integerIn(0, 5000),
    ),
    announcedNoCall: pick(
      "STALL_WATCH_ANNOUNCED_NO_CALL",
      "announced_no_call",
      d.announcedNoCall,
      oneOf(ANNOUNCED_NO_CALL_MODES),
    ),
    idleSeconds: pick(
      "STALL_WATCH_IDLE_SECONDS",
      "watch.idle_seconds",
      d.idleSeconds,
      numberIn(0.05, 86_400),
    ),
    watchMaxSeconds: pick(
      "STALL_WATCH_WATCH_MAX_SECONDS",
      "watch.max_seconds",
      d.watchMaxSeconds,
      numberIn(0.1, 86_400),
    ),
    statusLineAfterSeconds: pick(
      "STALL_WATCH_STATUSLINE_AFTER_SECONDS",
      "statusline.after_seconds",
      d.statusLineAfterSeconds,
      numberIn(1, 86_400),
    ),
    recovery: d.recovery,
  };
  settings.recovery = recoveryText(
    file,
    presetText(settings.nudgePreset),
    problems,
  );
  const marker = killSwitchMarker(env, file, origin, problems);
  if (marker !== null) {
    settings.killSwitchFile = marker.path;
    settings.killSwitchFileSource = marker.source;
  }
  return { settings, problems };
}

/** Who may name a kill-switch marker where (see {@link markerRefusal}). */
export type MarkerChooser = "operator" | "project";

/**
 * The kill-switch marker, from the environment (the operator's), else the
 * config file (the operator's when the user wrote it, else the
 * project's), each judged by {@link markerRefusal}; a refused value is a
 * problem and the next source is tried.
 */
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
 * Why a kill-switch marker cannot be used, from its text alone, before
 * anything touches the disk; `null` when it can. The marker is looked at
 * at every stalled stop and by every watcher, so:
 * - from any source, a network or device path (`\\host\share\x`,
 *   `//host/x`, `\\?\UNC\...`, `\\.\...`) is refused: on Windows a look
 *   at a UNC path opens an SMB session that sends the user's NTLM hash;
 *   so are a drive-relative `C:x`, on Windows a path without its drive
 *   (`\x`), on POSIX a Windows drive path, and a Windows device name
 *   (`NUL`, `COM1.off`) anywhere in it;
 * - the operator's marker (the environment, or a config file of the
 *   user's own) may be any other path: `/tmp/stall_off` is the original
 *   design's own example;
 * - the project's config (a cloned repository's) may name only a path
 *   inside the project, which is then walked from the start directory and
 *   never through a link leading out (`decision/kill_switch.ts`).
 */
export function markerRefusal(
  text: string,
  chooser: MarkerChooser,
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

/**
 * The preset's texts with the config file's overrides. A nudge with a slot
 * stall-watch does not fill, or a header or footer with any slot (only
 * nudges are filled), would reach the model verbatim: it is a problem, and
 * the preset's text is used instead.
 */
function recoveryText(
  file: ConfigValues,
  base: RecoveryText,
  problems: SettingProblem[],
): RecoveryText {
  const text = (key: string, fallback: string, filled: boolean): string => {
    const found = file.get(key);
    if (found === undefined) return fallback;
    if (typeof found.value !== "string" || found.value.trim() === "") {
      problems.push({
        source: found.where,
        message: `"${key}" must be a non-empty string`,
      });
      return fallback;
    }
    const bad = filled ? unknownSlots(found.value) : slotsIn(found.value);
    if (bad.length > 0) {
      problems.push({
        source: found.where,
        message: `"${key}" has ${
          bad.map((slot) => `{${slot}}`).join(", ")
        }, which is not filled in (${
          filled ? `slots: ${KNOWN_SLOTS}` : "slots are filled only in nudges"
        }); using the preset's text`,
      });
      return fallback;
    }
    return found.value;
  };
  const nudges = { ...base.nudges };
  for (const kind of Object.keys(nudges) as StallKind[]) {
    nudges[kind] = text(`recovery.nudges.${kind}`, nudges[kind], true);
  }
  return {
    header: text("recovery.header", base.header, false),
    idleHeader: text("recovery.idle_header", base.idleHeader, false),
    footer: text("recovery.footer", base.footer, false),
    defaultNudge: text("recovery.default_nudge", base.defaultNudge, true),
    nudges,
  };
}

const KNOWN_SLOTS = Object.keys(TEMPLATE_SLOTS).map((s) => `{${s}}`).join(
  ", ",
);

/** Turns a raw env or file value into a setting, or says why it cannot. */
type Converter<T> = (
  raw: unknown,
) => { ok: true; value: T } | { ok: false; message: string };

function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

function integerIn(min: number, max: number): Converter<number> {
  return (raw) => {
    const value = typeof raw === "string" ? Number(raw.trim()) : raw;
    return typeof value === "number" && Number.isInteger(value) &&
        value >= min && value <= max
      ? ok(value)
      : fail(`must be an integer from ${min} to ${max}, got ${show(raw)}`);
  };
}

function numberIn(min: number, max: number): Converter<number> {
  return (raw) => {
    const value = typeof raw === "string" ? Number(raw.trim()) : raw;
    return typeof value === "number" && Number.isFinite(value) &&
        value >= min && value <= max
      ? ok(value)
      : fail(`must be a number from ${min} to ${max}, got ${show(raw)}`);
  };
}

const boolean: Converter<boolean> = (raw) =>
  typeof raw === "boolean"
    ? ok(raw)
    : fail(`must be true or false, got ${show(raw)}`);

function oneOf<T extends string>(choices: readonly T[]): Converter<T> {
  return (raw) =>
    typeof raw === "string" && (choices as readonly string[]).includes(raw)
      ? ok(raw as T)
      : fail(
        `must be one of ${choices.map((c) => `"${c}"`).join(", ")}, got ${
          show(raw)
        }`,
      );
}

const envName: Converter<string> = (raw) =>
  typeof raw === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(raw)
    ? ok(raw)
    : fail(`must be an environment variable name, got ${show(raw)}`);

const path: Converter<string> = (raw) =>
  typeof raw === "string" && raw.trim() !== "" && !raw.includes("\0")
    ? ok(raw)
    : fail(`must be a non-empty path, got ${show(raw)}`);

function show(raw: unknown): string {
  if (isPlainObject(raw)) return "an object";
  const text = JSON.stringify(raw) ?? String(raw);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
