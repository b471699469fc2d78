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
 * it lies inside `<cwd>/.claude` (or `<cwd>/<dir>`).
 *
 * @throws {ConfinementError} For paths elsewhere, including `..` escapes.
 */
export function confinedPath(
  cwd: string,
  path: string,
  what: string,
  dir: string = CLAUDE_DIR,
): string {
  const root = resolvePath(cwd, dir);
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
  // The identity of each folder as checked, for recheckConfinedDir().
  const chain = [ensureRoot(cwd, root, what, dir)];
  let current = root;
  let ignored = false;
  for (const step of steps) {
    current = joinPath(NATIVE, current, step);
    const { created, id } = ensureDirectoryStep(current, root, what, dir);
    chain.push(id);
    if (created && !ignored) {
      writeOwnGitignore(current);
      ignored = true;
    }
  }
  checkedChains.set(target, chain);
  return target as ConfinedDir;
}

/** One folder on the way to a {@link ConfinedDir}, as it was checked. */
interface FolderId {
  path: string;
  /** It was a symlink (only `.claude` may be one). */
  link: boolean;
  /** Device and inode of the folder (through the link); `null` where Deno reports none (Windows). */
  dev: number;
  ino: number | null;
}

/**
 * What {@link ensureConfinedDir} saw on the way to each folder it returned:
 * `.claude`, then every folder below it. {@link recheckConfinedDir} compares
 * against it.
 */
const checkedChains = new Map<string, FolderId[]>();

/**
 * Checks again, right before a write, that `dir` is still the folder
 * {@link ensureConfinedDir} checked: `.claude` and every folder below it on
 * the way have the same device and inode, none became a symlink. Deno has
 * no `openat`, so every write goes by path; without this, a folder swapped
 * for a symlink after the check (while a hook waits up to 3 s for the
 * session lock, say) would lead the write out of `.claude`. What remains
 * is the time between this check and the system call itself.
 *
 * @throws {ConfinementError} When a folder on the way was replaced.
 */
export function recheckConfinedDir(dir: ConfinedDir, what: string): void {
  const chain = checkedChains.get(dir);
  if (chain === undefined) {
    throw new ConfinementError(
      `Refusing ${what} in "${dir}": it is not a folder stall-watch checked`,
    );
  }
  for (const seen of chain) {
    let same = false;
    try {
      const link = Deno.lstatSync(seen.path).isSymlink;
      const now = link ? Deno.statSync(seen.path) : Deno.lstatSync(seen.path);
      same = link === seen.link && now.isDirectory &&
        (seen.ino === null || now.ino === null ||
          (now.ino === seen.ino && now.dev === seen.dev));
    } catch {
      // Gone, or a link that leads nowhere: not the folder checked.
    }
    if (!same) {
      throw new ConfinementError(
        `Refusing ${what} in "${dir}": ${seen.path} was replaced after ` +
          "stall-watch checked it",
      );
    }
  }
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
 *
 * @returns Its identity: for a symlink, that of the folder inside the start
 * directory it was checked to lead to.
 */
function ensureRoot(
  cwd: string,
  root: string,
  what: string,
  requested: string,
): FolderId {
  const step = ensureDirectoryStep(root, root, what, requested, true);
  if (!step.id.link) return step.id;
  const real = Deno.realPathSync(root);
  if (!isInside(realRoot(cwd), real)) {
    throw new ConfinementError(
      `Refusing ${what} "${requested}": ${root} is a symlink to ${real}, outside ${cwd}`,
    );
  }
  const info = Deno.statSync(real);
  return { path: root, link: true, dev: info.dev, ino: info.ino };
}

/**
 * Makes sure `current` is a folder, creating it.
 *
 * @returns Whether it was created, and the identity of the folder checked.
 */
function ensureDirectoryStep(
  current: string,
  root: string,
  what: string,
  requested: string,
  symlinkAllowed = false,
): { created: boolean; id: FolderId } {
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
  const link = info.isSymlink;
  if (link) {
    const target = statOrNull(current);
    if (target === null) {
      // A committed `.claude -> missing`: say so, not "internal error".
      throw new ConfinementError(
        `Cannot use ${what} "${requested}": ${current} is a symlink to ` +
          `${readLinkOrUnknown(current)}, which does not exist`,
      );
    }
    info = target;
  }
  if (!info.isDirectory) {
    throw new ConfinementError(
      `Cannot use ${what} "${requested}": ${current} is not a directory`,
    );
  }
  return {
    created,
    id: { path: current, link, dev: info.dev, ino: info.ino },
  };
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

function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch {
    return null;
  }
}

function readLinkOrUnknown(path: string): string {
  try {
    return JSON.stringify(Deno.readLinkSync(path));
  } catch {
    return "an unreadable target";
  }
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}
