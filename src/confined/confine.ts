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
 * Creates `dir` (and its parents) inside `.claude`, refusing any symlink on
 * the way that leads outside. Requires `--allow-read` and write access to
 * `.claude`.
 *
 * @returns The absolute directory.
 * @throws {ConfinementError} When the path or a symlink escapes `.claude`.
 */
export function ensureConfinedDir(
  cwd: string,
  dir: string,
  what: string,
): string {
  const target = confinedPath(cwd, dir, what);
  const root = claudeRoot(cwd);
  const steps = stepsBelow(root, target) ?? [];
  let current = root;
  for (const step of [null, ...steps]) {
    if (step !== null) current = joinPath(NATIVE, current, step);
    ensureDirectoryStep(current, root, what, dir);
  }
  return target;
}

/**
 * Checks that an existing file inside `.claude` is not a symlink leading
 * outside it. A missing file passes.
 *
 * @throws {ConfinementError} When the file escapes `.claude`.
 */
export function assertFileConfined(
  cwd: string,
  file: string,
  what: string,
): void {
  const root = claudeRoot(cwd);
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  if (
    info.isSymlink && !isInside(realRoot(root), linkTarget(file))
  ) {
    throw new ConfinementError(
      `Refusing ${what} "${file}": it is a symlink to outside ${root}`,
    );
  }
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

function ensureDirectoryStep(
  current: string,
  root: string,
  what: string,
  requested: string,
): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(current);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    try {
      Deno.mkdirSync(current);
    } catch (mkdirError) {
      // Another hook of the same session may have created it meanwhile.
      if (!(mkdirError instanceof Deno.errors.AlreadyExists)) throw mkdirError;
    }
    info = Deno.lstatSync(current);
  }
  // `.claude` itself may be a symlink (the user's choice); below it, a
  // symlink must stay inside the real `.claude`.
  if (info.isSymlink && current !== root) {
    const real = Deno.realPathSync(current);
    if (!isInside(realRoot(root), real)) {
      throw new ConfinementError(
        `Refusing ${what} "${requested}": ${current} is a symlink to ${real}, outside ${root}`,
      );
    }
    info = Deno.statSync(current);
  } else if (info.isSymlink) {
    info = Deno.statSync(current);
  }
  if (!info.isDirectory) {
    throw new ConfinementError(
      `Cannot use ${what} "${requested}": ${current} is not a directory`,
    );
  }
}

function realRoot(root: string): string {
  try {
    return Deno.realPathSync(root);
  } catch {
    return root;
  }
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}
