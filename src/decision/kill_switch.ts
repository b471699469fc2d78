/**
 * The kill switch as it stands now, with whether its marker file exists (the
 * one fact the gates cannot see). Shared by the doors and `doctor`.
 *
 * @module
 */

import {
  basename,
  dirname,
  joinPath,
  NATIVE,
  resolvePath,
  stepsBelow,
} from "../shared/paths.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { walkBelowStart } from "../confined/confine.ts";
import { lstatOrNull } from "../confined/confined_file.ts";
import {
  type KillSwitchStatus,
  killSwitchStatus,
} from "../guardrails/guardrails.ts";
import type { Settings } from "../config/settings.ts";

/** The kill switch: the variable, the marker file (on disk) and the config. Requires `--allow-read`. */
export function killSwitchOf(
  settings: Settings,
  io: Pick<CliIO, "env" | "cwd">,
): KillSwitchStatus {
  const file = settings.killSwitchFile;
  return killSwitchStatus({
    env: io.env,
    envName: settings.killSwitchEnv,
    file,
    fileExists: file !== null && lookAtMarker(io.cwd, file).state === "present",
    configured: settings.killSwitch,
  });
}

/** What a look at the kill-switch marker found. */
export type MarkerLook =
  | { state: "present" | "absent" }
  /** Not looked at: a folder on the way is a link leading out of the project. */
  | { state: "refused"; reason: string };

/**
 * Whether the marker is there (`file` passed `markerRefusal`): a folder in the
 * project linking out is refused untouched (`.claude -> /net/host/s`); the
 * marker is `lstat`ed, unfollowed. Requires `--allow-read`.
 */
export function lookAtMarker(cwd: string, file: string): MarkerLook {
  const path = resolvePath(cwd, file);
  if (stepsBelow(cwd, path) === null) return present(lstatOrNullSafe(path));
  try {
    const folder = walkBelowStart(cwd, dirname(path));
    if (!folder.inside) {
      return {
        state: "refused",
        reason: `${folder.link} is a symlink leading out of ${cwd}`,
      };
    }
    return present(
      lstatOrNullSafe(joinPath(NATIVE, folder.path, basename(path))),
    );
  } catch {
    return { state: "absent" }; // unreadable on the way: no marker seen
  }
}

function present(info: Deno.FileInfo | null): MarkerLook {
  return { state: info === null ? "absent" : "present" };
}

function lstatOrNullSafe(path: string): Deno.FileInfo | null {
  try {
    return lstatOrNull(path);
  } catch {
    return null;
  }
}
