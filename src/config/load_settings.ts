/**
 * Loads a run's effective settings: config file, environment, defaults,
 * and every path stall-watch would write confined to the client's folder.
 *
 * @example
 * ```ts
 * const { settings, problems } = await loadSettings(io.env, io.cwd);
 * ```
 *
 * @module
 */

import { DEFAULT_CONFIG_PATH, loadConfigFile } from "./config_file.ts";
import {
  CLAUDE_DIR,
  CODEX_DIR,
  confinedPath,
  ConfinementError,
} from "../confined/confine.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { basename, isInside, NATIVE, resolvePath } from "../shared/paths.ts";
import { CODEX_DEFAULT_TEXT } from "../recovery/nudge_texts.ts";
import {
  DEFAULT_SETTINGS,
  resolveSettings,
  type SettingProblem,
  type Settings,
} from "./settings.ts";

interface LoadedSettings {
  settings: Settings;
  problems: SettingProblem[];
  /** The config file read, or `null` when there is none. */
  configPath: string | null;
}

/** Where state and log go and stay: the client's folder (`.claude`; `.codex` for Codex's). */
export interface LoadOptions {
  clientDir?: string;
}

/**
 * Reads `<clientDir>/stall-watch.jsonc` (or `STALL_WATCH_CONFIG`) and the environment; a state
 * folder or log outside the client's folder falls to its default. Requires `--allow-read`.
 */
export async function loadSettings(
  env: Readonly<Record<string, string>>,
  cwd: string,
  { clientDir = CLAUDE_DIR }: LoadOptions = {},
): Promise<LoadedSettings> {
  const configPath = env.STALL_WATCH_CONFIG ||
    (clientDir === CLAUDE_DIR
      ? DEFAULT_CONFIG_PATH
      : `${clientDir}/${basename(DEFAULT_CONFIG_PATH)}`);
  const config = await loadConfigFile(configPath, cwd);
  const defaults = clientDir === CLAUDE_DIR ? DEFAULT_SETTINGS : {
    ...DEFAULT_SETTINGS,
    stateDir: `${clientDir}/stall_watch`,
    eventLogPath: `${clientDir}/stall_watch/events.jsonl`,
    // Codex's words where Claude Code's differ (its `/mcp`).
    ...(clientDir === CODEX_DIR ? { recovery: CODEX_DEFAULT_TEXT } : {}),
  };
  const owner = isInside(cwd, resolvePath(cwd, configPath))
    ? "project"
    : "user";
  const resolved = resolveSettings(
    env,
    config.values,
    { configOwner: owner, cwd, style: NATIVE },
    defaults,
  );
  const { settings } = resolved;
  // Not unshift(...): 200,000 arguments overflow the stack.
  const problems = [...config.problems, ...resolved.problems];
  const confined = (key: "stateDir" | "eventLogPath", what: string) => {
    try {
      confinedPath(cwd, settings[key], what, clientDir);
      return settings[key];
    } catch (error) {
      if (!(error instanceof ConfinementError)) throw error;
      // The message names the setting: no source in front.
      const message = `${error.message}; using ${defaults[key]}`;
      problems.push({ source: "", message });
      return defaults[key];
    }
  };
  settings.stateDir = confined("stateDir", "state folder");
  settings.eventLogPath = confined("eventLogPath", "event log");
  // Appended to and rotated away: never `.claude/settings.json` (item 2).
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

/** One escaped line per problem: a key or value may hold a newline or a control sequence. */
export function formatProblems(problems: readonly SettingProblem[]): string[] {
  return problems.map((p) =>
    escapeTerminal(p.source ? `${p.source}: ${p.message}` : p.message)
  );
}
