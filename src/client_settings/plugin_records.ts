/**
 * Whether Claude Code runs stall-watch as a plugin in a project, from its records. Measured with
 * 2.1.332: `claude plugin install ... -s <scope>` adds an entry to
 * `<config>/plugins/installed_plugins.json`
 * (`{"plugins": {"<id>": [{"scope", "projectPath", "installPath", "version"}]}}`) and
 * `"enabledPlugins": {"<id>": true}` to that scope's settings file (`disable`: `false`); the most
 * specific file decides. Pure.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";

/** The plugin's name; its id is `stall-watch@<marketplace>`. */
const PLUGIN_NAME = "stall-watch";

/** One installation of the plugin, as `installed_plugins.json` records it. */
interface PluginInstall {
  id: string;
  /** `user`, `project` or `local` (or what a newer Claude Code writes). */
  scope: string;
  /** The project of a `project` or `local` install. */
  projectPath: string | null;
  /** The installed copy (`<config>/plugins/cache/...`). */
  installPath: string | null;
  version: string | null;
}

/** A settings file's scope, for {@link pluginState}. */
export type SettingsLayer = {
  scope: "user" | "project" | "local";
  settings: Readonly<Record<string, unknown>>;
};

/** The plugin in one project: where it is installed and whether it runs. */
export interface PluginState {
  install: PluginInstall;
  enabled: boolean;
  /** The scope whose settings file decided `enabled`, or `null` for none. */
  decidedBy: SettingsLayer["scope"] | null;
}

/** The path of `installed_plugins.json` in Claude Code's config folder. */
export function installedPluginsPath(configDir: string, sep = "/"): string {
  return [configDir, "plugins", "installed_plugins.json"].join(sep);
}

/** The plugin's data folder (`CLAUDE_PLUGIN_DATA`), its id's odd characters as `-`. */
export function pluginDataDir(
  configDir: string,
  id: string,
  sep = "/",
): string {
  return [configDir, "plugins", "data", id.replace(/[^A-Za-z0-9_-]/g, "-")]
    .join(sep);
}

/** Whether `id` names stall-watch (from any marketplace). */
export function isStallWatchId(id: string): boolean {
  return id.startsWith(`${PLUGIN_NAME}@`) && id.length > PLUGIN_NAME.length + 1;
}

/** The stall-watch entries of an `installed_plugins.json` text (others skipped). */
export function parseInstalledPlugins(text: string): PluginInstall[] {
  const parsed: unknown = JSON.parse(text);
  if (!isPlainObject(parsed) || !isPlainObject(parsed.plugins)) return [];
  const found: PluginInstall[] = [];
  for (const [id, entries] of Object.entries(parsed.plugins)) {
    if (!isStallWatchId(id) || !Array.isArray(entries)) continue;
    for (const entry of entries) {
      if (!isPlainObject(entry) || typeof entry.scope !== "string") continue;
      found.push({
        id,
        scope: entry.scope,
        projectPath: stringOrNull(entry.projectPath),
        installPath: stringOrNull(entry.installPath),
        version: stringOrNull(entry.version),
      });
    }
  }
  return found;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

/** Settings files from the least to the most specific. */
const PRECEDENCE = ["user", "project", "local"] as const;

/** The installations that apply to `projectDir`, enabled or not by the most specific file. */
export function pluginState(
  installs: readonly PluginInstall[],
  layers: readonly SettingsLayer[],
  projectDir: string,
  samePath: (a: string, b: string) => boolean,
): PluginState[] {
  const ordered = [...layers].sort((a, b) =>
    PRECEDENCE.indexOf(a.scope) - PRECEDENCE.indexOf(b.scope)
  );
  const states: PluginState[] = [];
  for (const install of installs) {
    const applies = install.scope === "user" ||
      (install.projectPath !== null &&
        samePath(install.projectPath, projectDir));
    if (!applies) continue;
    let enabled = false;
    let decidedBy: PluginState["decidedBy"] = null;
    for (const layer of ordered) {
      const value = enabledValue(layer.settings, install.id);
      if (value !== undefined) {
        enabled = value;
        decidedBy = layer.scope;
      }
    }
    states.push({ install, enabled, decidedBy });
  }
  return states;
}

function enabledValue(
  settings: Readonly<Record<string, unknown>>,
  id: string,
): boolean | undefined {
  const map = settings.enabledPlugins;
  if (!isPlainObject(map) || !Object.hasOwn(map, id)) return undefined;
  const value = map[id];
  return typeof value === "boolean" ? value : undefined;
}

/** How one plugin state reads in a message: `stall-watch@m 0.1.0 (user scope)`. */
export function describePlugin(state: PluginState): string {
  const { id, version, scope } = state.install;
  return `${id}${version ? ` ${version}` : ""} (${scope} scope)`;
}
