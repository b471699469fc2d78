/**
 * Finds Claude Code transcripts on disk: the projects folder, its layout
 * (`<project>/<session>.jsonl`, subagents in
 * `<project>/<session>/subagents/agent-<id>.jsonl`, older ones in
 * `<project>/agent-<id>.jsonl`) and the files a walk cannot read.
 *
 * @module
 */

import { basename, join, resolve } from "node:path";
import { describe, InputError } from "../shared/errors.ts";

/** One transcript file found. */
export interface TranscriptFile {
  path: string;
  size: number;
  /** Last modification, milliseconds since the epoch (0 when unknown). */
  mtimeMs: number;
  /** A subagent's own transcript (every entry is a sidechain). */
  subagent: boolean;
}

/** A path the walk could not use, and why. */
export interface UnreadablePath {
  path: string;
  error: string;
}

/** What a walk found. */
export interface FoundTranscripts {
  /** Transcripts in path order. */
  files: TranscriptFile[];
  /** Folders and `.jsonl` entries that could not be read. */
  unreadable: UnreadablePath[];
  /** Transcripts left out by the `sinceMs` filter. */
  skippedOlder: number;
}

/**
 * Whether a transcript belongs to a subagent: Claude Code names those
 * `agent-<id>.jsonl` (in `<session>/subagents/`, or next to the main file in
 * older versions).
 */
export function isSubagentTranscript(path: string): boolean {
  const name = basename(path);
  return name.startsWith("agent-") && name.endsWith(".jsonl");
}

/**
 * The default audit folder: `projects` under `CLAUDE_CONFIG_DIR`, else under
 * `~/.claude` (home from `HOME`, or `USERPROFILE` on Windows).
 *
 * @throws {InputError} When neither variable gives a folder.
 */
export function defaultProjectsDir(
  env: Readonly<Record<string, string>>,
): string {
  if (env.CLAUDE_CONFIG_DIR) return join(env.CLAUDE_CONFIG_DIR, "projects");
  const home = env.HOME || env.USERPROFILE;
  if (!home) {
    throw new InputError(
      "Cannot find the projects folder: set HOME (or CLAUDE_CONFIG_DIR), or name a folder",
    );
  }
  return join(home, ".claude", "projects");
}

/**
 * Every `*.jsonl` file under `root` (or `root` itself when it is a file),
 * in path order. Symlinks to files are followed; symlinks to folders are
 * not, so a link cycle cannot trap the walk. Requires `--allow-read`.
 *
 * @param root A folder or a single transcript.
 * @param sinceMs Leave out files last modified before this time.
 * @throws {InputError} When `root` does not exist or cannot be read.
 */
export function findTranscripts(
  root: string,
  sinceMs: number | null = null,
): FoundTranscripts {
  const found: FoundTranscripts = {
    files: [],
    unreadable: [],
    skippedOlder: 0,
  };
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(root);
  } catch (error) {
    const why = error instanceof Deno.errors.NotFound
      ? "it does not exist"
      : describe(error);
    throw new InputError(`Cannot audit "${root}": ${why}`);
  }
  const consider = (path: string, file: Deno.FileInfo) => {
    if (!file.isFile) {
      found.unreadable.push({ path, error: "not a regular file" });
      return;
    }
    const mtimeMs = file.mtime?.getTime() ?? 0;
    if (sinceMs !== null && mtimeMs < sinceMs) {
      found.skippedOlder++;
      return;
    }
    found.files.push({
      path,
      size: file.size,
      mtimeMs,
      subagent: isSubagentTranscript(path),
    });
  };
  if (info.isDirectory) walk(resolve(root), found, consider);
  else consider(resolve(root), info);
  return found;
}

function walk(
  dir: string,
  found: FoundTranscripts,
  consider: (path: string, info: Deno.FileInfo) => void,
): void {
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (error) {
    found.unreadable.push({ path: dir, error: describe(error) });
    return;
  }
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      walk(path, found, consider);
      continue;
    }
    if (!entry.name.endsWith(".jsonl")) continue;
    try {
      consider(path, Deno.statSync(path));
    } catch (error) {
      found.unreadable.push({ path, error: describe(error) });
    }
  }
}
