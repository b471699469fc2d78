/**
 * The per-session marker that names the newest watcher, so that at most one
 * watcher per session does real work: each new watcher claims it, and older
 * ones see the claim on their next tick and exit.
 *
 * One small JSON file per session in `<state folder>/watch/`, replaced
 * atomically, so a reader sees the old claim or the new one, never a mix.
 *
 * @module
 */

import { join } from "node:path";
import { writeFileAtomic } from "../confined/atomic_write.ts";
import { assertFileConfined, ensureConfinedDir } from "../confined/confine.ts";
import { isPlainObject } from "../transcript/json_line.ts";
import { pruneStaleState, safeSessionId } from "../guardrails/state.ts";

/** The marker folder inside the state folder. */
export const WATCH_DIR = "watch";

/** One watcher's claim. */
export interface WatchClaim {
  /** The marker file. */
  path: string;
  /** Unique per watcher, so duplicate registrations of one call also yield. */
  token: string;
}

/**
 * Claims the session's marker for a new watcher. Removes markers of
 * sessions idle for 30 days when the session's first watcher starts.
 * Requires write access to the state folder.
 *
 * @param cwd The start directory (`.claude` is resolved against it).
 * @param stateDir The state folder, relative to `cwd`.
 * @throws {ConfinementError} When the folder escapes `.claude`.
 */
export async function claimWatch(
  cwd: string,
  stateDir: string,
  sessionId: string,
  toolUseId: string,
  nowMs: number,
): Promise<WatchClaim> {
  const dir = await ensureConfinedDir(
    cwd,
    join(stateDir, WATCH_DIR),
    "watch folder",
  );
  const path = join(dir, `${safeSessionId(sessionId)}.json`);
  await assertFileConfined(cwd, path, "watch marker");
  const fresh = await Deno.lstat(path).then(() => false, () => true);
  const token = `${Deno.pid}-${
    crypto.getRandomValues(new Uint32Array(2)).join("")
  }`;
  await writeFileAtomic(
    path,
    JSON.stringify({
      tool_use_id: toolUseId,
      token,
      started_at: nowMs / 1000,
    }) +
      "\n",
  );
  if (fresh) await pruneStaleState(dir, nowMs);
  return { path, token };
}

/**
 * Whether another watcher has claimed the marker since `claim`. A missing or
 * unreadable marker proves nothing, so it does not supersede.
 */
export async function isSuperseded(claim: WatchClaim): Promise<boolean> {
  let data: unknown;
  try {
    data = JSON.parse(await Deno.readTextFile(claim.path));
  } catch {
    return false;
  }
  return isPlainObject(data) && typeof data.token === "string" &&
    data.token !== claim.token;
}
