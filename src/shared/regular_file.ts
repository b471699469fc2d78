/**
 * Reading a file someone may have planted (a link to `/dev/zero` or a FIFO
 * must not hang a read): a regular file by `stat`, the same once open, within
 * a cap, through no link out of the caller's folder. Requires `--allow-read`.
 *
 * @example
 * ```ts
 * const text = readRegularText(path, "config file", 1 << 20, { inside: cwd });
 * ```
 *
 * @module
 */

import { clipMiddle, describe, InputError } from "./errors.ts";
import {
  dirname,
  isAbsolute,
  joinPath,
  NATIVE,
  normalize,
  type PathStyle,
  stepsBelow,
} from "./paths.ts";

const MAX_PATH_CHARS = 200;

/** A file that exists but cannot be read as one (exit 1 from commands). */
export class UnreadableFileError extends InputError {
  /** Why, without the path. */
  readonly reason: string;

  constructor(what: string, path: string, reason: string) {
    super(
      `Cannot read ${what} "${clipMiddle(path, MAX_PATH_CHARS)}": ${reason}`,
    );
    this.name = "UnreadableFileError";
    this.reason = reason;
  }
}

/** Options of {@link openRegularFile}. */
export interface RegularFileOptions {
  maxBytes?: number;
  /** A folder the file must really lie in when its path does (a link out is refused untouched). */
  inside?: string;
}

/** Missing: no file, or a file where a folder on the path should be. */
function isMissing(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound ||
    error instanceof Deno.errors.NotADirectory;
}

/** Opens a regular file for reading; `null` when missing, else {@link UnreadableFileError}. */
export function openRegularFile(
  given: string,
  what: string,
  options: RegularFileOptions = {},
): Deno.FsFile | null {
  const path = options.inside === undefined
    ? given
    : insidePath(options.inside, given, what);
  let seen: Deno.FileInfo;
  try {
    seen = Deno.statSync(path);
  } catch (error) {
    if (isMissing(error)) return null;
    throw new UnreadableFileError(what, path, describe(error));
  }
  const refusal = refusalOf(seen, options);
  if (refusal !== null) throw new UnreadableFileError(what, path, refusal);
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (error) {
    if (isMissing(error)) return null;
    throw new UnreadableFileError(what, path, describe(error));
  }
  let opened: Deno.FileInfo;
  try {
    opened = file.statSync();
  } catch (error) {
    file.close();
    throw new UnreadableFileError(what, path, describe(error));
  }
  const after = refusalOf(opened, options) ??
    (isSameFile(seen, opened) ? null : "it was replaced while being opened");
  if (after !== null) {
    file.close();
    throw new UnreadableFileError(what, path, after);
  }
  return file;
}

/** A regular file's text, at most `maxBytes`, or `null` when missing. */
export function readRegularText(
  path: string,
  what: string,
  maxBytes: number,
  options: Pick<RegularFileOptions, "inside"> = {},
): string | null {
  const bytes = readRegularBytes(path, what, maxBytes, options);
  return bytes === null ? null : new TextDecoder().decode(bytes);
}

/** {@link readRegularText}'s bytes, undecoded (for a strict decoder). */
export function readRegularBytes(
  path: string,
  what: string,
  maxBytes: number,
  options: Pick<RegularFileOptions, "inside"> = {},
): Uint8Array | null {
  const file = openRegularFile(path, what, { ...options, maxBytes });
  if (file === null) return null;
  let bytes: Uint8Array | null;
  try {
    bytes = readCapped(file, maxBytes);
  } catch (error) {
    throw new UnreadableFileError(what, path, describe(error));
  } finally {
    file.close();
  }
  if (bytes === null) {
    throw new UnreadableFileError(what, path, tooLarge(maxBytes));
  }
  return bytes;
}

/** The whole file, or `null` once it holds more than `maxBytes`. */
function readCapped(file: Deno.FsFile, maxBytes: number): Uint8Array | null {
  // One byte more than the cap tells a file that grew meanwhile.
  const bytes = new Uint8Array(maxBytes + 1);
  let total = 0;
  for (;;) {
    const read = file.readSync(bytes.subarray(total));
    if (read === null) return bytes.subarray(0, total);
    total += read;
    if (total > maxBytes) return null;
  }
}

/** `path` with its links below `root` resolved; a path elsewhere as it is. */
function insidePath(root: string, path: string, what: string): string {
  const steps = stepsBelow(root, path);
  if (steps === null) return path;
  let realRoot = root;
  try {
    realRoot = Deno.realPathSync(root);
  } catch {
    // The start directory is gone: the walk finds nothing either.
  }
  const walked = pathWithin(root, realRoot, steps.join(NATIVE.sep));
  if (walked.inside) return walked.path;
  throw new UnreadableFileError(
    what,
    path,
    `it leads out of ${clipMiddle(root, MAX_PATH_CHARS)} (${
      clipMiddle(walked.link, MAX_PATH_CHARS)
    } is a symlink to ${clipMiddle(walked.target, MAX_PATH_CHARS)})`,
  );
}

function refusalOf(
  info: Deno.FileInfo,
  options: RegularFileOptions,
): string | null {
  if (info.isDirectory) return "it is a directory";
  if (!info.isFile) return "it is not a regular file";
  if (options.maxBytes !== undefined && info.size > options.maxBytes) {
    return tooLarge(options.maxBytes);
  }
  return null;
}

function tooLarge(maxBytes: number): string {
  return `it is larger than ${maxBytes} bytes`;
}

/** Same device and inode; Windows reports neither, and there `stat` has to do. */
function isSameFile(seen: Deno.FileInfo, opened: Deno.FileInfo): boolean {
  return seen.ino === null || opened.ino === null ||
    (seen.ino === opened.ino && seen.dev === opened.dev);
}

/** Symlinks followed before a path counts as a loop. */
const MAX_HOPS = 40;

/** Where a path leads: a real path inside the root, or out of it. */
export type Within =
  | { inside: true; path: string }
  | { inside: false; link: string; target: string };

/**
 * Where `relative` really leads below the absolute `root` (or `realRoot`),
 * walked with `lstat` and `readlink`: a link out is neither followed nor
 * looked at, and returned with its target. A missing step ends the walk.
 */
export function pathWithin(
  root: string,
  realRoot: string,
  relative: string,
  style: PathStyle = NATIVE,
): Within {
  const split = (text: string) =>
    text.split(style.windows ? /[\\/]+/ : /\/+/).filter((s) => s !== "");
  const queue = split(relative);
  let current = root;
  let hops = 0;
  // The last link followed, for the message when a `..` then climbs out.
  let followed = { link: relative, target: relative };
  while (queue.length > 0) {
    const step = queue.shift() as string;
    if (step === ".") continue;
    if (step === "..") {
      // `current` holds no link: its parent is the kernel's `..`.
      current = dirname(current, style);
      if (stepsBelow(root, current, style) === null) {
        return { inside: false, ...followed };
      }
      continue;
    }
    const next = joinPath(style, current, step);
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch {
      return { inside: true, path: joinPath(style, next, ...queue) };
    }
    if (!info.isSymlink) {
      current = next;
      continue;
    }
    const target = Deno.readLinkSync(next);
    followed = { link: next, target };
    if (++hops > MAX_HOPS) return { inside: false, link: next, target };
    if (!isAbsolute(target, style) && !/^[A-Za-z]:/.test(target)) {
      queue.unshift(...split(target));
      continue;
    }
    // An absolute target, judged on its text; one that climbs with `..`
    // cannot be judged so, and counts as leading out.
    const below = split(target).includes("..")
      ? null
      : stepsBelow(root, normalize(target, style), style) ??
        stepsBelow(realRoot, normalize(target, style), style);
    if (below === null) return { inside: false, link: next, target };
    current = root;
    queue.unshift(...below);
  }
  return { inside: true, path: current };
}
