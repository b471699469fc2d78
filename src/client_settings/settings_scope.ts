/**
 * Where Claude Code reads hook settings: the project's shared and local files, the user's. Pure.
 *
 * @module
 */

import { join, resolvePath } from "../shared/paths.ts";
import { claudeRoot } from "../confined/confine.ts";
import { InputError, UsageError } from "../shared/errors.ts";

/** A settings file Claude Code reads hooks from. */
export type Scope = "project" | "local" | "user";

/** Every scope, in the order `doctor` lists them. */
const SCOPES: readonly Scope[] = Object.freeze(["project", "local", "user"]);

/** A `--scope` value, checked. */
export function parseScope(value: string): Scope {
  if ((SCOPES as readonly string[]).includes(value)) return value as Scope;
  throw new UsageError(
    `Bad value for "--scope": "${value}" (use project, local or user)`,
  );
}

/** The user's Claude config folder: `CLAUDE_CONFIG_DIR`, else `~/.claude`, else `null`. */
export function userConfigDir(
  env: Readonly<Record<string, string>>,
  cwd: string,
): string | null {
  if (env.CLAUDE_CONFIG_DIR) return resolvePath(cwd, env.CLAUDE_CONFIG_DIR);
  const home = env.HOME || env.USERPROFILE;
  return home ? join(resolvePath(cwd, home), ".claude") : null;
}

/** The settings file of a scope, absolute. */
export function settingsPath(
  scope: Scope,
  env: Readonly<Record<string, string>>,
  cwd: string,
): string {
  if (scope === "project") return join(claudeRoot(cwd), "settings.json");
  if (scope === "local") return join(claudeRoot(cwd), "settings.local.json");
  const dir = userConfigDir(env, cwd);
  if (dir === null) {
    throw new InputError(
      "Cannot find the user settings: neither HOME, USERPROFILE nor CLAUDE_CONFIG_DIR is set",
    );
  }
  return join(dir, "settings.json");
}

/** Every settings file that applies here, once (from the home folder, project is user). */
export function applicableSettingsFiles(
  env: Readonly<Record<string, string>>,
  cwd: string,
): { scope: Scope; path: string }[] {
  const files: { scope: Scope; path: string }[] = [];
  for (const scope of SCOPES) {
    let path: string;
    try {
      path = settingsPath(scope, env, cwd);
    } catch {
      continue; // no home folder: there is no user file to read
    }
    if (!files.some((f) => f.path === path)) files.push({ scope, path });
  }
  return files;
}
