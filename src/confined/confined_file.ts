/**
 * The confined-write primitive. Deno has no `O_NOFOLLOW` (threat model items
 * 1-3, 13): each operation `lstat`s first, checks the open handle is what it
 * saw, rechecks the folder right before the system call, creates exclusively,
 * replaces by a renamed temp file, and touches only a file `isOwn` proves its own.
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
} from "./confine.ts";
import { settledRename } from "./_settled_rename.ts";
import {
  assertPlainFile,
  assertPlainOrMissing,
  lstatOrNull,
  openChecked,
  type Ownership,
  readConfinedText,
  readHead,
  unusableShape,
} from "./_plain_file.ts";

export {
  assertPlainOrMissing,
  lstatOrNull,
  type Ownership,
  readConfinedText,
  unusableShape,
};

const encoder = new TextEncoder();

/** `<dir>/<name>` for a single-segment name that is no device name. */
export function confinedFile(dir: ConfinedDir, name: string): string {
  if (name === "" || name === "." || name === ".." || /[\\/\0]/.test(name)) {
    throw new ConfinementError(`Refusing file name "${name}" in ${dir}`);
  }
  if (isDeviceName(name)) throw deviceRefusal("file", `${dir}/${name}`, name);
  return joinPath(NATIVE, dir, name);
}

/** `<dir>/<name>`, the folder chain rechecked: call it right before the system call. */
function writablePath(dir: ConfinedDir, name: string, what: string): string {
  const path = confinedFile(dir, name);
  recheckConfinedDir(dir, what);
  return path;
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
function tempNameFor(name: string): string {
  // Not crypto (1 ms, 0.6 MiB a stop): pid and exclusive create keep writers apart.
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
  if (options.isOwn) {
    const old = readConfinedText(path, what);
    if (old !== null && !options.isOwn(old)) throw notOwn(what, path);
  } else assertPlainOrMissing(path, what);
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
  const file = openChecked(path, what, { access: "append", create: true }, dir);
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

/** Renames `<dir>/<from>` over `<dir>/<to>` (both its own; `to` may be missing); whether `from` existed. */
export function renameConfined(
  dir: ConfinedDir,
  from: string,
  to: string,
  what: string,
  isOwn: Ownership,
): boolean {
  const target = confinedFile(dir, to);
  if (!existsOwn(confinedFile(dir, from), what, isOwn)) return false;
  existsOwn(target, what, isOwn);
  settledRename(writablePath(dir, from, what), target);
  return true;
}

/** Whether `path` exists; refused unless a plain file whose head passes `isOwn`. */
function existsOwn(path: string, what: string, isOwn: Ownership): boolean {
  const seen = lstatOrNull(path);
  if (seen === null) return false;
  assertPlainFile(path, seen, what);
  if (!isOwn(readHead(path, what))) throw notOwn(what, path);
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
  if (unusableShape(seen) !== null) return "kept";
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
  const file = openChecked(path, what, { access: "lock", create: true }, dir);
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
    const aside = `${name}.quarantined-${n}`;
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
