/**
 * A session's files in a checked state folder (`<id>.json`, `<id>.lock`),
 * and reading its state file: a symlink, FIFO, hard link or someone else's
 * file is refused, never read as state.
 *
 * @module
 */

import { type ConfinedDir, ConfinementError } from "../confined/confine.ts";
import { confinedFile, readConfinedText } from "../confined/confined_file.ts";
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

export function nameOf(files: SessionFiles, file: "state" | "lock"): string {
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
 * Reads a state file; a symlink, FIFO, hard link or someone else's file is
 * refused, never read as state.
 *
 * @throws {ConfinementError} For such a file.
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
