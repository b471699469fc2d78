/**
 * Reading a Claude Code settings file and replacing it safely: a backup of
 * the old content first, then an atomic write, both inside `.claude`.
 *
 * @module
 */

import { basename, dirname, join, relative } from "node:path";
import { writeFileAtomic } from "../confined/atomic_write.ts";
import {
  assertFileConfined,
  claudeRoot,
  confinedPath,
  ensureConfinedDir,
  isInside,
} from "../confined/confine.ts";
import { describe, InputError } from "../shared/errors.ts";

/** Where backups of edited settings files go, relative to the start directory. */
export const BACKUP_DIR = ".claude/stall_watch/backups";

/** A settings file as read from disk. */
export interface SettingsFileText {
  path: string;
  exists: boolean;
  /** The content (`""` when the file does not exist). */
  text: string;
}

/**
 * Reads a settings file as UTF-8. A missing file reads as empty. Requires
 * `--allow-read`.
 *
 * @throws {InputError} When it is a folder, unreadable, or not UTF-8.
 */
export async function readSettingsFile(
  path: string,
): Promise<SettingsFileText> {
  let bytes: Uint8Array;
  try {
    bytes = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      return { path, exists: false, text: "" };
    }
    throw new InputError(`Cannot read ${path}: ${describe(error)}`);
  }
  try {
    // Keep a byte order mark so the strict-JSON check can refuse it.
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    return { path, exists: true, text: decoder.decode(bytes) };
  } catch {
    throw new InputError(`Cannot read ${path}: it is not UTF-8 text`);
  }
}

/**
 * Whether `path` is a file this process may write: inside `<cwd>/.claude`,
 * the only folder the release binary can write to.
 */
export function isWritableHere(cwd: string, path: string): boolean {
  return isInside(claudeRoot(cwd), path);
}

/** Options of {@link writeSettingsFile}. */
export interface WriteOptions {
  /** Milliseconds since the epoch, for the backup's name. */
  now: number;
  /** The content being replaced, backed up first when `existed`. */
  previous: SettingsFileText;
}

/**
 * Replaces a settings file: backs up the previous content to
 * `.claude/stall_watch/backups/<name>.<UTC time>.bak`, then writes the new
 * text atomically, keeping the file's permission bits (a symlink that stays
 * inside `.claude` is written through instead). Requires `--allow-read` and write access to
 * `.claude`.
 *
 * @returns The backup's path, or `null` when there was no file to back up.
 * @throws {ConfinementError} When the file or a folder on the way is
 * outside `.claude`.
 */
export async function writeSettingsFile(
  cwd: string,
  path: string,
  text: string,
  options: WriteOptions,
): Promise<string | null> {
  const target = confinedPath(cwd, path, "settings file");
  await ensureConfinedDir(
    cwd,
    relative(cwd, dirname(target)),
    "settings folder",
  );
  await assertFileConfined(cwd, target, "settings file");
  let backup: string | null = null;
  if (options.previous.exists) {
    const dir = await ensureConfinedDir(cwd, BACKUP_DIR, "backup folder");
    backup = await writeBackup(dir, basename(target), options);
  }
  const info = options.previous.exists ? await Deno.lstat(target) : null;
  if (info?.isSymlink) {
    // A rename would replace the link itself; write through it instead (it
    // was checked to stay inside `.claude`).
    await Deno.writeTextFile(target, text);
    return backup;
  }
  await writeFileAtomic(target, text);
  if (info?.mode != null && Deno.build.os !== "windows") {
    await Deno.chmod(target, info.mode & 0o7777);
  }
  return backup;
}

async function writeBackup(
  dir: string,
  name: string,
  options: WriteOptions,
): Promise<string> {
  const stamp = new Date(options.now).toISOString().replace(/[-:]|\.\d+/g, "");
  const bytes = new TextEncoder().encode(options.previous.text);
  for (let n = 0;; n++) {
    const path = join(dir, `${name}.${stamp}${n ? `-${n}` : ""}.bak`);
    try {
      // createNew: never overwrite an earlier backup or follow a planted link.
      await Deno.writeFile(path, bytes, { createNew: true });
      return path;
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists) || n >= 99) throw error;
    }
  }
}
