/**
 * Reading a client's settings file (Claude Code's `settings.json`, Codex's `hooks.json`) and
 * replacing it safely: the old content backed up, then an atomic write, in the client's folder.
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

interface SettingsFileText {
  path: string;
  exists: boolean;
  /** The content (`""` when the file does not exist). */
  text: string;
}

/** Largest settings file read (a committed link to `/dev/zero` never ends). */
const MAX_SETTINGS_FILE_BYTES = 4 * 1024 * 1024;

/**
 * A settings file's UTF-8 text (missing: empty), read as a regular file; a project's own only
 * through links that stay inside `projectDir` (item 16). Requires `--allow-read`.
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
  if (bytes === null) return { path, exists: false, text: "" };
  try {
    // Keep a byte order mark so the strict-JSON check can refuse it.
    const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
    return { path, exists: true, text: decoder.decode(bytes) };
  } catch {
    throw new InputError(`Cannot read ${path}: it is not UTF-8 text`);
  }
}

/** Whether `path` lies in `<cwd>/<root>`, where the release binary may write. */
export function isWritableHere(
  cwd: string,
  path: string,
  root: ConfinedRoot = CLAUDE_DIR,
): boolean {
  return isInside(claudeRoot(cwd, root), path);
}

interface WriteOptions {
  /** Milliseconds since the epoch, for the backup's name. */
  now: number;
  /** The content being replaced, backed up first when it existed. */
  previous: SettingsFileText;
  /** The file's and its backup's folder (default `.claude`). */
  root?: ConfinedRoot;
}

/**
 * Replaces a settings file atomically after backing up its old content to
 * `<root>/stall_watch/backups/<name>.<UTC time>.bak`, both with its permission bits (item 5).
 */
export function writeSettingsFile(
  cwd: string,
  path: string,
  text: string,
  options: WriteOptions,
): Promise<string | null> {
  const root = options.root ?? CLAUDE_DIR;
  const target = confinedPath(cwd, path, "settings file", root);
  const folder = relativePath(cwd, dirname(target));
  const dir = ensureConfinedDir(cwd, folder, "settings folder", root);
  const info = lstatOrNull(target);
  // Refused before a backup is made: stall-watch writes through no link.
  assertPlainOrMissing(target, "settings file");
  const mode = info?.mode != null ? info.mode & 0o777 : undefined;
  let backup: string | null = null;
  if (options.previous.exists) {
    // BACKUP_DIR in `root`, its own `.gitignore` checked: backups may hold an API key.
    const backupDir = `${root}/stall_watch/backups`;
    const backups = ensureOwnedDir(cwd, backupDir, "backup folder", root);
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
