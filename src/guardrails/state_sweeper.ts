/**
 * Sweeps stale files from stall-watch's state folders: only files proven its own by exact name and
 * by content, since a folder may be shared (`STALL_WATCH_STATE_DIR=.claude`).
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
import { sessionOfStateFile } from "./session_id.ts";

/** State, lock and temp files untouched this long are removed. */
const STALE_STATE_MS = 30 * 24 * 60 * 60 * 1000;

/** Temp files of killed writers untouched this long are removed. */
const STALE_TEMP_MS = 60 * 60 * 1000;

/**
 * Removes `<id>.json` files older than `maxAgeMs` whose text passes `isOwn` (with the empty
 * `<id>.lock` beside each), and killed writers' temp files; best effort, the names removed.
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
  } catch { /* no folder yet: nothing to prune */ }
  const removed: string[] = [];
  const remove = (name: string, proof: Ownership) => {
    try {
      if (removeConfined(dir, name, "stale file", proof) === "removed") {
        removed.push(name);
        return true;
      }
    } catch { /* best effort */ }
    return false;
  };
  for (const name of stale) {
    // A lock goes only with its stale state file: an empty file proves
    // nothing, and removing a held lock would let two writers in.
    if (remove(name, isOwn) && name.endsWith(".json")) {
      remove(`${name.slice(0, -".json".length)}.lock`, (text) => text === "");
    }
  }
  return removed;
}

const PRUNE_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** The empty file whose mtime says when the folder was last pruned. */
const PRUNE_MARKER = ".last-prune";

/**
 * {@link pruneStaleState} at most once a day per folder (the mtime of an empty `.last-prune`; none
 * when it is no plain file), so a recovery does not list hundreds of old sessions every time.
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

/** Which of stall-watch's exact names `name` is, or `null`. */
function ownKindOf(name: string): "json" | "temp" | null {
  const temp = OWN_TEMP.exec(name)?.[1];
  if (temp !== undefined && sessionOfStateFile(temp) !== null) return "temp";
  return sessionOfStateFile(name) !== null ? "json" : null;
}
