/**
 * The confined-write primitive: every file stall-watch writes, replaces,
 * renames or removes, in a folder `ensureConfinedDir` checked. A clone may
 * plant a symlink, hard link, FIFO or its own file under any name, and Deno
 * has no `O_NOFOLLOW` (threat model items 1-3, 13), so each operation looks
 * first (`lstat`: no link, no FIFO, one link only), checks the open handle
 * is what it saw, rechecks the folder right before the system call
 * ({@link writablePath}), creates exclusively, replaces by a renamed temp
 * file, and touches an existing file only when `isOwn` proves it its own.
 *
 * @example
 * ```ts
 * const dir = ensureOwnedDir(cwd, ".claude/stall_watch", "state folder");
 * replaceConfinedFile(dir, "s.json", text, "state file", { isOwn });
 * ```
 *
 * @module
 */

import {
  isDeviceName,
  isInside,
  joinPath,
  NATIVE,
  relativePath,
} from "../shared/paths.ts";
import {
  CLAUDE_DIR,
  claudeRoot,
  type ConfinedDir,
  ConfinementError,
  deviceRefusal,
  ensureConfinedDir,
  OWN_GITIGNORE,
  recheckConfinedDir,
  symlinkRefusal,
} from "./confine.ts";
import { settledRename } from "./_settled_rename.ts";

/** Proves from a file's text that stall-watch wrote it. */
export type Ownership = (text: string) => boolean;

/** Largest file whose content {@link readConfinedText} returns. */
const MAX_OWN_FILE_BYTES = 16 * 1024 * 1024;

const encoder = new TextEncoder();

/** How often an open looks again when another hook creates or rotates the file. */
const RETRIES = 8;

/** `<dir>/<name>` for a single-segment name that is no device name. */
export function confinedFile(dir: ConfinedDir, name: string): string {
  if (name === "" || name === "." || name === ".." || /[\\/\0]/.test(name)) {
    throw new ConfinementError(`Refusing file name "${name}" in ${dir}`);
  }
  if (isDeviceName(name)) throw deviceRefusal("file", `${dir}/${name}`, name);
  return joinPath(NATIVE, dir, name);
}

/**
 * `<dir>/<name>` for a write about to happen, the folder chain checked again
 * (`recheckConfinedDir`): call it right before the system call.
 */
function writablePath(
  dir: ConfinedDir,
  name: string,
  what: string,
): string {
  const path = confinedFile(dir, name);
  recheckConfinedDir(dir, what);
  return path;
}

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
function assertPlainFile(path: string, info: Deno.FileInfo, what: string) {
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

/** The `.claude` (or `.codex`) folder a path lies in, for messages. */
function claudeRootOf(path: string): string {
  for (const root of [".claude", ".codex"]) {
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

interface OpenOptions {
  /** `lock`: for locking only, content untouched. */
  access: "append" | "lock" | "read";
  /** Create the file (exclusively) when it is missing. */
  create: boolean;
  /** Permission bits of a created file (the umask may take bits away). */
  mode?: number;
}

/**
 * Opens the plain file `<dir>/<name>`, or creates it exclusively; `null`
 * when missing and `create` is off.
 */
export function openConfined(
  dir: ConfinedDir,
  name: string,
  what: string,
  options: OpenOptions,
): Deno.FsFile | null {
  return openChecked(confinedFile(dir, name), what, options, dir);
}

/** {@link openConfined} by path; `dir` (rechecked before the open) is `null` only to read. */
function openChecked(
  path: string,
  what: string,
  options: OpenOptions,
  dir: ConfinedDir | null,
): Deno.FsFile | null {
  const recheck = () => {
    if (dir !== null) recheckConfinedDir(dir, what);
  };
  for (let attempt = 0;; attempt++) {
    const seen = lstatOrNull(path);
    if (seen === null) {
      if (!options.create) return null;
      recheck();
      try {
        return Deno.openSync(path, {
          read: options.access !== "append",
          write: true,
          // Appending from the start: no hook overwrites another's line.
          append: options.access === "append",
          createNew: true,
          ...(options.mode === undefined ? {} : { mode: options.mode }),
        });
      } catch (error) {
        // Created by another hook in between: look again.
        if (error instanceof Deno.errors.AlreadyExists && attempt < RETRIES) {
          continue;
        }
        throw error;
      }
    }
    assertPlainFile(path, seen, what);
    recheck();
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, {
        read: options.access !== "append",
        write: options.access !== "read",
        append: options.access === "append",
      });
    } catch (error) {
      // Renamed away in between (a log rotated by another hook): look again.
      if (error instanceof Deno.errors.NotFound && attempt < RETRIES) continue;
      throw error;
    }
    if (isSameFile(file, seen)) return file;
    file.close();
    // Renamed in between (a log rotated by another hook): look again.
    if (attempt < RETRIES) continue;
    throw new ConfinementError(
      `Refusing ${what} "${path}": it was replaced while being opened`,
    );
  }
}

/** A plain file's text (at most 16 MiB), or `null` when missing; a FIFO is never opened. */
export function readConfinedText(path: string, what: string): string | null {
  const file = openChecked(path, what, { access: "read", create: false }, null);
  if (file === null) return null;
  try {
    const size = file.statSync().size;
    if (size > MAX_OWN_FILE_BYTES) {
      throw new ConfinementError(
        `Refusing ${what} "${path}": ${size} bytes is not one of stall-watch's files`,
      );
    }
    const bytes = new Uint8Array(size);
    let read = 0;
    while (read < size) {
      const n = file.readSync(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    return new TextDecoder().decode(bytes.subarray(0, read));
  } finally {
    file.close();
  }
}

/** The reading of a file that may be stall-watch's: missing, its text, or refused. */
function ownText(path: string, what: string, isOwn: Ownership): string | null {
  const text = readConfinedText(path, what);
  if (text !== null && !isOwn(text)) throw notOwn(what, path);
  return text;
}

function notOwn(what: string, path: string): ConfinementError {
  return new ConfinementError(
    `Refusing ${what} "${path}": it is not a file stall-watch wrote`,
  );
}

function writeAll(file: Deno.FsFile, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) {
    written += file.writeSync(bytes.subarray(written));
  }
}

/**
 * Creates `<dir>/<name>` with `bytes` exclusively (an existing name fails,
 * never opened), with `mode` less the umask: never `chmod` by name
 * afterwards, which follows a link renamed over it (threat model item 14).
 */
export function createConfinedFile(
  dir: ConfinedDir,
  name: string,
  bytes: Uint8Array,
  what: string,
  mode?: number,
): string {
  const path = writablePath(dir, name, what);
  const file = Deno.openSync(path, {
    write: true,
    createNew: true,
    ...(mode === undefined ? {} : { mode }),
  });
  try {
    writeAll(file, bytes);
  } catch (error) {
    file.close();
    removeIfSame(dir, name, what);
    throw error;
  }
  file.close();
  return path;
}

/** Removes `<dir>/<name>` after a failed write, unless the folder was replaced. */
function removeIfSame(dir: ConfinedDir, name: string, what: string): void {
  try {
    Deno.removeSync(writablePath(dir, name, what));
  } catch {
    // Gone already, or not ours to remove any more.
  }
}

/** The temp file's name for `name`: `.<name>.<pid>.<random>.tmp`. */
export function tempNameFor(name: string): string {
  // Math.random, not crypto (about 1 ms and 0.6 MiB a stop): the pid and
  // the exclusive create already keep writers apart.
  const random = Math.floor(Math.random() * 2 ** 32).toString(36);
  return `.${name}.${Deno.pid}.${random}.tmp`;
}

interface ReplaceOptions {
  /** Proves the replaced file is stall-watch's; absent: any plain file. */
  isOwn?: Ownership;
  /** Permission bits of the new file (the umask still applies). */
  mode?: number;
}

/**
 * Replaces `<dir>/<name>` (missing, or plain and passing `isOwn`) with
 * `text` atomically, by an exclusive temp file renamed over it. No fsync:
 * after a power cut a torn state file reads as an empty state.
 */
export function replaceConfinedFile(
  dir: ConfinedDir,
  name: string,
  text: string,
  what: string,
  options: ReplaceOptions = {},
): void {
  const path = confinedFile(dir, name);
  if (options.isOwn) ownText(path, what, options.isOwn);
  else assertPlainOrMissing(path, what);
  const tempName = tempNameFor(name);
  const temp = createConfinedFile(
    dir,
    tempName,
    encoder.encode(text),
    what,
    options.mode,
  );
  try {
    const checked = writablePath(dir, name, what);
    assertPlainOrMissing(checked, what);
    settledRename(temp, checked);
  } catch (error) {
    removeIfSame(dir, tempName, what);
    throw error;
  }
}

/** Appends `bytes` in one write to `<dir>/<name>`, created when missing, else passing `isOwn`. */
export function appendConfined(
  dir: ConfinedDir,
  name: string,
  bytes: Uint8Array,
  what: string,
  isOwn: Ownership,
): void {
  const path = confinedFile(dir, name);
  const file = openConfined(dir, name, what, {
    access: "append",
    create: true,
  });
  try {
    if (file === null) return;
    const size = file.statSync().size;
    if (size > 0 && !isOwn(readHead(path, what))) throw notOwn(what, path);
    // One write per line: O_APPEND keeps whole lines from interleaving.
    writeAll(file, bytes);
  } finally {
    file?.close();
  }
}

/** Up to the first 64 KiB of a plain file, for an ownership check. */
function readHead(path: string, what: string): string {
  const file = openChecked(path, what, { access: "read", create: false }, null);
  if (file === null) return "";
  try {
    const bytes = new Uint8Array(64 * 1024);
    const n = file.readSync(bytes) ?? 0;
    return new TextDecoder().decode(bytes.subarray(0, n));
  } finally {
    file.close();
  }
}

/** Renames `<dir>/<from>` over `<dir>/<to>` (both its own; `to` may be missing); whether `from` existed. */
export function renameConfined(
  dir: ConfinedDir,
  from: string,
  to: string,
  what: string,
  isOwn: Ownership,
): boolean {
  const source = confinedFile(dir, from);
  const target = confinedFile(dir, to);
  const seen = lstatOrNull(source);
  if (seen === null) return false;
  assertPlainFile(source, seen, what);
  if (!isOwn(readHead(source, what))) throw notOwn(what, source);
  const old = lstatOrNull(target);
  if (old !== null) {
    assertPlainFile(target, old, what);
    if (!isOwn(readHead(target, what))) throw notOwn(what, target);
  }
  settledRename(writablePath(dir, from, what), target);
  return true;
}

/** Removes `<dir>/<name>` when it is a plain file that passes `isOwn`, else `"kept"`. */
export function removeConfined(
  dir: ConfinedDir,
  name: string,
  what: string,
  isOwn: Ownership,
): "removed" | "absent" | "kept" {
  const path = confinedFile(dir, name);
  const seen = lstatOrNull(path);
  if (seen === null) return "absent";
  if (seen.isSymlink || !seen.isFile || (seen.nlink ?? 1) > 1) return "kept";
  let text: string | null;
  try {
    text = readConfinedText(path, what);
  } catch (error) {
    if (error instanceof ConfinementError) return "kept";
    throw error;
  }
  if (text === null) return "absent";
  if (!isOwn(text)) return "kept";
  try {
    Deno.removeSync(writablePath(dir, name, what));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return "absent";
    throw error;
  }
  return "removed";
}

/** Sets the mtime of the empty marker `<dir>/<name>` (created when missing) to `nowMs`. */
export function touchConfined(
  dir: ConfinedDir,
  name: string,
  what: string,
  nowMs: number,
): void {
  const path = confinedFile(dir, name);
  const file = openConfined(dir, name, what, { access: "lock", create: true });
  try {
    if (file === null) return;
    if (file.statSync().size !== 0) {
      throw new ConfinementError(
        `Refusing ${what} "${path}": it is not an empty marker file`,
      );
    }
    const now = new Date(nowMs);
    file.utimeSync(now, now);
  } finally {
    file?.close();
  }
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

function quarantineName(name: string, n: number): string {
  return `${name}.quarantined-${n}`;
}

/**
 * Moves the entry `<dir>/<name>`, still the one `seen` describes, to the
 * first free `<name>.quarantined-<n>` (n to `maxKept`; `null` when none is
 * free). A rename moves the entry itself, never opens it nor follows a link.
 */
export function quarantineConfined(
  dir: ConfinedDir,
  name: string,
  what: string,
  seen: Deno.FileInfo,
  maxKept: number,
): string | null {
  for (let n = 1; n <= maxKept; n++) {
    const aside = quarantineName(name, n);
    if (lstatOrNull(confinedFile(dir, aside)) !== null) continue;
    const path = writablePath(dir, name, what);
    const now = lstatOrNull(path);
    if (
      now === null || now.isSymlink !== seen.isSymlink ||
      (seen.ino !== null && (now.ino !== seen.ino || now.dev !== seen.dev))
    ) {
      throw new ConfinementError(
        `Refusing ${what} "${path}": it changed while being moved aside`,
      );
    }
    settledRename(path, confinedFile(dir, aside));
    return aside;
  }
  return null;
}

/** Removes `dir` when an empty folder the caller made (`doctor`'s probe); best effort. */
export function removeEmptyDir(dir: ConfinedDir): void {
  if (lstatOrNull(dir)?.isDirectory !== true) return;
  try {
    recheckConfinedDir(dir, "folder");
    Deno.removeSync(dir); // not recursive: fails unless empty
  } catch {
    // Not empty, or gone: leave it.
  }
}

/** The folder below `.claude` that is stall-watch's alone by its name. */
const OWN_FOLDER = "stall_watch";

const MAX_GITIGNORES_ASIDE = 3;

/** `ensureConfinedDir`, and in `.claude/stall_watch` or below, its own `.gitignore` too. */
export function ensureOwnedDir(
  cwd: string,
  dir: string,
  what: string,
  rootName: string = CLAUDE_DIR,
): ConfinedDir {
  const made = ensureConfinedDir(cwd, dir, what, rootName);
  const own = joinPath(NATIVE, claudeRoot(cwd, rootName), OWN_FOLDER);
  if (isInside(own, made)) {
    ensureOwnGitignore(
      made === own
        ? made
        : ensureConfinedDir(cwd, relativePath(cwd, own), what, rootName),
    );
  }
  return made;
}

/**
 * Gives `dir`, stall-watch's own folder, its `.gitignore` of `*`, so git
 * shows none of its backups (which may hold an API key) whatever a
 * `.gitignore` higher up says; a planted one (`!*`, a link) is moved aside
 * (threat model item 16). Best effort.
 */
export function ensureOwnGitignore(dir: ConfinedDir): void {
  const name = ".gitignore";
  const what = "git ignore file";
  try {
    const path = confinedFile(dir, name);
    const seen = lstatOrNull(path);
    if (seen !== null) {
      let text: string | null = null;
      try {
        text = readConfinedText(path, what);
      } catch {
        // A link, FIFO or hard link: not stall-watch's.
      }
      if (text === OWN_GITIGNORE) return;
      if (
        quarantineConfined(dir, name, what, seen, MAX_GITIGNORES_ASIDE) === null
      ) {
        return;
      }
    }
    createConfinedFile(dir, name, encoder.encode(OWN_GITIGNORE), what);
  } catch {
    // Another run made it meanwhile, or the folder changed: leave it.
  }
}
