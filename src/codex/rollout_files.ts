/**
 * Where Codex keeps its rollouts (`$CODEX_HOME/sessions/...`), and telling
 * one by its first line (`session_meta`).
 *
 * @module
 */

import { InputError } from "../shared/errors.ts";
import { join } from "../shared/paths.ts";
import { decodeUtf8 } from "../transcript/json_line.ts";
import { readFullSync } from "../transcript/line_reader.ts";

/**
 * Codex's home: `$CODEX_HOME`, else `.codex` in `HOME` (`USERPROFILE` on Windows).
 *
 * @throws {InputError} When no variable gives one.
 */
export function codexHome(env: Readonly<Record<string, string>>): string {
  const configured = env.CODEX_HOME?.trim();
  if (configured) return configured;
  const home = env.HOME || env.USERPROFILE;
  if (!home) {
    throw new InputError(
      "Cannot find Codex's folder: set HOME (or CODEX_HOME), or name a folder",
    );
  }
  return join(home, ".codex");
}

/** The folder of Codex's rollouts: `<codex home>/sessions`. */
export function codexSessionsDir(
  env: Readonly<Record<string, string>>,
): string {
  return join(codexHome(env), "sessions");
}

const ROLLOUT_SNIFF_BYTES = 200;

const SESSION_META =
  /^\s*\{"timestamp":"[^"]{0,64}",(?:"ordinal":\d{1,20},)?"type":"session_meta"/;

/** Whether a file's first bytes are a rollout's `session_meta` line, whatever its name. */
function opensAsRollout(head: Uint8Array): boolean {
  return SESSION_META.test(decodeUtf8(head.subarray(0, ROLLOUT_SNIFF_BYTES)));
}

/** {@link opensAsRollout} for an open file, rewound after. Requires `--allow-read`. */
export function isRolloutFile(
  file: Pick<Deno.FsFile, "readSync" | "seekSync">,
): boolean {
  const head = new Uint8Array(ROLLOUT_SNIFF_BYTES);
  const filled = readFullSync(file, head);
  file.seekSync(0, Deno.SeekMode.Start);
  return opensAsRollout(head.subarray(0, filled));
}
