/**
 * The kill switch as it stands now, with the one fact the gates cannot see
 * for themselves: whether its marker file exists. Shared by the Stop hook's
 * block path, the watchdog and `doctor`.
 *
 * @module
 */

import { resolvePath } from "../shared/paths.ts";
import type { CliIO } from "../shared/cli_io.ts";
import {
  type KillSwitchStatus,
  killSwitchStatus,
} from "../guardrails/guardrails.ts";
import type { Settings } from "../settings/settings.ts";

/**
 * The kill switch: the variable, the marker file (checked on disk,
 * relative to the start directory) and the config file. Requires
 * `--allow-read`.
 */
export function killSwitchOf(
  settings: Settings,
  io: Pick<CliIO, "env" | "cwd">,
): KillSwitchStatus {
  const file = settings.killSwitchFile;
  let fileExists = false;
  if (file !== null) {
    try {
      Deno.statSync(resolvePath(io.cwd, file));
      fileExists = true;
    } catch {
      fileExists = false;
    }
  }
  return killSwitchStatus({
    env: io.env,
    envName: settings.killSwitchEnv,
    file,
    fileExists,
    configured: settings.killSwitch,
  });
}
