/**
 * Reading a client's settings file (Claude Code's `settings.json`, Codex's
 * `hooks.json`) and replacing it safely: a backup of the old content first,
 * then an atomic write, both inside the client's folder.
 *
 * @module
 */

import { basename, dirname, relativePath } from "../shared/paths.ts";
import {
  CLAUDE_DIR,
  claudeRoot,
  type ConfinedDir,
  confinedPath,
  type ConfinedRoot,
  ensureConfinedDir,
  isInside,
} from "../confined/confine.ts";
import {
  assertPlainOrMissing,
  createConfinedFile,
  ensureOwnedDir,
  lstatOrNull,
  replaceConfinedFile,
} from "../confined/confined_file.ts";
import { InputError } from "../shared/errors.ts";
import { readRegularBytes } from "../shared/regular_file.ts";

/** Where backups of edited settings files go, relative to the start directory. */
export const BACKUP_DIR = ".claude/stall_watch/backups";

/** {@link BACKUP_DIR} in `root` (`.codex/stall_watch/backups` for Codex's). */
export function backupDirOf(root: ConfinedRoot): string {
  return `${root}/stall_watch/backups`;
}

/** A settings file as read from disk. */
export interface SettingsFileText {
  path: string;
  exists: boolean;
  /** The content (`""` when the file does not exist). */
  text: string;
}

/**
 * Largest settings file read. Claude Code's are a few kilobytes; a cloned
 * repository may commit one as a symlink to `/dev/zero`, which never ends.
 */
export const MAX_SETTINGS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Reads a settings file as UTF-8, only when it is a regular file of at most
 * {@link MAX_SETTINGS_FILE_BYTES} (`shared/regular_file.ts`: a FIFO is
 * never opened, a device never read). A missing file reads as empty.
 * A project's own file (`projectDir` given) is reached only through links
 * that stay inside the project, walked from it: a committed link to
 * `/net/<host>/x` (or `\\host\share` on Windows) is refused, never
 * followed. Requires `--allow-read`.
 *
 * @param projectDir The start directory, for the project and local
 * scopes; `null` for the user's own file.
 * @throws {InputError} When it is a folder, a FIFO or device, too large,
 * unreadable, or not UTF-8.
 */
export function readSettingsFile(
  path: string,
  projectDir: string | null,
): SettingsFileText {
  const bytes = readRegularBytes(
    path,
    "settings file",
    MAX_SETTINGS_FILE_BYTES,
    projectDir === null ? {} : { inside: projectDir },
  );
  if (bytes === null) {
    return { path, exists: false, text: "" };
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
 * Whether `path` is a file this process may write: inside `<cwd>/.claude`
 * (or `<cwd>/.codex`, for Codex's files), the folders the release binary
 * can write to.
 */
export function isWritableHere(
  cwd: string,
  path: string,
  root: ConfinedRoot = CLAUDE_DIR,
): boolean {
  return isInside(claudeRoot(cwd, root), path);
}

/** Options of {@link writeSettingsFile}. */
export interface WriteOptions {
  /** Milliseconds since the epoch, for the backup's name. */
  now: number;
  /** The content being replaced, backed up first when `existed`. */
  previous: SettingsFileText;
  /** The folder the file lies in and its backup goes to (default `.claude`). */
  root?: ConfinedRoot;
}

/**
 * Replaces a settings file: backs up the previous content to
 * `.claude/stall_watch/backups/<name>.<UTC time>.bak` (with the file's
 * permission bits: a 0600 file's secrets stay 0600; the folder's own
 * `.gitignore` keeps them out of git), then writes the new text atomically
 * with the same bits. A symlink, FIFO or hard-linked file is refused, never
 * written through. Requires `--allow-read` and write access to `.claude`.
 *
 * @returns The backup's path, or `null` when there was no file to back up.
 * @throws {ConfinementError} When the file or a folder on the way is
 * outside `.claude`, or is not a plain file.
 */
export function writeSettingsFile(
  cwd: string,
  path: string,
  text: string,
  options: WriteOptions,
): Promise<string | null> {
  const root = options.root ?? CLAUDE_DIR;
  const target = confinedPath(cwd, path, "settings file", root);
  const dir = ensureConfinedDir(
    cwd,
    relativePath(cwd, dirname(target)),
    "settings folder",
    root,
  );
  const info = lstatOrNull(target);
  // Refused before a backup is made: a rename never writes through a link,
  // and stall-watch edits no file it would have to write through one.
  assertPlainOrMissing(target, "settings file");
  const mode = info?.mode != null ? info.mode & 0o777 : undefined;
  let backup: string | null = null;
  if (options.previous.exists) {
    // `.claude/stall_watch` is stall-watch's own; one made by an older
    // version has no `.gitignore` yet, a cloned repository's may say `!*`,
    // and backups may hold an API key.
    const backups = ensureOwnedDir(
      cwd,
      backupDirOf(root),
      "backup folder",
      root,
    );
    backup = writeBackup(backups, basename(target), options, mode);
  }
  replaceConfinedFile(dir, basename(target), text, "settings file", {
    ...(mode === undefined ? {} : { mode }),
  });
  return Promise.resolve(backup);
}

function writeBackup(
  dir: ConfinedDir,
  name: string,
  options: WriteOptions,
  mode: number | undefined,
): string {
  const stamp = new Date(options.now).toISOString().replace(/[-:]|\.\d+/g, "");
  const bytes = new TextEncoder().encode(options.previous.text);
  for (let n = 0;; n++) {
    const backup = `${name}.${stamp}${n ? `-${n}` : ""}.bak`;
    try {
      // createNew: never overwrite an earlier backup or follow a planted link.
      return createConfinedFile(dir, backup, bytes, "settings backup", mode);
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists) || n >= 99) throw error;
    }
  }
}
