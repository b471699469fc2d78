/**
 * Confinement: every path stall-watch writes must resolve inside the
 * `.claude` folder of the directory the process started in.
 *
 * The compiled binary's `--allow-write=.claude` already rejects other paths,
 * but Deno checks where a path *is*, not where a symlink inside `.claude`
 * *points*; this module closes that gap and turns a bad path from env or
 * config into one clear line instead of a permission error.
 *
 * @module
 */

import {
  basename,
  dirname,
  isInside,
  joinPath,
  NATIVE,
  resolvePath,
  stepsBelow,
} from "../shared/paths.ts";

export { isInside };
import { StallWatchError } from "../shared/errors.ts";
import { ExitCode } from "../shared/errors.ts";

/** The name of the only folder stall-watch writes to. */
export const CLAUDE_DIR = ".claude";

/** A path that would write outside `.claude` (exit 1 from commands). */
export class ConfinementError extends StallWatchError {
  /** @param message One line naming the path and why it was refused. */
  constructor(message: string) {
    super(message, ExitCode.inputError);
    this.name = "ConfinementError";
  }
}

/** The absolute `.claude` folder for a start directory. */
export function claudeRoot(cwd: string): string {
  return resolvePath(cwd, CLAUDE_DIR);
}

/**
 * Resolves `path` against `cwd` and checks, without touching the disk, that
 * it lies inside `<cwd>/.claude`.
 *
 * @throws {ConfinementError} For paths elsewhere, including `..` escapes.
 */
export function confinedPath(cwd: string, path: string, what: string): string {
  const root = claudeRoot(cwd);
  const absolute = resolvePath(cwd, path);
  if (!isInside(root, absolute)) {
    throw new ConfinementError(
      `Refusing ${what} "${path}": stall-watch only writes inside ${root}`,
    );
  }
  return absolute;
}

/**
 * A folder checked by {@link ensureConfinedDir}: inside `.claude`, reached
 * without a symlink below `.claude`. The confined-file functions write only
 * into such folders.
 */
export type ConfinedDir = string & { readonly __confined: unique symbol };

/** What stall-watch writes into the top-most folder it creates below `.claude`. */
export const OWN_GITIGNORE = "# Created by stall-watch: its state, logs and " +
  "backups stay out of git.\n*\n";

/**
 * Creates `dir` (and its parents) inside `.claude`, refusing any symlink on
 * the way below `.claude`, and `.claude` itself when it is a symlink leading
 * out of the start directory (a cloned repository may commit
 * `.claude -> ~/.ssh`). The top-most folder it creates gets a `.gitignore`
 * of `*`, created exclusively, so state, logs and backups of settings are
 * never committed. Requires `--allow-read` and write access to `.claude`.
 *
 * @returns The absolute directory.
 * @throws {ConfinementError} When the path or a symlink escapes `.claude`.
 */
export function ensureConfinedDir(
  cwd: string,
  dir: string,
  what: string,
): ConfinedDir {
  const target = confinedPath(cwd, dir, what);
  const root = claudeRoot(cwd);
  const steps = stepsBelow(root, target) ?? [];
  ensureRoot(cwd, root, what, dir);
  let current = root;
  let ignored = false;
  for (const step of steps) {
    current = joinPath(NATIVE, current, step);
    const created = ensureDirectoryStep(current, root, what, dir);
    if (created && !ignored) {
      writeOwnGitignore(current);
      ignored = true;
    }
  }
  return target as ConfinedDir;
}

/**
 * {@link ensureConfinedDir} for a folder that must already exist: the same
 * checks, nothing created.
 *
 * @returns The folder, or `null` when it (or a folder above it) is missing.
 * @throws {ConfinementError} When the path or a symlink escapes `.claude`.
 */
export function existingConfinedDir(
  cwd: string,
  dir: string,
  what: string,
): ConfinedDir | null {
  const target = confinedPath(cwd, dir, what);
  const root = claudeRoot(cwd);
  let current = root;
  for (const step of [null, ...(stepsBelow(root, target) ?? [])]) {
    if (step !== null) current = joinPath(NATIVE, current, step);
    if (lstatOrNull(current) === null) return null;
  }
  return ensureConfinedDir(cwd, dir, what);
}

/**
 * The refusal of a symlink: stall-watch writes through none, and says where
 * it leads when that is outside `.claude`.
 */
export function symlinkRefusal(
  root: string,
  link: string,
  what: string,
): ConfinementError {
  let outside = false;
  try {
    outside = !isInside(realRoot(root), linkTarget(link));
  } catch {
    outside = true; // a loop or an unreadable link leads nowhere good
  }
  return new ConfinementError(
    outside
      ? `Refusing ${what} "${link}": it is a symlink to outside ${root}`
      : `Refusing ${what} "${link}": it is a symlink, and stall-watch ` +
        "writes through none",
  );
}

/**
 * Where the symlink `link` leads. A dangling one is judged by the place a
 * write through it would create, not failed with a bare realpath error.
 */
function linkTarget(link: string): string {
  try {
    return Deno.realPathSync(link);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  let current = link;
  for (let hops = 0; hops < 40; hops++) {
    const target = resolvePath(dirname(current), Deno.readLinkSync(current));
    const info = lstatOrNull(target);
    if (info?.isSymlink) {
      current = target;
      continue;
    }
    let folder = dirname(target);
    try {
      folder = Deno.realPathSync(folder);
    } catch {
      // A missing folder is judged by its spelled-out path.
    }
    return joinPath(NATIVE, folder, basename(target));
  }
  throw new Error(`Too many levels of symbolic links: "${link}"`);
}

/**
 * `.claude` must be a folder; it may be a symlink (the user's choice) only
 * to a folder inside the start directory.
 */
function ensureRoot(
  cwd: string,
  root: string,
  what: string,
  requested: string,
): void {
  ensureDirectoryStep(root, root, what, requested, true);
  if (!lstatOrNull(root)?.isSymlink) return;
  const real = Deno.realPathSync(root);
  if (!isInside(realRoot(cwd), real)) {
    throw new ConfinementError(
      `Refusing ${what} "${requested}": ${root} is a symlink to ${real}, outside ${cwd}`,
    );
  }
}

/** Makes sure `current` is a folder, creating it; @returns whether it was created. */
function ensureDirectoryStep(
  current: string,
  root: string,
  what: string,
  requested: string,
  symlinkAllowed = false,
): boolean {
  let info: Deno.FileInfo;
  let created = false;
  try {
    info = Deno.lstatSync(current);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    try {
      Deno.mkdirSync(current);
      created = true;
    } catch (mkdirError) {
      // Another hook of the same session may have created it meanwhile.
      if (!(mkdirError instanceof Deno.errors.AlreadyExists)) throw mkdirError;
    }
    info = Deno.lstatSync(current);
  }
  if (info.isSymlink && !symlinkAllowed) {
    const refusal = symlinkRefusal(root, current, what);
    throw new ConfinementError(
      refusal.message.replace(`"${current}": it`, `"${requested}": ${current}`),
    );
  }
  if (info.isSymlink) info = Deno.statSync(current);
  if (!info.isDirectory) {
    throw new ConfinementError(
      `Cannot use ${what} "${requested}": ${current} is not a directory`,
    );
  }
  return created;
}

/**
 * Gives a folder that is stall-watch's alone a `.gitignore` of `*` when it
 * has none, created exclusively (an existing one is left alone).
 */
export function ensureOwnGitignore(dir: ConfinedDir): void {
  writeOwnGitignore(dir);
}

/** Creates `<dir>/.gitignore` exclusively; an existing one is left alone. */
function writeOwnGitignore(dir: string): void {
  try {
    const file = Deno.openSync(joinPath(NATIVE, dir, ".gitignore"), {
      write: true,
      createNew: true,
    });
    try {
      file.writeSync(new TextEncoder().encode(OWN_GITIGNORE));
    } finally {
      file.close();
    }
  } catch {
    // Best effort: the folder works without it.
  }
}

function realOrSelf(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch {
    return path;
  }
}

function realRoot(root: string): string {
  return realOrSelf(root);
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}
