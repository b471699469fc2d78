/**
 * Reads what `plugin_records.ts` judges (`installed_plugins.json` and the project's settings
 * files), for `doctor` and `install`. Requires `--allow-read`.
 *
 * @module
 */

import { normalize, resolvePath } from "../shared/paths.ts";
import { describe } from "../shared/errors.ts";
import { readRegularText } from "../shared/regular_file.ts";
import {
  installedPluginsPath,
  parseInstalledPlugins,
  type PluginState,
  pluginState,
  type SettingsLayer,
} from "./plugin_records.ts";
import { readSettingsFile } from "./settings_file.ts";
import { parseSettingsText } from "./settings_json.ts";
import { applicableSettingsFiles, userConfigDir } from "./settings_scope.ts";

/** `installed_plugins.json` is small; a bigger one is not Claude Code's. */
const MAX_BYTES = 8 * 1024 * 1024;

interface PluginLookup {
  /** Claude Code's config folder, or `null` when no home folder is known. */
  configDir: string | null;
  /** The plugin's installations that apply here, enabled or not. */
  states: PluginState[];
  /** Why the records could not be read (one line), or `null`. */
  problem: string | null;
}

/** The plugin's installations for the project in `cwd`; an unusable settings file enables nothing. */
export function lookUpPlugin(
  env: Readonly<Record<string, string>>,
  cwd: string,
): PluginLookup {
  const configDir = userConfigDir(env, cwd);
  const none: PluginLookup = { configDir, states: [], problem: null };
  if (configDir === null) return none;
  const path = installedPluginsPath(configDir);
  let installs;
  try {
    const text = readRegularText(path, "Claude Code's plugin list", MAX_BYTES);
    installs = text === null ? [] : parseInstalledPlugins(text);
  } catch (error) {
    return { ...none, problem: `cannot read ${path}: ${describe(error)}` };
  }
  if (installs.length === 0) return none;
  const layers: SettingsLayer[] = [];
  for (const { scope, path } of applicableSettingsFiles(env, cwd)) {
    try {
      const file = readSettingsFile(path, scope === "user" ? null : cwd);
      if (file.exists) {
        layers.push({ scope, settings: parseSettingsText(file.text, path) });
      }
    } catch { /* Claude Code ignores it too; doctor reports it */ }
  }
  const same = (a: string, b: string) => samePath(cwd, a, b);
  return {
    ...none,
    states: pluginState(installs, layers, normalize(cwd), same),
  };
}

/** Whether two paths name the same folder, also through links. */
function samePath(cwd: string, a: string, b: string): boolean {
  if (resolvePath(cwd, a) === resolvePath(cwd, b)) return true;
  try {
    return Deno.realPathSync(a) === Deno.realPathSync(b);
  } catch {
    return false;
  }
}
