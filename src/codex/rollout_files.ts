/**
 * Where Codex keeps its rollouts, and telling a rollout from a Claude Code
 * transcript by its first line.
 *
 * Codex writes each session to
 * `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<session id>.jsonl`
 * (`$CODEX_HOME` defaults to `~/.codex`); the first line is the session's
 * `session_meta`.
 *
 * @module
 */

import { InputError } from "../shared/errors.ts";
import { join } from "../shared/paths.ts";
import { decodeUtf8 } from "../transcript/json_line.ts";

/**
 * Codex's home folder: `$CODEX_HOME`, else `.codex` in the user's home
 * (`HOME`, or `USERPROFILE` on Windows).
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

/** Bytes of a file's start that show whether it is a rollout. */
export const ROLLOUT_SNIFF_BYTES = 200;

const SESSION_META =
  /^\s*\{"timestamp":"[^"]{0,64}",(?:"ordinal":\d{1,20},)?"type":"session_meta"/;

/**
 * Whether a file's first bytes are a Codex rollout's first line (its
 * `session_meta`): how `audit` and `scan` tell a rollout from a Claude
 * Code transcript, whatever its name.
 */
export function opensAsRollout(head: Uint8Array): boolean {
  return SESSION_META.test(decodeUtf8(head.subarray(0, ROLLOUT_SNIFF_BYTES)));
}

/**
 * {@link opensAsRollout} for an open file; its position is put back to its
 * start. Requires `--allow-read`.
 */
export function isRolloutFile(
  file: Pick<Deno.FsFile, "readSync" | "seekSync">,
): boolean {
  const head = new Uint8Array(ROLLOUT_SNIFF_BYTES);
  let filled = 0;
  while (filled < head.length) {
    const read = file.readSync(head.subarray(filled));
    if (read === null || read === 0) break;
    filled += read;
  }
  file.seekSync(0, Deno.SeekMode.Start);
  return opensAsRollout(head.subarray(0, filled));
}
