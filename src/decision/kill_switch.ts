/**
 * The kill switch as it stands now, with the one fact the gates cannot see
 * for themselves: whether its marker file exists. Shared by the Stop hook's
 * block path, the watchdog and `doctor`.
 *
 * @module
 */

import { basename, dirname } from "../shared/paths.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { CLAUDE_DIR, existingConfinedDir } from "../confined/confine.ts";
import { confinedFile, lstatOrNull } from "../confined/confined_file.ts";
import {
  type KillSwitchStatus,
  killSwitchStatus,
} from "../guardrails/guardrails.ts";
import type { Settings } from "../settings/settings.ts";

/**
 * The kill switch: the variable, the marker file (checked on disk,
 * relative to the start directory, inside the client's folder) and the
 * config file. Requires `--allow-read`.
 *
 * @param clientDir The client's folder the marker lies in: `.claude`
 * (default) or Codex's `.codex`.
 */
export function killSwitchOf(
  settings: Settings,
  io: Pick<CliIO, "env" | "cwd">,
  clientDir: string = CLAUDE_DIR,
): KillSwitchStatus {
  const file = settings.killSwitchFile;
  return killSwitchStatus({
    env: io.env,
    envName: settings.killSwitchEnv,
    file,
    fileExists: file !== null && markerExists(io.cwd, file, clientDir),
    configured: settings.killSwitch,
  });
}

/**
 * Whether the marker is there: `file` (a relative path inside `.claude`,
 * as the settings let it through) is looked at with `lstat`, so a marker
 * that is a symlink counts without its target being touched, and only
 * through folders that are no symlinks below `.claude` (a committed
 * `.claude/net -> /net/host` must not lead the look elsewhere). A refused
 * folder counts as no marker.
 */
function markerExists(cwd: string, file: string, clientDir: string): boolean {
  try {
    const dir = existingConfinedDir(
      cwd,
      dirname(file),
      "kill-switch file",
      clientDir,
    );
    return dir !== null &&
      lstatOrNull(confinedFile(dir, basename(file))) !== null;
  } catch {
    return false;
  }
}
