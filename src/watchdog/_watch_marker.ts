/**
 * The per-session marker naming the newest watcher (`<state folder>/watch/`):
 * each claims it, older ones see the claim and exit.
 *
 * @module
 */

import { join } from "../shared/paths.ts";
import { ensureConfinedDir } from "../confined/confine.ts";
import {
  confinedFile,
  lstatOrNull,
  readConfinedText,
  replaceConfinedFile,
} from "../confined/confined_file.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import { isReplaceableState } from "../guardrails/session_state.ts";
import { pruneStaleState } from "../guardrails/state_sweeper.ts";
import { safeSessionId } from "../guardrails/session_id.ts";

const WATCH_DIR = "watch";

const MARKER_KEYS = ["tool_use_id", "token", "started_at"];

/** Whether a file's text is a marker: what proves it stall-watch's to replace or sweep. */
function isMarkerText(text: string): boolean {
  try {
    const data = JSON.parse(text);
    if (!isPlainObject(data)) return false;
    const keys = Object.keys(data);
    return keys.length > 0 && keys.every((key) => MARKER_KEYS.includes(key));
  } catch {
    return false;
  }
}

/** One watcher's claim; `token` is unique per watcher (duplicate registrations yield too). */
export interface WatchClaim {
  path: string;
  token: string;
  /** The marker as this claim left it: while unchanged, a check is one `lstat`. */
  written: { ino: number | null; mtime: number | null } | null;
}

/**
 * Claims the session's marker (its first removes markers idle 30 days). Requires write access to `stateDir`.
 *
 * @throws {ConfinementError} When the folder escapes `.claude`.
 */
export function claimWatch(
  cwd: string,
  stateDir: string,
  sessionId: string,
  toolUseId: string,
  nowMs: number,
): WatchClaim {
  const dir = ensureConfinedDir(
    cwd,
    join(stateDir, WATCH_DIR),
    "watch folder",
  );
  const name = `${safeSessionId(sessionId)}.json`;
  const path = confinedFile(dir, name);
  const fresh = lstatOrNull(path) === null;
  const token = `${Deno.pid}-${
    crypto.getRandomValues(new Uint32Array(2)).join("")
  }`;
  replaceConfinedFile(
    dir,
    name,
    JSON.stringify({
      tool_use_id: toolUseId,
      token,
      started_at: nowMs / 1000,
    }) +
      "\n",
    "watch marker",
    // A marker, or no JSON at all (a file a power cut corrupted).
    { isOwn: (text) => isMarkerText(text) || isReplaceableState(text) },
  );
  if (fresh) pruneStaleState(dir, nowMs, isMarkerText);
  return { path, token, written: fileIdentity(path) };
}

/** Whether another watcher claimed the marker since `claim` (a missing marker proves nothing). */
export function isSuperseded(claim: WatchClaim): boolean {
  // Claims replace the file (a rename): the same inode is the same claim.
  const now = fileIdentity(claim.path);
  if (
    claim.written !== null && now !== null && now.ino !== null &&
    now.ino === claim.written.ino && now.mtime === claim.written.mtime
  ) {
    return false;
  }
  let data: unknown;
  try {
    // Never opens a FIFO or follows a link planted in the marker's place.
    data = JSON.parse(readConfinedText(claim.path, "watch marker") ?? "");
  } catch {
    return false;
  }
  return isPlainObject(data) && typeof data.token === "string" &&
    data.token !== claim.token;
}

function fileIdentity(
  path: string,
): { ino: number | null; mtime: number | null } | null {
  try {
    const info = lstatOrNull(path);
    return info === null
      ? null
      : { ino: info.ino, mtime: info.mtime?.getTime() ?? null };
  } catch {
    return null; // unreadable: the full check decides
  }
}
