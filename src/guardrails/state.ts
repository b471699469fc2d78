/**
 * Per-session guardrail state: retries per tool_use_id, the time of the last
 * recovery, and which config problems the user was already told about.
 *
 * One JSON file per session under the state folder, changed only while
 * holding the session's lock and replaced atomically, so concurrent hooks of
 * one session (parallel subagents share a session id) never lose a count.
 *
 * @module
 */

import { joinPath, NATIVE } from "../shared/paths.ts";
import { writeFileAtomic } from "../confined/atomic_write.ts";
import {
  assertFileConfined,
  confinedPath,
  ensureConfinedDir,
} from "../confined/confine.ts";
import { type LockOptions, withFileLock } from "../confined/file_lock.ts";
import { isPlainObject } from "../transcript/json_line.ts";

/** What one session remembers between hook runs. */
export interface SessionState {
  /** Recoveries dispatched per tool_use_id. */
  retries: Record<string, number>;
  /** Seconds since the epoch of the last recovery; 0 = never. */
  lastRecoveryAt: number;
  /** Fingerprint of the config problems already shown to the user. */
  configNotice: string | null;
}

/** A fresh state. */
export function emptyState(): SessionState {
  return { retries: {}, lastRecoveryAt: 0, configNotice: null };
}

/** A parsed state file, or an empty state plus a note on why. */
export interface LoadedState {
  state: SessionState;
  /** Why the file was not used, e.g. corrupt JSON; `null` when fine or absent. */
  note: string | null;
}

/**
 * Parses a state file's text. A corrupt or wrongly shaped file yields an
 * empty state and a note, never an error; unusable counters are dropped.
 */
export function parseState(text: string): LoadedState {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { state: emptyState(), note: "state file is not valid JSON" };
  }
  if (!isPlainObject(data)) {
    return { state: emptyState(), note: "state file is not a JSON object" };
  }
  const state = emptyState();
  let dropped = 0;
  if (isPlainObject(data.retries)) {
    for (const [id, count] of Object.entries(data.retries)) {
      if (typeof count === "number" && Number.isInteger(count) && count >= 0) {
        state.retries[id] = count;
      } else dropped++;
    }
  } else if (data.retries !== undefined) dropped++;
  const last = data.last_recovery_at;
  if (typeof last === "number" && Number.isFinite(last) && last >= 0) {
    state.lastRecoveryAt = last;
  } else if (last !== undefined) dropped++;
  if (typeof data.config_notice === "string") {
    state.configNotice = data.config_notice;
  }
  const note = dropped > 0
    ? `state file had ${dropped} unusable field(s)`
    : null;
  return { state, note };
}

/** The state file's text (stable key order). */
export function serializeState(state: SessionState): string {
  return JSON.stringify(
    {
      config_notice: state.configNotice,
      last_recovery_at: state.lastRecoveryAt,
      retries: state.retries,
    },
    null,
    2,
  ) + "\n";
}

/**
 * A session id fit for a file name: characters outside `[A-Za-z0-9._-]`
 * become `_`, so `../../etc` cannot leave the state folder.
 */
export function safeSessionId(sessionId: string): string {
  const safe = sessionId.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 128);
  if (safe === "" || /^\.+$/.test(safe)) return `session${safe.length}`;
  return safe;
}

/** Where and how a {@link StateStore} keeps its files. */
export interface StateStoreOptions {
  /** The directory the process started in. */
  cwd: string;
  /** The state folder, relative to `cwd` (must be inside `.claude`). */
  stateDir: string;
  sleep: (ms: number) => Promise<void>;
  /** How long to wait for another hook of the session. */
  lockTimeoutMs?: number;
}

/** What {@link StateStore.remove} did. */
export type RemovedState =
  | { status: "removed"; state: SessionState }
  | { status: "absent" }
  /** The file is not stall-watch state (another tool's JSON, corrupt). */
  | { status: "kept"; reason: string };

/** A change computed from the current state: the new state (or `null` to keep it) and a result. */
export interface StateChange<T> {
  state: SessionState | null;
  result: T;
}

const DEFAULT_LOCK_TIMEOUT_MS = 3000;

/** Reads and changes session state files. */
export class StateStore {
  #options: StateStoreOptions;

  /** @param options The state folder and clock. */
  constructor(options: StateStoreOptions) {
    this.#options = options;
  }

  /**
   * The session's state and lock files, with the state folder created and
   * every path checked to stay inside `.claude`.
   */
  #sessionFiles(sessionId: string): { statePath: string; lockPath: string } {
    const { cwd, stateDir } = this.#options;
    const dir = ensureConfinedDir(cwd, stateDir, "state folder");
    const safe = safeSessionId(sessionId);
    const statePath = joinPath(NATIVE, dir, `${safe}.json`);
    const lockPath = joinPath(NATIVE, dir, `${safe}.lock`);
    assertFileConfined(cwd, lockPath, "lock file");
    assertFileConfined(cwd, statePath, "state file");
    return { statePath, lockPath };
  }

  #lockOptions(): LockOptions {
    return {
      timeoutMs: this.#options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      sleep: this.#options.sleep,
    };
  }

  /**
   * Reads a session's state without locking (for display). Requires
   * `--allow-read`.
   */
  async read(sessionId: string): Promise<LoadedState> {
    const path = joinPath(
      NATIVE,
      this.#options.cwd,
      this.#options.stateDir,
      `${safeSessionId(sessionId)}.json`,
    );
    return await readState(path);
  }

  /**
   * Runs `change` on the session's current state under the session lock and
   * saves the state it returns, atomically. Requires write access to the
   * state folder.
   *
   * @throws {ConfinementError} When the state folder escapes `.claude`.
   * @throws {LockTimeoutError} When another hook holds the lock too long.
   */
  async update<T>(
    sessionId: string,
    change: (loaded: LoadedState) => StateChange<T>,
  ): Promise<T> {
    const { statePath, lockPath } = this.#sessionFiles(sessionId);
    return await withFileLock(lockPath, this.#lockOptions(), async () => {
      const { state, result } = change(await readState(statePath));
      if (state !== null) {
        await writeFileAtomic(statePath, serializeState(state));
      }
      return result;
    });
  }

  /**
   * Removes a session's state file under the session lock, never creating
   * the state folder. Only a file that holds stall-watch state is removed,
   * so a state folder shared with other files loses nothing else. The lock
   * file stays: removing it while another hook waits on it could let two
   * writers in. Requires write access to the state folder.
   *
   * @throws {ConfinementError} When the state folder or file escapes `.claude`.
   * @throws {LockTimeoutError} When another hook holds the lock too long.
   */
  async remove(sessionId: string): Promise<RemovedState> {
    const { cwd, stateDir } = this.#options;
    const safe = safeSessionId(sessionId);
    const wanted = joinPath(
      NATIVE,
      confinedPath(cwd, stateDir, "state folder"),
      `${safe}.json`,
    );
    // Look before locking, so no lock file appears beside a foreign file.
    const before = await readTextOrNull(wanted);
    if (before === null) return { status: "absent" };
    if (!isStateText(before)) {
      return { status: "kept", reason: "not a stall-watch state file" };
    }
    const { statePath, lockPath } = this.#sessionFiles(sessionId);
    return await withFileLock(lockPath, this.#lockOptions(), async () => {
      const text = await readTextOrNull(statePath);
      if (text === null) return { status: "absent" };
      if (!isStateText(text)) {
        return { status: "kept", reason: "not a stall-watch state file" };
      }
      await Deno.remove(statePath);
      return { status: "removed", state: parseState(text).state };
    });
  }

  /**
   * The sessions with a state file, by their file names (already safe ids),
   * sorted. Empty when the folder does not exist. Requires `--allow-read`.
   *
   * @throws {ConfinementError} When the state folder escapes `.claude`.
   */
  async sessionIds(): Promise<string[]> {
    const { cwd, stateDir } = this.#options;
    const dir = confinedPath(cwd, stateDir, "state folder");
    const ids: string[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        const id = entry.name.slice(0, -".json".length);
        if (
          entry.isFile && entry.name.endsWith(".json") &&
          safeSessionId(id) === id
        ) {
          ids.push(id);
        }
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return ids.sort();
  }
}

/** Whether a file's text is a state file this module wrote. */
function isStateText(text: string): boolean {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isPlainObject(data)) return false;
  const keys = Object.keys(data);
  const known = ["config_notice", "last_recovery_at", "retries"];
  return keys.length > 0 && keys.every((key) => known.includes(key));
}

function readTextOrNull(path: string): string | null {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

function readState(path: string): LoadedState {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { state: emptyState(), note: null };
    }
    const reason = error instanceof Error
      ? error.message.split("\n")[0]
      : String(error);
    return { state: emptyState(), note: `state file unreadable: ${reason}` };
  }
  return parseState(text);
}

/** State, lock and temp files untouched this long are removed. */
export const STALE_STATE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Removes state and lock files older than `maxAgeMs`, and temp files left
 * by killed writers. Only files stall-watch wrote are touched: the folder
 * may be shared (`STALL_WATCH_STATE_DIR=.claude` also holds Claude Code's
 * own `settings.json`). Best effort: failures are ignored. Requires write
 * access to the folder.
 *
 * @returns The names removed.
 */
export async function pruneStaleState(
  dir: string,
  nowMs: number,
  maxAgeMs: number = STALE_STATE_MS,
): Promise<string[]> {
  const stale: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isFile) continue;
      const isTemp = OWN_TEMP_FILE.test(entry.name);
      if (!isTemp && !/\.(json|lock)$/.test(entry.name)) continue;
      if (entry.name.startsWith("events.")) continue;
      const path = joinPath(NATIVE, dir, entry.name);
      // A lock's age is its state file's age: the lock file itself is never
      // rewritten, and removing a held lock would let two writers in.
      const aged = entry.name.endsWith(".lock")
        ? path.replace(/\.lock$/, ".json")
        : path;
      const info = await Deno.lstat(aged).catch(() =>
        Deno.lstat(path).catch(() => null)
      );
      const age = nowMs - (info?.mtime?.getTime() ?? nowMs);
      if (age <= (isTemp ? 60 * 60 * 1000 : maxAgeMs)) continue;
      if (isTemp || await isOwnFile(path)) stale.push(entry.name);
    }
  } catch {
    // The folder may not exist yet; nothing to prune.
  }
  // Decide first, remove after: a lock is judged by its state file.
  const removed: string[] = [];
  for (const name of stale) {
    await Deno.remove(joinPath(NATIVE, dir, name)).then(
      () => removed.push(name),
      () => {},
    );
  }
  return removed;
}

/** How often {@link pruneStaleStateDaily} looks at the folder. */
const PRUNE_INTERVAL_MS = 24 * 60 * 60 * 1000;

/**
 * {@link pruneStaleState} at most once a day per folder (remembered by the
 * mtime of a `.last-prune` file in it), so a recovery does not pay for
 * listing hundreds of old sessions every time. Best effort.
 */
export async function pruneStaleStateDaily(
  dir: string,
  nowMs: number,
): Promise<string[]> {
  const marker = joinPath(NATIVE, dir, ".last-prune");
  try {
    const last = Deno.statSync(marker).mtime?.getTime() ?? 0;
    if (nowMs - last < PRUNE_INTERVAL_MS && last <= nowMs) return [];
  } catch {
    // Never pruned here yet.
  }
  try {
    Deno.writeTextFileSync(marker, "");
  } catch {
    return []; // cannot remember it: better not prune than prune every time
  }
  return await pruneStaleState(dir, nowMs);
}

/** `writeFileAtomic`'s temp files: `.<name>.<pid>.<random>.tmp`. */
const OWN_TEMP_FILE = /^\..+\.\d+\.[0-9a-z]+\.tmp$/;

/** Top-level keys of a watcher's marker (watch_marker.ts). */
const MARKER_KEYS = ["tool_use_id", "token", "started_at"];

/**
 * Whether a `.json` or `.lock` file is stall-watch's: a session state or a
 * watcher's marker; a lock beside one, or an empty lock on its own.
 */
async function isOwnFile(path: string): Promise<boolean> {
  if (path.endsWith(".lock")) {
    const state = path.replace(/\.lock$/, ".json");
    if (await Deno.lstat(state).then(() => true, () => false)) {
      return await isOwnFile(state);
    }
    return (await Deno.lstat(path).catch(() => null))?.size === 0;
  }
  const info = await Deno.lstat(path).catch(() => null);
  if (!info?.isFile || info.size > 64 * 1024 * 1024) return false;
  let text: string | null;
  try {
    text = readTextOrNull(path);
  } catch {
    text = null;
  }
  if (text === null) return false;
  if (isStateText(text)) return true;
  try {
    const data = JSON.parse(text);
    if (!isPlainObject(data)) return false;
    const keys = Object.keys(data);
    return keys.length > 0 && keys.every((key) => MARKER_KEYS.includes(key));
  } catch {
    return false;
  }
}
