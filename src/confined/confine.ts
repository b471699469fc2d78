/**
 * Confinement: every path stall-watch writes lies inside the start
 * directory's `.claude` (`.codex`: `rootName`), through links too, which
 * Deno's `--allow-write` does not check (docs/threat-model.md).
 *
 * @example
 * ```ts
 * const dir = ensureConfinedDir(cwd, ".claude/stall_watch", "state folder");
 * ```
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
import { clipMiddle, ExitCode, StallWatchError } from "../shared/errors.ts";

/** The name of the folder stall-watch writes to for Claude Code. */
export const CLAUDE_DIR = ".claude";

/** The name of the folder stall-watch writes to for OpenAI's Codex CLI. */
export const CODEX_DIR = ".codex";

/** The folders a write may be confined to: Claude Code's (the default) or Codex's. */
export type ConfinedRoot = typeof CLAUDE_DIR | typeof CODEX_DIR;

/** A path that would write outside `.claude` (exit 1 from commands). */
export class ConfinementError extends StallWatchError {
  constructor(message: string) {
    super(message, ExitCode.inputError);
    this.name = "ConfinementError";
  }
}

/** The absolute `.claude` (or `rootName`) folder for a start directory. */
export function claudeRoot(cwd: string, rootName: string = CLAUDE_DIR): string {
  return resolvePath(cwd, rootName);
}

/** `path` resolved against `cwd`, checked on its text to lie inside `<cwd>/<rootName>`. */
export function confinedPath(
  cwd: string,
  path: string,
  what: string,
  rootName: string = CLAUDE_DIR,
): string {
  const root = claudeRoot(cwd, rootName);
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

/** The refusal of a Windows device name (`COM1.log`), on every platform (item 35). */
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

/** A folder {@link ensureConfinedDir} checked: the only kind confined writes go into. */
export type ConfinedDir = string & { readonly __confined: unique symbol };

/** What stall-watch writes into the top-most folder it creates below `.claude`. */
export const OWN_GITIGNORE = "# Created by stall-watch: its state, logs and " +
  "backups stay out of git.\n*\n";

/**
 * Creates `dir` and its parents inside `.claude`, refusing any symlink below
 * it and a `.claude` linked out (`.claude -> ~/.ssh`); the top-most folder
 * made gets a `.gitignore` of `*`.
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
  /** A symlink (only `.claude` may be one), walked to `real`. */
  link: boolean;
  real: string | null;
  /** Through the link; `ino` is `null` on Windows. */
  dev: number;
  ino: number | null;
}

/** The folders {@link ensureConfinedDir} saw on the way to each it returned. */
const checkedChains = new Map<string, FolderId[]>();

/**
 * Checks right before a write that `dir` and each folder up to `.claude` is
 * still the one checked (device, inode, no new link): Deno has no `openat`
 * (threat model item 13).
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
      // A link is walked again hop by hop, never followed by the kernel.
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

/** {@link ensureConfinedDir} for a folder that must exist: nothing made, `null` when missing. */
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
  // `.claude` first: the kernel resolves a path below a link through it.
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

/** The refusal of a symlink, naming where it leads from its text alone (item 30). */
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

/** A path or link text for a message, at most 200 characters. */
const clip = (text: string) => clipMiddle(text, 200);

/** The hop that leaves the start directory: `to "<text>"`, or `via <hop> -> "<text>"`. */
function hop(link: string, out: { link: string; target: string }): string {
  const text = clip(JSON.stringify(out.target));
  return out.link === link ? `to ${text}` : `via ${clip(out.link)} -> ${text}`;
}

/** The start directory's real path (the user's choice, safe to resolve). */
function realStart(start: string): string {
  try {
    return Deno.realPathSync(start);
  } catch {
    return start;
  }
}

/** Where `path`, at or below `start`, really leads (`pathWithin`): a link out ends the walk. */
export function walkBelowStart(start: string, path: string): Within {
  const steps = stepsBelow(start, path);
  if (steps === null) return { inside: false, link: path, target: path };
  return pathWithin(start, realStart(start), steps.join(NATIVE.sep));
}

/** The real folder a `.claude` link leads to and its `lstat`, or `null` (out, or nothing). */
function walkedFolder(
  root: string,
): { path: string; info: Deno.FileInfo } | null {
  const walked = walkBelowStart(dirname(root), root);
  if (!walked.inside) return null;
  const info = lstatOrNull(walked.path);
  return info === null ? null : { path: walked.path, info };
}

/** `.claude` as a folder, or a link judged from its text to lead inside the start directory. */
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

/** `current`, below `.claude`, made or found a folder and no symlink. */
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
