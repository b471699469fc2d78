/**
 * The sweeper of stale files in stall-watch's own folders (the state folder,
 * the watch-marker folder): old per-session files and temp files killed
 * writers left behind. It removes only files it can prove are
 * stall-watch's: by exact name ({@link safeSessionId}) and by content (the
 * folder owner's {@link Ownership} test), since a folder may be shared
 * (`STALL_WATCH_STATE_DIR=.claude` also holds Claude Code's own files).
 *
 * @module
 */

import type { ConfinedDir } from "../confined/confine.ts";
import {
  confinedFile,
  lstatOrNull,
  type Ownership,
  removeConfined,
  touchConfined,
} from "../confined/confined_file.ts";
import { safeSessionId } from "./session_id.ts";

/** State, lock and temp files untouched this long are removed. */
export const STALE_STATE_MS = 30 * 24 * 60 * 60 * 1000;

/** Temp files of killed writers untouched this long are removed. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes per-session files older than `maxAgeMs`, and temp files left by
 * killed writers. Only files stall-watch wrote are touched, each by an exact
 * name it proves by content: `<id>.json` whose text passes `isOwn`, the
 * empty `<id>.lock` beside such a file when that goes, and
 * `.<id>.json.<pid>.<random>.tmp` whose text passes `isOwn`. Best effort:
 * failures are ignored.
 *
 * @param isOwn Proves a file is the folder owner's (state, or a marker).
 * @returns The names removed.
 */
export function pruneStaleState(
  dir: ConfinedDir,
  nowMs: number,
  isOwn: Ownership,
  maxAgeMs: number = STALE_STATE_MS,
): string[] {
  const stale: string[] = [];
  const ageOf = (name: string) =>
    nowMs - (lstatOrNull(confinedFile(dir, name))?.mtime?.getTime() ?? nowMs);
  try {
    for (const entry of Deno.readDirSync(dir)) {
      const kind = ownKindOf(entry.name);
      if (kind === null || !entry.isFile) continue;
      if (ageOf(entry.name) > (kind === "temp" ? STALE_TEMP_MS : maxAgeMs)) {
        stale.push(entry.name);
      }
    }
  } catch {
    // The folder may not exist yet; nothing to prune.
  }
  const removed: string[] = [];
  const remove = (name: string, proof: Ownership) => {
    try {
      if (removeConfined(dir, name, "stale file", proof) === "removed") {
        removed.push(name);
        return true;
      }
    } catch {
      // Best effort.
    }
    return false;
  };
  for (const name of stale) {
    // A lock goes only with its own stale state file: an empty file proves
    // nothing on its own, and the lock file itself is never rewritten (its
    // age says nothing; removing a held lock would let two writers in).
    if (remove(name, isOwn) && name.endsWith(".json")) {
      remove(`${name.slice(0, -".json".length)}.lock`, (text) => text === "");
    }
  }
  return removed;
}

/** How often {@link pruneStaleStateDaily} looks at the folder. */
const PRUNE_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The empty file whose mtime says when the folder was last pruned. */
export const PRUNE_MARKER = ".last-prune";

/**
 * {@link pruneStaleState} at most once a day per folder (remembered by the
 * mtime of an empty `.last-prune` file in it), so a recovery does not pay
 * for listing hundreds of old sessions every time. Best effort: a marker
 * that is a symlink, FIFO, hard link or non-empty file is left alone and
 * nothing is pruned.
 */
export function pruneStaleStateDaily(
  dir: ConfinedDir,
  nowMs: number,
  isOwn: Ownership,
): string[] {
  const info = lstatOrNull(confinedFile(dir, PRUNE_MARKER));
  if (info?.isFile) {
    const last = info.mtime?.getTime() ?? 0;
    if (nowMs - last < PRUNE_INTERVAL_MS && last <= nowMs) return [];
  }
  try {
    touchConfined(dir, PRUNE_MARKER, "prune marker", nowMs);
  } catch {
    return []; // cannot remember it: better not prune than prune every time
  }
  return pruneStaleState(dir, nowMs, isOwn);
}

/** An own temp file: `.<id>.json.<pid>.<random>.tmp` (`tempNameFor`). */
const OWN_TEMP = /^\.(.+\.json)\.\d+\.[0-9a-z]+\.tmp$/;

/**
 * Which of stall-watch's exact names `name` is, or `null`. Ids must be what
 * {@link safeSessionId} makes, so no other name ever matches.
 */
function ownKindOf(name: string): "json" | "temp" | null {
  const isId = (id: string) => id !== "" && safeSessionId(id) === id;
  const temp = OWN_TEMP.exec(name);
  if (temp?.[1] && isId(temp[1].slice(0, -".json".length))) {
    return "temp";
  }
  if (name.endsWith(".json") && isId(name.slice(0, -".json".length))) {
    return "json";
  }
  return null;
}
