/**
 * Per-session guardrail state: retries per tool_use_id, the time of the last
 * recovery, and which config problems and misregistrations the user was
 * already told about.
 *
 * One JSON file per session under the state folder, changed only while
 * holding the session's lock and replaced atomically, so concurrent hooks of
 * one session (parallel subagents share a session id) never lose a count.
 *
 * A state or lock file stall-watch cannot use (corrupt, a symlink, a hard
 * link, a FIFO, a folder) is moved aside inside the checked folder and the
 * session starts afresh, instead of giving up on recovery for the rest of
 * the session; a file that holds someone else's content is never touched,
 * and the session is kept in stall-watch's own folder instead
 * ({@link RELOCATED_DIR}); see {@link StateStore.update}.
 *
 * @module
 */

import {
  CLAUDE_DIR,
  type ConfinedDir,
  ConfinementError,
  existingConfinedDir,
} from "../confined/confine.ts";
import {
  confinedFile,
  ensureOwnedDir,
  lstatOrNull,
  quarantineConfined,
  readConfinedText,
  removeConfined,
  replaceConfinedFile,
  unusableShape,
} from "../confined/confined_file.ts";
import { type LockOptions, withFileLock } from "../confined/file_lock.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import { describe } from "../shared/errors.ts";
import { joinPath, NATIVE } from "../shared/paths.ts";
import { pruneStaleStateDaily } from "./state_sweeper.ts";
import { safeSessionId } from "./session_id.ts";

/** What one session remembers between hook runs. */
export interface SessionState {
  /** Recoveries dispatched per tool_use_id. */
  retries: Record<string, number>;
  /** Seconds since the epoch of the last recovery; 0 = never. */
  lastRecoveryAt: number;
  /** Fingerprint of the config problems already shown to the user. */
  configNotice: string | null;
  /**
   * Misregistrations already shown to the user (`<command>:<event>`, e.g.
   * `hook:PreToolUse`); absent when none was.
   */
  eventNotices?: string[];
}

/** At most this many misregistration notices are remembered. */
const MAX_EVENT_NOTICES = 32;

/**
 * The recoveries already dispatched for `toolUseId`: an own property only,
 * so ids named like `Object.prototype` members (`constructor`, `toString`,
 * `__proto__`) count like any other.
 */
export function retriesOf(state: SessionState, toolUseId: string): number {
  if (!Object.hasOwn(state.retries, toolUseId)) return 0;
  const count = state.retries[toolUseId];
  return typeof count === "number" ? count : 0;
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
  /**
   * Set when the file held no state at all (not JSON, or not an object):
   * why, in words for a message ("it is not valid JSON").
   */
  corrupt?: string;
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
    return {
      state: emptyState(),
      note: "state file is not valid JSON",
      corrupt: "it is not valid JSON",
    };
  }
  if (!isPlainObject(data)) {
    return {
      state: emptyState(),
      note: "state file is not a JSON object",
      corrupt: "it is not a JSON object",
    };
  }
  const state = emptyState();
  let dropped = 0;
  if (isPlainObject(data.retries)) {
    const kept: [string, number][] = [];
    for (const [id, count] of Object.entries(data.retries)) {
      if (typeof count === "number" && Number.isInteger(count) && count >= 0) {
        kept.push([id, count]);
      } else dropped++;
    }
    // fromEntries defines own properties: `__proto__` stays a plain key.
    state.retries = Object.fromEntries(kept);
  } else if (data.retries !== undefined) dropped++;
  const last = data.last_recovery_at;
  if (typeof last === "number" && Number.isFinite(last) && last >= 0) {
    state.lastRecoveryAt = last;
  } else if (last !== undefined) dropped++;
  if (typeof data.config_notice === "string") {
    state.configNotice = data.config_notice;
  }
  if (Array.isArray(data.event_notices)) {
    const notices = data.event_notices.filter((n): n is string =>
      typeof n === "string"
    ).slice(0, MAX_EVENT_NOTICES);
    if (notices.length > 0) state.eventNotices = notices;
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
      ...(state.eventNotices?.length
        ? { event_notices: state.eventNotices.slice(0, MAX_EVENT_NOTICES) }
        : {}),
      last_recovery_at: state.lastRecoveryAt,
      retries: state.retries,
    },
    null,
    2,
  ) + "\n";
}

/** Where and how a {@link StateStore} keeps its files. */
export interface StateStoreOptions {
  /** The directory the process started in. */
  cwd: string;
  /** The state folder, relative to `cwd` (must be inside `clientDir`). */
  stateDir: string;
  /**
   * The client's folder the state folder must lie in: `.claude` (the
   * default) or Codex's `.codex`.
   */
  clientDir?: string;
  sleep: (ms: number) => Promise<void>;
  /** How long to wait for another hook of the session. */
  lockTimeoutMs?: number;
  /**
   * Told of every file moved aside, and of a session kept in
   * {@link RELOCATED_DIR} because its state file is someone else's (once
   * per session and store), for the event log and the user.
   */
  onRescue?: (entry: StateRescue) => void;
}

/** A session's state or lock file that could not be used and was moved aside. */
export interface QuarantinedEntry {
  /** Which of the session's two files. */
  file: "state" | "lock";
  /** Where it was. */
  path: string;
  /** Its name now, in the same folder. */
  movedTo: string;
  /** Why it could not be used: "it is a symlink", "it is not valid JSON". */
  reason: string;
}

/**
 * A session whose state file holds someone else's content: that file is
 * left as it is, and the session's retry budget kept in
 * {@link RELOCATED_DIR} instead.
 */
export interface RelocatedState {
  file: "state";
  /** The file left untouched. */
  path: string;
  /** The state file the session is kept in now. */
  keptIn: string;
  /** Why the file is not stall-watch's: "it is not a file stall-watch wrote". */
  reason: string;
}

/** What the store did to keep a session protected when a file of it could not be used. */
export type StateRescue = QuarantinedEntry | RelocatedState;

/** Whether `rescue` kept the session elsewhere (else it moved a file aside). */
export function isRelocated(rescue: StateRescue): rescue is RelocatedState {
  return "keptIn" in rescue;
}

/**
 * The folder inside the state folder, stall-watch's own (it creates it,
 * with its `.gitignore`), where a session is kept whose state file under
 * the usual name holds someone else's content: a state folder shared with
 * other files (`.claude` itself) can hold one under any name, and a
 * session must not go unprotected for the rest of its life because of it.
 */
export const RELOCATED_DIR = "relocated";

/**
 * At most this many of one session's state files, and as many lock files,
 * are kept moved aside (`<name>.quarantined-1` to `-3`); past that the file
 * is refused as before, so a fault that keeps coming back fills no disk and
 * cannot restart the retry budget without end.
 */
export const MAX_QUARANTINED = 3;

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
  /** Sessions whose relocation was told already. */
  #relocatedTold = new Set<string>();
  /** Session locks whose unlock failed, in words, until taken. */
  #unlockErrors: string[] = [];

  /** @param options The state folder and clock. */
  constructor(options: StateStoreOptions) {
    this.#options = options;
  }

  /** The client's folder every state path must lie in. */
  get #root(): string {
    return this.#options.clientDir ?? CLAUDE_DIR;
  }

  /** The state folder's {@link RELOCATED_DIR}, relative to the start directory. */
  get #relocatedDir(): string {
    return joinPath(NATIVE, this.#options.stateDir, RELOCATED_DIR);
  }

  /**
   * The session's state and lock files in `stateDir` (the state folder or
   * its {@link RELOCATED_DIR}), with the folder created and every path
   * checked to stay inside `.claude`.
   */
  #sessionFiles(sessionId: string, stateDir: string): SessionFiles {
    return sessionFilesIn(
      ensureOwnedDir(
        this.#options.cwd,
        stateDir,
        "state folder",
        this.#root,
      ),
      sessionId,
    );
  }

  #lockOptions(): LockOptions {
    return {
      timeoutMs: this.#options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
      sleep: this.#options.sleep,
      onUnlockError: (error) => this.#unlockErrors.push(describe(error)),
    };
  }

  /**
   * Why releasing a session lock failed since the last call (its file was
   * closed, which released it; the update stood), for the decision log.
   */
  takeUnlockErrors(): string[] {
    return this.#unlockErrors.splice(0);
  }

  /**
   * Reads a session's state without locking (for display): from
   * {@link RELOCATED_DIR} when the usual file is someone else's. Requires
   * `--allow-read`.
   */
  read(sessionId: string): LoadedState {
    const here = this.#readIn(this.#options.stateDir, sessionId);
    if (here !== FOREIGN) return here;
    const relocated = this.#readIn(this.#relocatedDir, sessionId);
    return relocated !== FOREIGN ? relocated : {
      state: emptyState(),
      note: noteOf(new Error("it is not a file stall-watch wrote")),
    };
  }

  #readIn(stateDir: string, sessionId: string): LoadedState | typeof FOREIGN {
    let dir: ConfinedDir | null;
    try {
      dir = existingConfinedDir(
        this.#options.cwd,
        stateDir,
        "state folder",
        this.#root,
      );
    } catch (error) {
      return { state: emptyState(), note: noteOf(error) };
    }
    if (dir === null) return { state: emptyState(), note: null };
    const { statePath } = sessionFilesIn(dir, sessionId);
    try {
      return readState(statePath);
    } catch (error) {
      if (error instanceof ForeignStateError) return FOREIGN;
      return { state: emptyState(), note: noteOf(error) };
    }
  }

  /**
   * Runs `change` on the session's current state under the session lock and
   * saves the state it returns, atomically. Requires write access to the
   * state folder.
   *
   * A lock or state file that can never be used (a symlink, FIFO, folder or
   * hard link; a state file that holds no JSON object) is moved aside by a
   * rename inside the checked state folder, which moves the entry, never
   * what a link leads to, and the session starts with a fresh lock or a
   * fresh state (see {@link MAX_QUARANTINED}); `onRescue` is told. A
   * state file that holds someone else's content is never moved or
   * written: the session is kept in {@link RELOCATED_DIR} instead, with
   * its own lock, and `onRescue` told once.
   *
   * @throws {ConfinementError} When the state folder escapes `.claude`, or
   * a file cannot be used and not moved aside.
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
          reason: error.reason,
        });
      }
      return await this.#updateIn(this.#relocatedDir, sessionId, change);
    }
  }

  /** {@link update} in one folder: the state folder or its relocated one. */
  async #updateIn<T>(
    stateDir: string,
    sessionId: string,
    change: (loaded: LoadedState) => StateChange<T>,
  ): Promise<T> {
    const files = this.#sessionFiles(sessionId, stateDir);
    // There is no lock to hold while moving a lock file aside: a hook that
    // finds it unusable at the same moment moves nothing that changed since
    // it looked (quarantineConfined checks the inode).
    this.#quarantineUnusable(files, "lock");
    return await withFileLock(
      files.dir,
      files.lockName,
      this.#lockOptions(),
      () => {
        // A planted symlink, FIFO, hard link or corrupt file under the
        // state's name is moved aside here, and a foreign file refused,
        // before anything is decided.
        const { state, result } = change(this.#loadHealing(files));
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
      },
    );
  }

  /**
   * The session's state, with an unusable file moved aside first. Runs
   * under the session lock.
   */
  #loadHealing(files: SessionFiles): LoadedState {
    if (this.#quarantineUnusable(files, "state")) {
      return { state: emptyState(), note: null };
    }
    const loaded = readState(files.statePath);
    if (loaded.corrupt === undefined) return loaded;
    const seen = lstatOrNull(files.statePath);
    if (
      seen !== null && this.#moveAside(files, "state", seen, loaded.corrupt)
    ) {
      return { state: emptyState(), note: null };
    }
    return loaded; // no room to keep it: replaced by the next save, as before
  }

  /**
   * Moves the session's `file` aside when its shape makes it unusable.
   *
   * @returns Whether it was moved.
   */
  #quarantineUnusable(files: SessionFiles, file: "state" | "lock"): boolean {
    const seen = lstatOrNull(confinedFile(files.dir, nameOf(files, file)));
    const reason = seen === null ? null : unusableShape(seen);
    return reason !== null && this.#moveAside(files, file, seen!, reason);
  }

  #moveAside(
    files: SessionFiles,
    file: "state" | "lock",
    seen: Deno.FileInfo,
    reason: string,
  ): boolean {
    const name = nameOf(files, file);
    const movedTo = quarantineConfined(
      files.dir,
      name,
      `${file} file`,
      seen,
      MAX_QUARANTINED,
    );
    if (movedTo === null) return false;
    this.#options.onRescue?.({
      file,
      path: confinedFile(files.dir, name),
      movedTo,
      reason,
    });
    return true;
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
    const here = await this.#removeIn(this.#options.stateDir, sessionId);
    // A session kept in the relocated folder goes too.
    const relocated = await this.#removeIn(this.#relocatedDir, sessionId);
    return relocated.status === "removed" || here.status === "absent"
      ? relocated
      : here;
  }

  /** {@link remove} in one folder. */
  async #removeIn(stateDir: string, sessionId: string): Promise<RemovedState> {
    const existing = existingConfinedDir(
      this.#options.cwd,
      stateDir,
      "state folder",
      this.#root,
    );
    if (existing === null) return { status: "absent" };
    const files = sessionFilesIn(existing, sessionId);
    // Look before locking, so no lock file appears beside a foreign file.
    const before = keptOrText(files.statePath);
    if (typeof before !== "string") return before;
    return await withFileLock(
      files.dir,
      files.lockName,
      this.#lockOptions(),
      (): RemovedState => {
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
      },
    );
  }

  /**
   * The sessions with a state file, by their file names (already safe ids),
   * sorted. Empty when the folder does not exist. Requires `--allow-read`.
   *
   * @throws {ConfinementError} When the state folder escapes `.claude`.
   */
  sessionIds(): string[] {
    const ids = new Set(this.#idsIn(this.#options.stateDir));
    for (const id of this.#idsIn(this.#relocatedDir)) ids.add(id);
    return [...ids].sort();
  }

  /** The session ids with a state file in one folder. */
  #idsIn(stateDir: string): string[] {
    const dir = existingConfinedDir(
      this.#options.cwd,
      stateDir,
      "state folder",
      this.#root,
    );
    const ids: string[] = [];
    if (dir === null) return ids;
    try {
      for (const entry of Deno.readDirSync(dir)) {
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
    return ids;
  }

  /**
   * {@link pruneStaleStateDaily} on the state folder, after a write.
   * Best effort.
   *
   * @returns The names removed.
   */
  pruneDaily(nowMs: number): string[] {
    return [this.#options.stateDir, this.#relocatedDir].flatMap((stateDir) => {
      let dir: ConfinedDir | null;
      try {
        dir = existingConfinedDir(
          this.#options.cwd,
          stateDir,
          "state folder",
          this.#root,
        );
      } catch {
        return [];
      }
      return dir === null ? [] : pruneStaleStateDaily(dir, nowMs, isStateText);
    });
  }
}

/** A session's file names in a checked state folder. */
interface SessionFiles {
  dir: ConfinedDir;
  stateName: string;
  lockName: string;
  statePath: string;
}

function nameOf(files: SessionFiles, file: "state" | "lock"): string {
  return file === "state" ? files.stateName : files.lockName;
}

function sessionFilesIn(dir: ConfinedDir, sessionId: string): SessionFiles {
  const safe = safeSessionId(sessionId);
  const stateName = `${safe}.json`;
  return {
    dir,
    stateName,
    lockName: `${safe}.lock`,
    statePath: confinedFile(dir, stateName),
  };
}

const NOT_STATE = "not a stall-watch state file";

/** The state file's text, or what {@link StateStore.remove} says when there is none to remove. */
function keptOrText(path: string): string | RemovedState {
  let text: string | null;
  try {
    text = readConfinedText(path, "state file");
  } catch (error) {
    if (error instanceof ConfinementError) {
      return { status: "kept", reason: "not a regular file of its own" };
    }
    throw error;
  }
  if (text === null) return { status: "absent" };
  return isStateText(text) ? text : { status: "kept", reason: NOT_STATE };
}

function noteOf(error: unknown): string {
  return `state file unreadable: ${describe(error)}`;
}

/** The keys of a state file. */
const STATE_KEYS = [
  "config_notice",
  "event_notices",
  "last_recovery_at",
  "retries",
];

/** Whether a file's text is a state file this module wrote. */
export function isStateText(text: string): boolean {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isPlainObject(data)) return false;
  const keys = Object.keys(data);
  return keys.length > 0 && keys.every((key) => STATE_KEYS.includes(key));
}

/**
 * Whether a file under a state file's name may be replaced: stall-watch's
 * state, a torn or corrupted copy of it (invalid JSON whose first key is one
 * of its own), or no JSON at all (a file a power cut or disk fault filled
 * with garbage). A file holding other JSON, or JSON with comments or another
 * first key (Claude Code's `settings.local.json` when the state folder is
 * `.claude` and the session id is `settings.local`), is never replaced.
 */
export function isReplaceableState(text: string): boolean {
  if (isStateText(text)) return true;
  try {
    JSON.parse(text);
    return false;
  } catch {
    if (!/^\s*[{[/]/.test(text)) return true;
    const first = /^\s*\{\s*"([^"\\]*)"/.exec(text)?.[1];
    return first !== undefined && STATE_KEYS.includes(first);
  }
}

/** A state file that holds someone else's content: never read as state, never written. */
export class ForeignStateError extends ConfinementError {
  /** The file. */
  readonly path: string;
  /** Why, in words for a message. */
  readonly reason = "it is not a file stall-watch wrote";

  /** @param path The state file. */
  constructor(path: string) {
    super(`Refusing state file "${path}": it is not a file stall-watch wrote`);
    this.name = "ForeignStateError";
    this.path = path;
  }
}

/** {@link StateStore.read}'s word for a foreign file: read the relocated one. */
const FOREIGN = Symbol("foreign state file");

/**
 * Reads a state file. A symlink, FIFO, hard link or file that is not
 * stall-watch's is refused (never opened, never read as state).
 *
 * @throws {ConfinementError} For such a file ({@link ForeignStateError}
 * for someone else's).
 */
function readState(path: string): LoadedState {
  let text: string | null;
  try {
    text = readConfinedText(path, "state file");
  } catch (error) {
    if (error instanceof ConfinementError) throw error;
    return { state: emptyState(), note: noteOf(error) };
  }
  if (text === null) return { state: emptyState(), note: null };
  if (!isReplaceableState(text)) throw new ForeignStateError(path);
  return parseState(text);
}
