/**
 * Loads the effective settings for a run: config file, environment,
 * defaults, and the confinement check of every path stall-watch would write.
 *
 * @module
 */

import { DEFAULT_CONFIG_PATH, loadConfigFile } from "./config_file.ts";
import { confinedPath, ConfinementError } from "../confined/confine.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { isInside, NATIVE, resolvePath } from "../shared/paths.ts";
import {
  DEFAULT_SETTINGS,
  resolveSettings,
  type SettingProblem,
  type Settings,
} from "./settings.ts";

/** Settings plus every problem found on the way. */
export interface LoadedSettings {
  settings: Settings;
  problems: SettingProblem[];
  /** The config file read, or `null` when there is none. */
  configPath: string | null;
}

/**
 * Reads `.claude/stall-watch.jsonc` (or `STALL_WATCH_CONFIG`) and merges it
 * with the environment. A state folder or log path outside `.claude` is
 * refused (reported as a problem) and replaced by its default. Requires
 * `--allow-read`.
 *
 * @param env The process environment.
 * @param cwd The directory the process started in.
 */
export async function loadSettings(
  env: Readonly<Record<string, string>>,
  cwd: string,
): Promise<LoadedSettings> {
  const configPath = env.STALL_WATCH_CONFIG || DEFAULT_CONFIG_PATH;
  const config = await loadConfigFile(configPath, cwd);
  // A config file inside the project is the project's (a cloned
  // repository wrote it); one elsewhere, named in the environment, the
  // user's own.
  const owner = isInside(cwd, resolvePath(cwd, configPath))
    ? "project"
    : "user";
  const resolved = resolveSettings(env, config.values, {
    configOwner: owner,
    cwd,
    style: NATIVE,
  });
  const settings = resolved.settings;
  // An array literal, not unshift(...): a hostile config may hold 200,000
  // unknown keys, and a call with that many arguments overflows the stack.
  const problems = [...config.problems, ...resolved.problems];
  settings.stateDir = confinedOrDefault(
    cwd,
    settings.stateDir,
    "stateDir",
    "state folder",
    problems,
  );
  settings.eventLogPath = confinedOrDefault(
    cwd,
    settings.eventLogPath,
    "eventLogPath",
    "event log",
    problems,
  );
  // The log is appended to and rotated away: never let it name a file such
  // as .claude/settings.json.
  if (!/\.(jsonl|log)$/i.test(settings.eventLogPath)) {
    problems.push({
      source: "",
      message: `Refusing event log "${settings.eventLogPath}": its name must ` +
        `end in .jsonl or .log; using ${DEFAULT_SETTINGS.eventLogPath}`,
    });
    settings.eventLogPath = DEFAULT_SETTINGS.eventLogPath;
  }
  return { settings, problems, configPath: config.path };
}

function confinedOrDefault(
  cwd: string,
  path: string,
  key: "stateDir" | "eventLogPath",
  what: string,
  problems: SettingProblem[],
): string {
  try {
    confinedPath(cwd, path, what);
    return path;
  } catch (error) {
    if (!(error instanceof ConfinementError)) throw error;
    // The message names the setting ("Refusing state folder ..."): no
    // source in front, or the line would say it twice.
    problems.push({
      source: "",
      message: `${error.message}; using ${DEFAULT_SETTINGS[key]}`,
    });
    return DEFAULT_SETTINGS[key];
  }
}

/**
 * One line per problem, for stderr, `doctor` and the user notice, escaped
 * for the terminal: a key name, path or value from the config file or the
 * environment may hold a newline (which would forge a line of the report)
 * or a control sequence.
 */
export function formatProblems(problems: readonly SettingProblem[]): string[] {
  return problems.map((p) =>
    escapeTerminal(p.source ? `${p.source}: ${p.message}` : p.message)
  );
}
