/**
 * Looking at a file without following it: what a plain file is (regular,
 * one link), opening one only when the handle is the file `lstat` saw, and
 * reading one (a FIFO is never opened; threat model items 1-3).
 *
 * @module
 */

import { NATIVE } from "../shared/paths.ts";
import {
  CLAUDE_DIR,
  CODEX_DIR,
  type ConfinedDir,
  ConfinementError,
  recheckConfinedDir,
  symlinkRefusal,
} from "./confine.ts";

/** Proves from a file's text that stall-watch wrote it. */
export type Ownership = (text: string) => boolean;

/** Largest file whose content {@link readConfinedText} returns. */
const MAX_OWN_FILE_BYTES = 16 * 1024 * 1024;

/** How much of a file an ownership check reads. */
const HEAD_BYTES = 64 * 1024;

/** How often an open looks again when another hook creates or rotates the file. */
const RETRIES = 8;

/** `lstat`, or `null` when nothing is there. */
export function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Refuses what stall-watch never writes: anything but a regular file of one link. */
export function assertPlainFile(
  path: string,
  info: Deno.FileInfo,
  what: string,
): void {
  if (info.isSymlink) throw symlinkRefusal(claudeRootOf(path), path, what);
  if (!info.isFile) {
    throw new ConfinementError(
      `Refusing ${what} "${path}": it is not a regular file`,
    );
  }
  if (info.nlink !== null && info.nlink > 1) {
    throw new ConfinementError(
      `Refusing ${what} "${path}": it has ${info.nlink} hard links, so ` +
        "writing it could change a file elsewhere",
    );
  }
}

/** Refuses `path` unless it is missing or a plain file (regular, one link). */
export function assertPlainOrMissing(path: string, what: string): void {
  const info = lstatOrNull(path);
  if (info !== null) assertPlainFile(path, info, what);
}

/** Why an entry is nothing stall-watch could have written, or `null` for a plain file. */
export function unusableShape(info: Deno.FileInfo): string | null {
  if (info.isSymlink) return "it is a symlink";
  if (info.isFifo) return "it is a FIFO";
  if (info.isDirectory) return "it is a directory";
  if (!info.isFile) return "it is not a regular file";
  if (info.nlink !== null && info.nlink > 1) {
    return `it has ${info.nlink} hard links`;
  }
  return null;
}

/** The `.claude` (or `.codex`) folder a path lies in, for messages. */
function claudeRootOf(path: string): string {
  for (const root of [CLAUDE_DIR, CODEX_DIR]) {
    const at = path.lastIndexOf(`${NATIVE.sep}${root}`);
    if (at >= 0) return path.slice(0, at + root.length + 1);
  }
  return path;
}

/** Whether an open handle is the plain file `lstat` saw (device and inode). */
function isSameFile(file: Deno.FsFile, seen: Deno.FileInfo): boolean {
  const opened = file.statSync();
  // Windows reports no inode; there the lstat alone has to do.
  return opened.isFile && (opened.nlink === null || opened.nlink <= 1) &&
    (seen.ino === null || opened.ino === null ||
      (opened.ino === seen.ino && opened.dev === seen.dev));
}

/** How {@link openChecked} opens a file. */
export interface OpenOptions {
  /** `lock`: for locking only, content untouched. */
  access: "append" | "lock" | "read";
  /** Create the file (exclusively) when it is missing. */
  create: boolean;
  /** Permission bits of a created file (the umask may take bits away). */
  mode?: number;
}

/**
 * Opens the plain file at `path`, or creates it exclusively; `null` when
 * missing and `create` is off. `dir` (rechecked before the open) is `null`
 * only to read.
 */
export function openChecked(
  path: string,
  what: string,
  options: OpenOptions,
  dir: ConfinedDir | null,
): Deno.FsFile | null {
  const mode = options.mode === undefined ? {} : { mode: options.mode };
  for (let attempt = 0;; attempt++) {
    const seen = lstatOrNull(path);
    if (seen === null && !options.create) return null;
    if (seen !== null) assertPlainFile(path, seen, what);
    if (dir !== null) recheckConfinedDir(dir, what);
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, {
        read: options.access !== "append",
        write: seen === null || options.access !== "read",
        // Appending from the start: no hook overwrites another's line.
        append: options.access === "append",
        ...(seen === null ? { createNew: true, ...mode } : {}),
      });
    } catch (error) {
      // Created, or renamed away (a log rotated), by another hook in between.
      const raced = seen === null
        ? error instanceof Deno.errors.AlreadyExists
        : error instanceof Deno.errors.NotFound;
      if (raced && attempt < RETRIES) continue;
      throw error;
    }
    if (seen === null || isSameFile(file, seen)) return file;
    file.close();
    if (attempt < RETRIES) continue; // renamed in between: look again
    throw new ConfinementError(
      `Refusing ${what} "${path}": it was replaced while being opened`,
    );
  }
}

/** A plain file's text (at most 16 MiB), or `null` when missing; a FIFO is never opened. */
export function readConfinedText(path: string, what: string): string | null {
  return readPlain(path, what, (file) => {
    const size = file.statSync().size;
    if (size > MAX_OWN_FILE_BYTES) {
      throw new ConfinementError(
        `Refusing ${what} "${path}": ${size} bytes is not one of stall-watch's files`,
      );
    }
    return readUpTo(file, size);
  });
}

/** Up to the first 64 KiB of a plain file, for an ownership check; `""` when missing. */
export function readHead(path: string, what: string): string {
  return readPlain(path, what, (file) => readUpTo(file, HEAD_BYTES)) ?? "";
}

function readPlain(
  path: string,
  what: string,
  read: (file: Deno.FsFile) => string,
): string | null {
  const file = openChecked(path, what, { access: "read", create: false }, null);
  if (file === null) return null;
  try {
    return read(file);
  } finally {
    file.close();
  }
}

function readUpTo(file: Deno.FsFile, limit: number): string {
  const bytes = new Uint8Array(limit);
  let read = 0;
  while (read < limit) {
    const n = file.readSync(bytes.subarray(read));
    if (n === null) break;
    read += n;
  }
  return new TextDecoder().decode(bytes.subarray(0, read));
}
