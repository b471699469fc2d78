/**
 * Confinement: every path stall-watch writes must resolve inside the
 * `.claude` folder of the directory the process started in (for OpenAI's
 * Codex CLI, its `.codex` folder: the `rootName` of each function).
 *
 * The compiled binary's `--allow-write=.claude` already rejects other paths,
 * but Deno checks where a path *is*, not where a symlink inside `.claude`
 * *points*; this module closes that gap and turns a bad path from env or
 * config into one clear line instead of a permission error.
 *
 * @module
 */

import {
  dirname,
  isDeviceName,
  isInside,
  joinPath,
  NATIVE,
  resolvePath,
  stepsBelow,
} from "../shared/paths.ts";
import { pathWithin, type Within } from "../shared/regular_file.ts";

export { isInside };
import { clipMiddle, StallWatchError } from "../shared/errors.ts";
import { ExitCode } from "../shared/errors.ts";

/** The name of the folder stall-watch writes to for Claude Code. */
export const CLAUDE_DIR = ".claude";

/** The name of the folder stall-watch writes to for OpenAI's Codex CLI. */
export const CODEX_DIR = ".codex";

/**
 * The folders a write may be confined to, in the start directory: Claude
 * Code's (the default everywhere) or Codex's.
 */
export type ConfinedRoot = typeof CLAUDE_DIR | typeof CODEX_DIR;

/** A path that would write outside `.claude` (exit 1 from commands). */
export class ConfinementError extends StallWatchError {
  /** @param message One line naming the path and why it was refused. */
  constructor(message: string) {
    super(message, ExitCode.inputError);
    this.name = "ConfinementError";
  }
}

/** The absolute `.claude` (or `root`) folder for a start directory. */
export function claudeRoot(
  cwd: string,
  root: string = CLAUDE_DIR,
): string {
  return resolvePath(cwd, root);
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
  const root = claudeRoot(cwd, dir);
  const absolute = resolvePath(cwd, path);
  if (!isInside(root, absolute)) {
    throw new ConfinementError(
      `Refusing ${what} "${path}": stall-watch only writes inside ${root}`,
    );
  }
  const device = (stepsBelow(root, absolute) ?? []).find(isDeviceName);
  if (device !== undefined) throw deviceRefusal(what, path, device);
  return absolute;
}

/**
 * The refusal of a name Windows keeps for a device (`COM1.log`, `NUL`,
 * `AUX`: see `isDeviceName`): a write there would reach the device, not
 * a file. Refused on every platform, as one config serves them all.
 */
export function deviceRefusal(
  what: string,
  path: string,
  name: string,
): ConfinementError {
  return new ConfinementError(
    `Refusing ${what} "${path}": "${name}" is a Windows device name ` +
      "(CON, PRN, AUX, NUL, COM1-9, LPT1-9), not a file",
  );
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
  rootName: string = CLAUDE_DIR,
): ConfinedDir {
  const target = confinedPath(cwd, dir, what, rootName);
  const root = claudeRoot(cwd, rootName);
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
  /** For a link: the real folder inside the start directory it was walked to. */
  real: string | null;
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
      const info = Deno.lstatSync(seen.path);
      // A link is walked again hop by hop: never followed by the kernel
      // here, so a `.claude` swapped for a link to a network path is
      // refused without that path being touched.
      const folder = info.isSymlink !== seen.link
        ? null
        : seen.link
        ? walkedFolder(seen.path)
        : { path: seen.path, info };
      same = folder !== null && (!seen.link || folder.path === seen.real) &&
        folder.info.isDirectory &&
        (seen.ino === null || folder.info.ino === null ||
          (folder.info.ino === seen.ino && folder.info.dev === seen.dev));
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
  rootName: string = CLAUDE_DIR,
): ConfinedDir | null {
  const target = confinedPath(cwd, dir, what, rootName);
  const root = claudeRoot(cwd, rootName);
  const top = lstatOrNull(root);
  if (top === null) return null;
  // `.claude` is judged before anything below it is looked at: a path
  // below a link is resolved through it by the kernel.
  if (top.isSymlink) {
    const walked = walkBelowStart(cwd, root);
    if (walked.inside && lstatOrNull(walked.path) === null) return null;
    ensureRoot(cwd, root, what, dir); // refuses a link leading out
  }
  let current = root;
  for (const step of stepsBelow(root, target) ?? []) {
    current = joinPath(NATIVE, current, step);
    if (lstatOrNull(current) === null) return null;
  }
  return ensureConfinedDir(cwd, dir, what, rootName);
}

/**
 * The refusal of a symlink: stall-watch writes through none, and says
 * where it leads when that is outside `.claude`. Where it leads is found
 * from the link's own text, hop by hop below the start directory
 * ({@link walkBelowStart}): a link out of it (to `/net/<host>/x`, or
 * `\\host\share` on Windows) is named, never followed, so wording a
 * refusal touches no target (an automount or an SMB session would).
 */
export function symlinkRefusal(
  root: string,
  link: string,
  what: string,
): ConfinementError {
  const start = dirname(root);
  let walked: Within;
  let claude: Within;
  try {
    walked = walkBelowStart(start, link);
    claude = walkBelowStart(start, root);
  } catch {
    // An unreadable link leads nowhere good.
    walked = { inside: false, link, target: "an unreadable target" };
    claude = walked;
  }
  if (walked.inside && claude.inside && isInside(claude.path, walked.path)) {
    return new ConfinementError(
      `Refusing ${what} "${link}": it is a symlink, and stall-watch ` +
        "writes through none",
    );
  }
  return new ConfinementError(
    `Refusing ${what} "${link}": it is a symlink to outside ${root} (${
      walked.inside ? `to ${clip(walked.path)}` : hop(link, walked)
    })`,
  );
}

/** Longest link text or path shown in a refusal. */
const MAX_SHOWN_CHARS = 200;

function clip(text: string): string {
  return clipMiddle(text, MAX_SHOWN_CHARS);
}

/**
 * Where the hop that leaves the start directory leads, from its text:
 * `to "<text>"` for `link` itself, `via <hop> -> "<text>"` for a link
 * further on.
 */
function hop(link: string, out: { link: string; target: string }): string {
  const text = clip(JSON.stringify(out.target));
  return out.link === link ? `to ${text}` : `via ${clip(out.link)} -> ${text}`;
}

/**
 * The start directory as the kernel spells it. It is the user's choice (the
 * folder Claude Code or the user started in), so resolving it touches
 * nothing a repository chose.
 */
function realStart(start: string): string {
  try {
    return Deno.realPathSync(start);
  } catch {
    return start;
  }
}

/**
 * Where `path` (absolute, at or below the start directory `start`) really
 * leads, found with `lstat` and `readlink` one step at a time from the
 * start directory (`pathWithin`): a link whose text leaves the start
 * directory ends the walk at that hop, its target never looked at. Links
 * that stay inside are followed, whatever they lead through.
 */
export function walkBelowStart(start: string, path: string): Within {
  const steps = stepsBelow(start, path);
  if (steps === null) return { inside: false, link: path, target: path };
  return pathWithin(start, realStart(start), steps.join(NATIVE.sep));
}

/**
 * The real folder a `.claude` symlink was walked to, with what `lstat`
 * says of it, or `null` when the walk left the start directory or ended
 * at nothing.
 */
function walkedFolder(
  root: string,
): { path: string; info: Deno.FileInfo } | null {
  const walked = walkBelowStart(dirname(root), root);
  if (!walked.inside) return null;
  const info = lstatOrNull(walked.path);
  return info === null ? null : { path: walked.path, info };
}

/**
 * `.claude` must be a folder; it may be a symlink (the user's choice) only
 * to a folder inside the start directory, which is checked from the link's
 * text, hop by hop, never by following it (a committed `.claude ->
 * /net/<host>/s` must not reach the host).
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
  const { info } = lstatOrCreateFolder(root);
  if (!info.isSymlink) return folderId(root, info, what, requested);
  const walked = walkBelowStart(cwd, root);
  if (!walked.inside) {
    throw new ConfinementError(
      `Refusing ${what} "${requested}": ${root} is a symlink to outside ${cwd} (${
        hop(root, walked)
      })`,
    );
  }
  const target = lstatOrNull(walked.path);
  if (target === null) {
    // A committed `.claude -> missing`: say so, not "internal error".
    throw new ConfinementError(
      `Cannot use ${what} "${requested}": ${root} is a symlink to ` +
        `${clip(readLinkOrUnknown(root))}, which does not exist`,
    );
  }
  return {
    ...folderId(root, target, what, requested),
    link: true,
    real: walked.path,
  };
}

/** `lstat` of `current`, creating it as a folder when missing. */
function lstatOrCreateFolder(
  current: string,
): { created: boolean; info: Deno.FileInfo } {
  try {
    return { created: false, info: Deno.lstatSync(current) };
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  let created = false;
  try {
    Deno.mkdirSync(current);
    created = true;
  } catch (mkdirError) {
    // Another hook of the same session may have created it meanwhile.
    if (!(mkdirError instanceof Deno.errors.AlreadyExists)) throw mkdirError;
  }
  return { created, info: Deno.lstatSync(current) };
}

/** The identity of a folder that is no symlink, or the refusal of anything else. */
function folderId(
  current: string,
  info: Deno.FileInfo,
  what: string,
  requested: string,
): FolderId {
  if (!info.isDirectory) {
    throw new ConfinementError(
      `Cannot use ${what} "${requested}": ${current} is not a directory`,
    );
  }
  return {
    path: current,
    link: false,
    real: null,
    dev: info.dev,
    ino: info.ino,
  };
}

/**
 * Makes sure `current`, below `.claude`, is a folder and no symlink,
 * creating it.
 *
 * @returns Whether it was created, and the identity of the folder checked.
 */
function ensureDirectoryStep(
  current: string,
  root: string,
  what: string,
  requested: string,
): { created: boolean; id: FolderId } {
  const { created, info } = lstatOrCreateFolder(current);
  if (info.isSymlink) {
    const refusal = symlinkRefusal(root, current, what);
    throw new ConfinementError(
      refusal.message.replace(`"${current}": it`, `"${requested}": ${current}`),
    );
  }
  return { created, id: folderId(current, info, what, requested) };
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
