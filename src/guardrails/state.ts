/**
 * The session state store: one JSON file per session, changed under the session's lock and replaced
 * atomically, so parallel hooks of one session never lose a count. An unusable file is moved aside;
 * someone else's is never touched, and the session is kept in {@link RELOCATED_DIR} instead.
 *
 * @example
 * ```ts
 * const store = new StateStore({ cwd, stateDir: ".claude/stall_watch", sleep });
 * await store.update(sessionId, ({ state }) => ({ state, result: null }));
 * ```
 *
 * @module
 */

import {
  CLAUDE_DIR,
  type ConfinedDir,
  existingConfinedDir,
} from "../confined/confine.ts";
import {
  ensureOwnedDir,
  removeConfined,
  replaceConfinedFile,
} from "../confined/confined_file.ts";
import { withFileLock } from "../confined/file_lock.ts";
import { describe } from "../shared/errors.ts";
import { joinPath, NATIVE } from "../shared/paths.ts";
import { pruneStaleStateDaily } from "./state_sweeper.ts";
import { sessionOfStateFile } from "./session_id.ts";
import {
  emptyState,
  isReplaceableState,
  isStateText,
  type LoadedState,
  parseState,
  serializeState,
  type SessionState,
} from "./session_state.ts";
import {
  FOREIGN_REASON,
  ForeignStateError,
  keptOrText,
  loadHealing,
  NOT_STATE,
  noteOf,
  type QuarantinedEntry,
  quarantineUnusable,
  readState,
  type SessionFiles,
  sessionFilesIn,
} from "./_session_files.ts";

export type { QuarantinedEntry };

/** Where and how a {@link StateStore} keeps its files. */
export interface StateStoreOptions {
  cwd: string;
  /** The state folder, relative to `cwd` (inside the client's folder). */
  stateDir: string;
  /** The client's folder the state folder lies in: `.claude` (default) or `.codex`. */
  clientDir?: string;
  sleep: (ms: number) => Promise<void>;
  lockTimeoutMs?: number;
  /** Told of every file moved aside, and once of a relocated session. */
  onRescue?: (entry: StateRescue) => void;
}

/** A session kept in {@link RELOCATED_DIR}: its state file is someone else's. */
export interface RelocatedState {
  file: "state";
  path: string;
  /** The state file the session is kept in now. */
  keptIn: string;
  reason: string;
}

/** What the store did to keep a session protected when a file of it could not be used. */
export type StateRescue = QuarantinedEntry | RelocatedState;

/** The folder (in the state folder) for a session whose state file holds someone else's content. */
const RELOCATED_DIR = "relocated";

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
  /** The state folder's {@link RELOCATED_DIR}, relative to the start directory. */
  #relocatedDir: string;
  /** Sessions whose relocation was told. */
  #relocatedTold = new Set<string>();
  /** Session locks whose unlock failed, in words, until taken. */
  #unlockErrors: string[] = [];

  constructor(options: StateStoreOptions) {
    this.#options = options;
    this.#relocatedDir = joinPath(NATIVE, options.stateDir, RELOCATED_DIR);
  }

  /** The session's files in `stateDir`, the folder created and checked. */
  #sessionFiles(sessionId: string, stateDir: string): SessionFiles {
    const { cwd, clientDir = CLAUDE_DIR } = this.#options;
    const dir = ensureOwnedDir(cwd, stateDir, "state folder", clientDir);
    return sessionFilesIn(dir, sessionId);
  }

  #existingDir(stateDir: string): ConfinedDir | null {
    const { cwd, clientDir = CLAUDE_DIR } = this.#options;
    return existingConfinedDir(cwd, stateDir, "state folder", clientDir);
  }

  /** Runs `action` holding the session's lock. */
  #locked<T>(files: SessionFiles, action: () => T): Promise<T> {
    return withFileLock(files.dir, files.lockName, {
      timeoutMs: this.#options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      sleep: this.#options.sleep,
      onUnlockError: (error) => this.#unlockErrors.push(describe(error)),
    }, action);
  }

  /** Why releasing a session lock failed since the last call (the update stood), for the log. */
  takeUnlockErrors(): string[] {
    return this.#unlockErrors.splice(0);
  }

  /** Reads a session's state without locking (for display), relocated or not. */
  read(sessionId: string): LoadedState {
    return this.#readIn(this.#options.stateDir, sessionId) ??
      this.#readIn(this.#relocatedDir, sessionId) ??
      { state: emptyState(), note: noteOf(new Error(FOREIGN_REASON)) };
  }

  /** The session's state in `stateDir`, or `null` when its file is someone else's. */
  #readIn(stateDir: string, sessionId: string): LoadedState | null {
    try {
      const dir = this.#existingDir(stateDir);
      if (dir === null) return { state: emptyState(), note: null };
      return readState(sessionFilesIn(dir, sessionId).statePath);
    } catch (error) {
      if (error instanceof ForeignStateError) return null;
      return { state: emptyState(), note: noteOf(error) };
    }
  }

  /**
   * Runs `change` on the session's state under its lock and saves the state it returns; an unusable
   * file is moved aside, someone else's left alone (the session relocated): `onRescue` is told.
   *
   * @throws {ConfinementError} When the state folder escapes its root, or a
   * file cannot be used and not moved aside.
   * @throws {LockTimeoutError} When another hook holds the lock too long.
   */
  async update<T>(
    sessionId: string,
    change: (loaded: LoadedState) => StateChange<T>,
  ): Promise<T> {
    try {
      return await this.#updateIn(this.#options.stateDir, sessionId, change);
    } catch (error) {
      if (!(error instanceof ForeignStateError)) throw error;
      const relocated = this.#sessionFiles(sessionId, this.#relocatedDir);
      if (!this.#relocatedTold.has(sessionId)) {
        this.#relocatedTold.add(sessionId);
        this.#options.onRescue?.({
          file: "state",
          path: error.path,
          keptIn: relocated.statePath,
          reason: FOREIGN_REASON,
        });
      }
      return await this.#updateIn(this.#relocatedDir, sessionId, change);
    }
  }

  async #updateIn<T>(
    stateDir: string,
    sessionId: string,
    change: (loaded: LoadedState) => StateChange<T>,
  ): Promise<T> {
    const files = this.#sessionFiles(sessionId, stateDir);
    // No lock to hold while moving a lock file aside: quarantineConfined
    // checks the inode, so a rival moves nothing that changed since it looked.
    quarantineUnusable(files, "lock", this.#options.onRescue);
    return await this.#locked(files, () => {
      const { state, result } = change(
        loadHealing(files, this.#options.onRescue),
      );
      if (state !== null) {
        replaceConfinedFile(
          files.dir,
          files.stateName,
          serializeState(state),
          "state file",
          { isOwn: isReplaceableState },
        );
      }
      return result;
    });
  }

  /**
   * Removes a session's state file (only stall-watch state) under its lock, never creating the
   * folder; the lock file stays, as removing it while a hook waits could let two writers in.
   *
   * @throws {ConfinementError} When the state folder or file escapes its root.
   * @throws {LockTimeoutError} When another hook holds the lock too long.
   */
  async remove(sessionId: string): Promise<RemovedState> {
    const here = await this.#removeIn(this.#options.stateDir, sessionId);
    const relocated = await this.#removeIn(this.#relocatedDir, sessionId);
    return relocated.status === "removed" || here.status === "absent"
      ? relocated
      : here;
  }

  async #removeIn(stateDir: string, sessionId: string): Promise<RemovedState> {
    const existing = this.#existingDir(stateDir);
    if (existing === null) return { status: "absent" };
    const files = sessionFilesIn(existing, sessionId);
    // Look before locking, so no lock file appears beside a foreign file.
    const before = keptOrText(files.statePath);
    if (typeof before !== "string") return before;
    return await this.#locked(files, (): RemovedState => {
      const text = keptOrText(files.statePath);
      if (typeof text !== "string") return text;
      const removed = removeConfined(
        files.dir,
        files.stateName,
        "state file",
        isStateText,
      );
      return removed === "removed"
        ? { status: "removed", state: parseState(text).state }
        : removed === "absent"
        ? { status: "absent" }
        : { status: "kept", reason: NOT_STATE };
    });
  }

  /**
   * The sessions with a state file, by their (safe) file names, sorted.
   *
   * @throws {ConfinementError} When the state folder escapes its root.
   */
  sessionIds(): string[] {
    const ids = new Set<string>();
    for (const stateDir of [this.#options.stateDir, this.#relocatedDir]) {
      const dir = this.#existingDir(stateDir);
      if (dir === null) continue;
      try {
        for (const { name, isFile } of Deno.readDirSync(dir)) {
          const id = isFile ? sessionOfStateFile(name) : null;
          if (id !== null) ids.add(id);
        }
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    return [...ids].sort();
  }

  /** {@link pruneStaleStateDaily} on the state folders, after a write; best effort. */
  pruneDaily(nowMs: number): string[] {
    return [this.#options.stateDir, this.#relocatedDir].flatMap((stateDir) => {
      let dir: ConfinedDir | null;
      try {
        dir = this.#existingDir(stateDir);
      } catch {
        return [];
      }
      return dir === null ? [] : pruneStaleStateDaily(dir, nowMs, isStateText);
    });
  }
}
