/**
 * The confined-write primitive: every file stall-watch writes, replaces,
 * renames or removes goes through this module, inside a folder checked by
 * `ensureConfinedDir`.
 *
 * A cloned repository may plant anything inside `.claude`: a symlink to
 * `~/.ssh/authorized_keys`, a hard link to a file outside, a FIFO, or a
 * file of its own under a name stall-watch uses. Deno has no `O_NOFOLLOW`
 * and its sandbox checks where a path is, not where a link leads, so each
 * operation here
 * - looks first (`lstat`) and refuses a symlink, anything that is not a
 *   regular file (a FIFO is never opened: that would hang), and a file with
 *   more than one link (stall-watch never makes links);
 * - after opening, checks that the open handle is the file it looked at
 *   (device and inode), so a swap in between is refused, not written;
 * - right before each create, open for writing, rename or removal, checks
 *   again that the folder is the one `ensureConfinedDir` checked
 *   ({@link writablePath}), so a folder swapped for a symlink meanwhile
 *   is refused, not written through;
 * - creates files exclusively (`createNew`: no existing name, no link, is
 *   ever opened by a create), and replaces by an exclusive temp file renamed
 *   over the name in the same folder;
 * - touches an existing file only when `isOwn` proves, from its content,
 *   that stall-watch wrote it; names are exact, never patterns.
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

/** How often an open looks again when other hooks create or rotate the file meanwhile. */
const RETRIES = 8;

/**
 * `<dir>/<name>` for a single-segment name.
 *
 * @throws {ConfinementError} When `name` has a separator or is `.`/`..`.
 */
export function confinedFile(dir: ConfinedDir, name: string): string {
  if (name === "" || name === "." || name === ".." || /[\\/\0]/.test(name)) {
    throw new ConfinementError(`Refusing file name "${name}" in ${dir}`);
  }
  if (isDeviceName(name)) throw deviceRefusal("file", `${dir}/${name}`, name);
  return joinPath(NATIVE, dir, name);
}

/**
 * `<dir>/<name>` for a write about to happen: the one way the functions
 * below get a path to create, open for writing, rename or remove. It checks
 * the folder chain again (see `recheckConfinedDir`), so call it right
 * before the system call, after any wait.
 *
 * @throws {ConfinementError} When `dir` or a folder above it was replaced.
 */
export function writablePath(
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

/**
 * Refuses what stall-watch never writes: a symlink, a FIFO, device, socket
 * or folder, a file with more than one link.
 */
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

/**
 * Refuses `path` unless it is missing or a plain file: a regular file with
 * one link, not a symlink.
 *
 * @throws {ConfinementError} Otherwise.
 */
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

/** How {@link openConfined} opens a file. */
export interface OpenOptions {
  /** `append` adds at the end; `lock` opens for locking only (content untouched); `read` reads. */
  access: "append" | "lock" | "read";
  /** Create the file (exclusively) when it is missing. */
  create: boolean;
  /** Permission bits of a created file (the umask may take bits away). */
  mode?: number;
}

/**
 * Opens an existing plain file `<dir>/<name>` after checking it (see the
 * module doc), or creates it exclusively. Never opens a symlink, FIFO or
 * device.
 *
 * @returns The open file, or `null` when it is missing and `create` is off.
 * @throws {ConfinementError} When the path is not a plain file, or the
 * folder was replaced.
 */
export function openConfined(
  dir: ConfinedDir,
  name: string,
  what: string,
  options: OpenOptions,
): Deno.FsFile | null {
  return openChecked(confinedFile(dir, name), what, options, dir);
}

/**
 * {@link openConfined} by path. `dir`, the path's folder, is checked again
 * right before the open; it is `null` only for reading, which writes
 * nothing a swapped folder could lead elsewhere.
 */
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
          // Appending from the start: a hook that opens the file meanwhile
          // appends too, and neither overwrites the other's line.
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

/**
 * Reads a plain file's text (at most 16 MiB; beyond that it is not one of
 * stall-watch's files). Never opens a FIFO or device, so a planted one
 * cannot hang the caller.
 *
 * @returns The text, or `null` when the file is missing.
 * @throws {ConfinementError} When it is a symlink, not a regular file, has
 * several links or is too large.
 */
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
  if (text !== null && !isOwn(text)) {
    throw new ConfinementError(
      `Refusing ${what} "${path}": it is not a file stall-watch wrote`,
    );
  }
  return text;
}

function writeAll(file: Deno.FsFile, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) {
    written += file.writeSync(bytes.subarray(written));
  }
}

/**
 * Creates a new file `<dir>/<name>` with `bytes`, exclusively: an existing
 * name (file, link or FIFO) fails with `Deno.errors.AlreadyExists`, never
 * opened. With `mode`, the file is created with those permission bits less
 * the umask's: never more than asked for (a backup of a 0600 settings file
 * is 0600 or stricter). The bits are never set afterwards by name: Deno has
 * no `fchmod`, and a `chmod` by name follows whatever symlink was renamed
 * over the new file in between (it once turned `~/.ssh/id_ed25519` 0644).
 *
 * @returns The path created.
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
  // Math.random, not crypto: the name only has to differ from a concurrent
  // writer's (the pid already does, and the file is created exclusively);
  // starting crypto's generator cost a blocking stop about 1 ms and 0.6 MiB.
  const random = Math.floor(Math.random() * 2 ** 32).toString(36);
  return `.${name}.${Deno.pid}.${random}.tmp`;
}

/** Options of {@link replaceConfinedFile}. */
export interface ReplaceOptions {
  /** Proves the file being replaced is stall-watch's; absent = any plain file (a settings file the user asked to edit). */
  isOwn?: Ownership;
  /** Permission bits of the new file (the umask still applies). */
  mode?: number;
}

/**
 * Replaces `<dir>/<name>` with `text` atomically: an exclusive temp file in
 * the same folder, renamed over the name, so readers see the old or the new
 * content, never a torn one. The name must be missing or a plain file (and
 * pass `isOwn`); a rename never writes through a link. No fsync: the rename
 * alone keeps a killed writer from tearing the file, and a torn state file
 * after a power cut is read as an empty state.
 *
 * @throws {ConfinementError} When the existing file is not replaceable.
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
    // Checked again right before the rename: the folder must be the one
    // checked, the name still plain.
    const checked = writablePath(dir, name, what);
    assertPlainOrMissing(checked, what);
    settledRename(temp, checked);
  } catch (error) {
    removeIfSame(dir, tempName, what);
    throw error;
  }
}

/**
 * Appends `bytes` in one write to `<dir>/<name>` (created exclusively when
 * missing), which must be a plain file that passes `isOwn`.
 *
 * @throws {ConfinementError} When the existing file is not stall-watch's.
 */
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
    if (size > 0 && !isOwn(readHead(path, what))) {
      throw new ConfinementError(
        `Refusing ${what} "${path}": it is not a file stall-watch wrote`,
      );
    }
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

/**
 * Renames `<dir>/<from>` over `<dir>/<to>` (log rotation). Both must be
 * plain files stall-watch wrote (`to` may be missing).
 *
 * @returns Whether `from` existed.
 * @throws {ConfinementError} When either is not stall-watch's.
 */
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
  if (!isOwn(readHead(source, what))) {
    throw new ConfinementError(
      `Refusing ${what} "${source}": it is not a file stall-watch wrote`,
    );
  }
  const old = lstatOrNull(target);
  if (old !== null) {
    assertPlainFile(target, old, what);
    if (!isOwn(readHead(target, what))) {
      throw new ConfinementError(
        `Refusing ${what} "${target}": it is not a file stall-watch wrote`,
      );
    }
  }
  settledRename(writablePath(dir, from, what), target);
  return true;
}

/**
 * Removes `<dir>/<name>` when it is a plain file that passes `isOwn`.
 *
 * @returns `"removed"`, `"absent"`, or `"kept"` for a file that is not
 * stall-watch's (or not plain).
 */
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

/**
 * Records "now" in the mtime of an empty marker file `<dir>/<name>`,
 * creating it exclusively when missing. An existing name must be an empty
 * plain file: a planted symlink, FIFO or non-empty file is refused, never
 * opened or truncated.
 *
 * @throws {ConfinementError} When the marker is not an empty plain file.
 */
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

/**
 * Why an entry is not one stall-watch could ever have written or can use:
 * a symlink, FIFO, folder, socket or device, or a file with more than one
 * link. `null` for a plain file (one link).
 */
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

/** The name `n` of the entries moved aside from `name`. */
export function quarantineName(name: string, n: number): string {
  return `${name}.quarantined-${n}`;
}

/**
 * Moves the entry `<dir>/<name>` aside, to the first free
 * `<name>.quarantined-<n>` (n from 1 to `maxKept`) in the same folder, so
 * that the name can be used afresh. A rename moves the entry itself, never
 * what a link leads to, and never opens it: a symlink, FIFO, folder or
 * hard link is moved as it is, and nothing outside the folder changes. The
 * entry must still be the one `seen` describes (device and inode), and the
 * folder is checked again first.
 *
 * @returns The name it was moved to, or `null` when all `maxKept` names are
 * taken (a fault that keeps coming back fills no disk).
 * @throws {ConfinementError} When the entry changed since `seen`, or the
 * folder was replaced.
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

/**
 * Removes `dir` if it is an empty folder (not a symlink) that the caller
 * created itself, e.g. the `.claude` that `doctor` made for its probe.
 * Anything else is left alone. Best effort.
 */
export function removeEmptyDir(dir: ConfinedDir): void {
  if (lstatOrNull(dir)?.isDirectory !== true) return;
  try {
    recheckConfinedDir(dir, "folder");
    Deno.removeSync(dir); // not recursive: fails unless empty
  } catch {
    // Not empty, or gone: leave it.
  }
}

/**
 * The folder below `.claude` that is stall-watch's alone by its name: the
 * default state folder and event log, settings backups, relocated state.
 */
export const OWN_FOLDER = "stall_watch";

/** How many foreign `.gitignore` files are kept moved aside. */
const MAX_GITIGNORES_ASIDE = 3;

/**
 * `ensureConfinedDir`, and when `dir` is `.claude/stall_watch` or a folder
 * below it, that folder's own `.gitignore` ({@link ensureOwnGitignore}):
 * every write of state, logs or backups there goes through this.
 */
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
 * Makes sure `dir`, a folder that is stall-watch's alone, carries
 * stall-watch's own `.gitignore` of `*`, so git shows none of its state,
 * logs and settings backups (which may hold an API key), whatever a
 * `.gitignore` higher up says (git reads the deepest one last, and skips
 * folders it ignores, `.gitignore` files and all). It is created when
 * missing; one stall-watch did not write (a cloned repository's `!*`, a
 * symlink, a FIFO) is moved aside unchanged, to `.gitignore.quarantined-<n>`
 * as an unusable state file is (a rename never opens it nor follows a
 * link), and replaced. At most 3 are kept aside; past that it is left.
 * Best effort: the folder works without it.
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
