/**
 * A session's files in a checked state folder (`<id>.json`, `<id>.lock`): reading the state file
 * (never a symlink, FIFO, hard link or someone else's file) and moving an unusable one aside.
 *
 * @module
 */

import { type ConfinedDir, ConfinementError } from "../confined/confine.ts";
import {
  confinedFile,
  lstatOrNull,
  quarantineConfined,
  readConfinedText,
  unusableShape,
} from "../confined/confined_file.ts";
import { describe } from "../shared/errors.ts";
import { safeSessionId } from "./session_id.ts";
import {
  emptyState,
  isReplaceableState,
  isStateText,
  type LoadedState,
  parseState,
} from "./session_state.ts";

/** A session's file names in a checked state folder. */
export interface SessionFiles {
  dir: ConfinedDir;
  stateName: string;
  lockName: string;
  statePath: string;
}

function nameOf(files: SessionFiles, file: "state" | "lock"): string {
  return file === "state" ? files.stateName : files.lockName;
}

export function sessionFilesIn(
  dir: ConfinedDir,
  sessionId: string,
): SessionFiles {
  const safe = safeSessionId(sessionId);
  const stateName = `${safe}.json`;
  return {
    dir,
    stateName,
    lockName: `${safe}.lock`,
    statePath: confinedFile(dir, stateName),
  };
}

export const NOT_STATE = "not a stall-watch state file";

/** The state file's text, or what `StateStore.remove` says when there is none to remove. */
export function keptOrText(
  path: string,
): string | { status: "absent" } | { status: "kept"; reason: string } {
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

export function noteOf(error: unknown): string {
  return `state file unreadable: ${describe(error)}`;
}

export const FOREIGN_REASON = "it is not a file stall-watch wrote";

/** A state file that holds someone else's content: never read as state, never written. */
export class ForeignStateError extends ConfinementError {
  readonly path: string;

  constructor(path: string) {
    super(`Refusing state file "${path}": ${FOREIGN_REASON}`);
    this.name = "ForeignStateError";
    this.path = path;
  }
}

/**
 * Reads a state file.
 *
 * @throws {ConfinementError} For a symlink, FIFO, hard link or someone else's file.
 */
export function readState(path: string): LoadedState {
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

/** A session's state or lock file that could not be used and was moved aside. */
export interface QuarantinedEntry {
  file: "state" | "lock";
  path: string;
  /** Its name now, in the same folder. */
  movedTo: string;
  /** Why: "it is a symlink", "it is not valid JSON". */
  reason: string;
}

type OnQuarantine = ((entry: QuarantinedEntry) => void) | undefined;

/**
 * Files of one name kept moved aside (`<name>.quarantined-1` to `-3`): a fault that keeps coming
 * back fills no disk and cannot restart the retry budget without end.
 */
const MAX_QUARANTINED = 3;

/** The session's state, an unusable file moved aside first (under the lock). */
export function loadHealing(
  files: SessionFiles,
  onRescue: OnQuarantine,
): LoadedState {
  if (quarantineUnusable(files, "state", onRescue)) {
    return { state: emptyState(), note: null };
  }
  const loaded = readState(files.statePath);
  if (loaded.corrupt === undefined) return loaded;
  const seen = lstatOrNull(files.statePath);
  if (
    seen !== null && moveAside(files, "state", seen, loaded.corrupt, onRescue)
  ) {
    return { state: emptyState(), note: null };
  }
  return loaded; // no room to keep it: replaced by the next save, as before
}

/** Whether the session's `file`, unusable by its shape, was moved aside (never a link's target). */
export function quarantineUnusable(
  files: SessionFiles,
  file: "state" | "lock",
  onRescue: OnQuarantine,
): boolean {
  const seen = lstatOrNull(confinedFile(files.dir, nameOf(files, file)));
  const reason = seen === null ? null : unusableShape(seen);
  return reason !== null && moveAside(files, file, seen!, reason, onRescue);
}

function moveAside(
  files: SessionFiles,
  file: "state" | "lock",
  seen: Deno.FileInfo,
  reason: string,
  onRescue: OnQuarantine,
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
  onRescue?.({ file, path: confinedFile(files.dir, name), movedTo, reason });
  return true;
}
