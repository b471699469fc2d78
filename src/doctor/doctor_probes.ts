/**
 * What `doctor` looks at on disk: the program a handler runs (never through
 * a network path or a link out of the project: item 30), the plugin's
 * runtime, `.claude`'s writability (a probe file).
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import {
  claudeRoot,
  type ConfinedDir,
  ensureConfinedDir,
  walkBelowStart,
} from "../confined/confine.ts";
import {
  createConfinedFile,
  lstatOrNull,
  removeConfined,
  removeEmptyDir,
} from "../confined/confined_file.ts";
import { describe } from "../shared/errors.ts";
import type { Platform } from "../install/hook_command.ts";
import { lookUpPlugin } from "../client_settings/plugin_lookup.ts";
import { pluginDataDir } from "../client_settings/plugin_records.ts";
import type { PluginFacts, PluginRuntime } from "./_doctor_plugin.ts";
import type { PathFacts } from "./doctor_checks.ts";
import { isAbsolute, networkPathReason, stepsBelow } from "../shared/paths.ts";
import { readRegularText, type Within } from "../shared/regular_file.ts";
import { defaultProjectsDirs } from "../transcript/transcript_files.ts";

/** Claude Code's projects folders, or none when no variable names one. */
export function projectsDirsOf(
  env: Readonly<Record<string, string>>,
): string[] {
  try {
    return defaultProjectsDirs(env);
  } catch {
    return [];
  }
}

/** The plugin's installations here, and what the enabled one would run. */
export async function pluginFacts(
  io: CliIO,
  platform: Platform,
): Promise<PluginFacts> {
  const lookup = lookUpPlugin(io.env, io.cwd);
  const enabled = lookup.states.find((s) => s.enabled);
  let runtime: PluginRuntime | null = null;
  if (enabled && lookup.configDir !== null) {
    const sep = platform === "windows" ? "\\" : "/";
    const data = pluginDataDir(lookup.configDir, enabled.install.id, sep);
    const name = platform === "windows" ? "stall-watch.exe" : "stall-watch";
    const binary = [
      data,
      "bin",
      enabled.install.version ?? "",
      Deno.build.target,
      name,
    ].join(sep);
    runtime = {
      binary: enabled.install.version && await isFile(binary) ? binary : null,
      deno: await findDeno(io.env, platform),
      fetchStatus: firstLineOf([data, "fetch-status"].join(sep)),
    };
  }
  return { states: lookup.states, problem: lookup.problem, runtime };
}

/** The first line of the plugin's status file (a regular file of at most 4 KiB), or `null`. */
function firstLineOf(path: string): string | null {
  try {
    return readRegularText(path, "fetch status", 4096)?.trim().split("\n")[0] ??
      null;
  } catch {
    return null;
  }
}

/** The Deno the plugin's launcher would use: on PATH, else ~/.deno/bin. */
async function findDeno(
  env: Readonly<Record<string, string>>,
  platform: Platform,
): Promise<string | null> {
  const sep = platform === "windows" ? "\\" : "/";
  const name = platform === "windows" ? "deno.exe" : "deno";
  const dirs = (env.PATH ?? env.Path ?? "").split(
    platform === "windows" ? ";" : ":",
  )
    .filter((d) => d !== "");
  for (const home of [env.DENO_INSTALL, env.HOME || env.USERPROFILE]) {
    if (home) {
      dirs.push(
        home === env.DENO_INSTALL
          ? `${home}${sep}bin`
          : `${home}${sep}.deno${sep}bin`,
      );
    }
  }
  for (const dir of dirs) {
    const path = `${dir}${sep}${name}`;
    if (await isFile(path)) return path;
  }
  return null;
}

/** `path` with links resolved (native separators turned portable), or `null`. */
export function realPathOrNull(
  path: string,
  platform?: Platform,
): string | null {
  try {
    const real = Deno.realPathSync(path);
    return platform === "windows" ? real.replaceAll("\\", "/") : real;
  } catch {
    return null;
  }
}

/** Whether `path` (links followed) is a file. */
export function isFile(path: string): Promise<boolean> {
  return Deno.stat(path).then((info) => info.isFile, () => false);
}

/** What the file system says about `path` (a handler's program). */
export async function pathFacts(
  path: string,
  platform: Platform,
  projectDir: string,
): Promise<PathFacts> {
  // A repository's settings may name `\\host\share\x`, or a link leading there.
  const absent = { exists: false, isFile: false, executable: false };
  const refused = (why: string) => ({ ...absent, refused: why });
  const network = networkPathReason(path);
  if (network !== null) return refused(network);
  let look = path;
  if (isAbsolute(path) && stepsBelow(projectDir, path) !== null) {
    let walked: Within;
    try {
      walked = walkBelowStart(projectDir, path);
    } catch {
      return absent;
    }
    if (!walked.inside) {
      return refused(`${walked.link} is a symlink leading out of the project`);
    }
    look = walked.path;
  }
  try {
    const info = await Deno.stat(look);
    const executable = platform === "windows"
      ? /\.(exe|cmd|bat)$/i.test(path)
      : ((info.mode ?? 0) & 0o111) !== 0;
    const real = realPathOrNull(look, platform);
    return {
      exists: true,
      isFile: info.isFile,
      executable,
      ...(real === null ? {} : { realPath: real }),
    };
  } catch {
    return absent;
  }
}

/** Why `.claude` is not writable, by a probe file made and removed, or `null`. */
export function probeClaudeDir(cwd: string): Promise<string | null> {
  const existed = lstatOrNull(claudeRoot(cwd)) !== null;
  let root: ConfinedDir | null = null;
  try {
    root = ensureConfinedDir(cwd, ".claude", ".claude folder");
    const name = `.stall-watch-doctor-${Deno.pid}.tmp`;
    // Created exclusively and removed by its exact name, only if still empty.
    createConfinedFile(root, name, new Uint8Array(), "probe file");
    removeConfined(root, name, "probe file", (text) => text === "");
    return Promise.resolve(null);
  } catch (error) {
    return Promise.resolve(describe(error));
  } finally {
    if (!existed && root !== null) removeEmptyDir(root);
  }
}
