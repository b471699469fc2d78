/**
 * Loads the effective settings for a run: config file, environment,
 * defaults, and the confinement check of every path stall-watch would write.
 *
 * @module
 */

import { DEFAULT_CONFIG_PATH, loadConfigFile } from "./config_file.ts";
import {
  CLAUDE_DIR,
  confinedPath,
  ConfinementError,
} from "../confined/confine.ts";
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

/** Options for {@link loadSettings}. */
export interface LoadOptions {
  /**
   * The client's folder in the project, `.claude` by default: the state
   * folder and the event log lie below it by default, and must lie in it.
   */
  clientDir?: string;
}

/**
 * Reads `.claude/stall-watch.jsonc` (or `STALL_WATCH_CONFIG`) and merges it
 * with the environment. A state folder or log path outside the client's
 * folder is refused (reported as a problem) and replaced by its default.
 * Requires `--allow-read`.
 *
 * @param env The process environment.
 * @param cwd The directory the process started in.
 */
export async function loadSettings(
  env: Readonly<Record<string, string>>,
  cwd: string,
  { clientDir = CLAUDE_DIR }: LoadOptions = {},
): Promise<LoadedSettings> {
  const configPath = env.STALL_WATCH_CONFIG || DEFAULT_CONFIG_PATH;
  const config = await loadConfigFile(configPath, cwd);
  const defaults = clientDir === CLAUDE_DIR ? DEFAULT_SETTINGS : {
    ...DEFAULT_SETTINGS,
    stateDir: `${clientDir}/stall_watch`,
    eventLogPath: `${clientDir}/stall_watch/events.jsonl`,
  };
  // A config file inside the project is the project's (a cloned
  // repository wrote it); one elsewhere, named in the environment, the
  // user's own.
  const owner = isInside(cwd, resolvePath(cwd, configPath))
    ? "project"
    : "user";
  const resolved = resolveSettings(
    env,
    config.values,
    { configOwner: owner, cwd, style: NATIVE },
    defaults,
  );
  const settings = resolved.settings;
  // An array literal, not unshift(...): a hostile config may hold 200,000
  // unknown keys, and a call with that many arguments overflows the stack.
  const problems = [...config.problems, ...resolved.problems];
  const confined = (key: "stateDir" | "eventLogPath", what: string) =>
    confinedOrDefault(cwd, clientDir, settings[key], defaults[key], {
      what,
      problems,
    });
  settings.stateDir = confined("stateDir", "state folder");
  settings.eventLogPath = confined("eventLogPath", "event log");
  // The log is appended to and rotated away: never let it name a file such
  // as .claude/settings.json.
  if (!/\.(jsonl|log)$/i.test(settings.eventLogPath)) {
    problems.push({
      source: "",
      message: `Refusing event log "${settings.eventLogPath}": its name must ` +
        `end in .jsonl or .log; using ${defaults.eventLogPath}`,
    });
    settings.eventLogPath = defaults.eventLogPath;
  }
  return { settings, problems, configPath: config.path };
}

function confinedOrDefault(
  cwd: string,
  clientDir: string,
  path: string,
  fallback: string,
  { what, problems }: { what: string; problems: SettingProblem[] },
): string {
  try {
    confinedPath(cwd, path, what, clientDir);
    return path;
  } catch (error) {
    if (!(error instanceof ConfinementError)) throw error;
    // The message names the setting ("Refusing state folder ..."): no
    // source in front, or the line would say it twice.
    problems.push({
      source: "",
      message: `${error.message}; using ${fallback}`,
    });
    return fallback;
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
