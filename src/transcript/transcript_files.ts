/**
 * Finds Claude Code transcripts on disk (`<project>/<session>.jsonl`,
 * subagents' `agent-<id>.jsonl` in `<session>/subagents/` or, older, beside
 * it), and for `doctor` a project's newest session and the release it names.
 *
 * @module
 */

import { basename, join, normalize } from "../shared/paths.ts";
import { describe, InputError } from "../shared/errors.ts";
import { openRegularFile } from "../shared/regular_file.ts";
import { parseRelease, type Release } from "../claude_client/release.ts";
import { readFullSync } from "./line_reader.ts";

/** A transcript found (`mtimeMs` 0: unknown; `subagent`: a subagent's own, all sidechains). */
export interface TranscriptFile {
  path: string;
  size: number;
  mtimeMs: number;
  subagent: boolean;
}

/** A path the walk could not use, and why. */
export interface UnreadablePath {
  path: string;
  error: string;
}

/** The transcripts in path order, the paths that could not be read, how many `sinceMs` left out. */
export interface FoundTranscripts {
  files: TranscriptFile[];
  unreadable: UnreadablePath[];
  skippedOlder: number;
}

/** Whether a transcript is a subagent's (`agent-<id>.jsonl`). */
export function isSubagentTranscript(path: string): boolean {
  const name = basename(path);
  return name.startsWith("agent-") && name.endsWith(".jsonl");
}

/**
 * The folders Claude Code may keep transcripts in, as ccusage reads them:
 * `projects` under each comma-separated `CLAUDE_CONFIG_DIR`; else under
 * `$XDG_CONFIG_HOME/claude` (newer releases) and `~/.claude` (home: `HOME`,
 * or `USERPROFILE`). The caller keeps the ones that exist.
 *
 * @throws {InputError} When no variable gives a folder.
 */
export function defaultProjectsDirs(
  env: Readonly<Record<string, string>>,
): string[] {
  const configDirs = (env.CLAUDE_CONFIG_DIR ?? "").split(",")
    .map((dir) => dir.trim())
    .filter((dir) => dir !== "");
  if (configDirs.length > 0) {
    return [...new Set(configDirs.map((dir) => join(dir, "projects")))];
  }
  const home = env.HOME || env.USERPROFILE;
  if (!home) {
    throw new InputError(
      "Cannot find the projects folder: set HOME (or CLAUDE_CONFIG_DIR), or name a folder",
    );
  }
  const xdg = env.XDG_CONFIG_HOME || join(home, ".config");
  return [join(xdg, "claude", "projects"), join(home, ".claude", "projects")];
}

/**
 * Every `*.jsonl` file under `root` (or `root` itself), in path order, last
 * modified at `sinceMs` or later. Links to folders are not followed, so a
 * link cycle cannot trap the walk. Requires `--allow-read`.
 *
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
  if (info.isDirectory) walk(normalize(root), found, consider);
  else consider(normalize(root), info);
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

const SNIFF_BYTES = 64 * 1024;

/**
 * Why a file's first bytes show it is no transcript (JSON lines of objects),
 * or `null`. Only the first line counts: a crash can leave NUL runs or torn
 * lines further on; an empty file is a session just begun.
 */
function notTranscriptReason(head: Uint8Array): string | null {
  const newline = head.indexOf(0x0a);
  const line = newline === -1 ? head : head.subarray(0, newline);
  const first = line.find((b) => b !== 0x20 && b !== 0x09 && b !== 0x0d);
  if (first === undefined || first === 0x7b /* { */) return null;
  // Text has no control bytes but tab and line ends.
  const binary = head.includes(0) ||
    line.some((b) => b < 0x20 && b !== 0x09 && b !== 0x0d);
  return binary
    ? "binary data, not JSON lines"
    : "its first line is not a JSON object";
}

/**
 * Why an open file is no transcript, from its first 64 KiB, or `null`; its
 * position is put back to the start. Requires `--allow-read`.
 */
export function sniffTranscript(
  file: Pick<Deno.FsFile, "readSync" | "seekSync">,
): string | null {
  const head = new Uint8Array(SNIFF_BYTES);
  const filled = readFullSync(file, head);
  file.seekSync(0, Deno.SeekMode.Start);
  return notTranscriptReason(head.subarray(0, filled));
}

/** A project's folder under `projects`: its path, all but ASCII letters and digits as `-`. */
export function projectSlug(projectDir: string): string {
  return projectDir.replace(/[^A-Za-z0-9]/g, "-");
}

/** Bytes read from a transcript's end to find a line that names its release. */
const TAIL_BYTES = 256 * 1024;

/** The release named by the newest complete line of `text` with a `version`. */
function newestRelease(text: string): Release | null {
  const lines = text.split("\n");
  // The last piece has no newline: an unfinished write, or the cut start.
  for (let i = lines.length - 2; i >= 0; i--) {
    const line = lines[i] as string;
    if (!line.includes('"version"')) continue;
    try {
      const value = JSON.parse(line)?.version;
      const release = typeof value === "string" ? parseRelease(value) : null;
      if (release) return release;
    } catch { /* the cut first line, or a corrupt one */ }
  }
  return null;
}

/**
 * The newest session transcript of `projectDir` in any of `projectsDirs`
 * (subagents' left out), and its release; `null` when there is none.
 * Unreadable folders and files count as absent. Requires `--allow-read`.
 */
export async function projectRelease(
  projectsDirs: readonly string[],
  projectDir: string,
): Promise<{ path: string; release: Release | null } | null> {
  let newest: { path: string; mtime: number } | null = null;
  for (const dir of projectsDirs) {
    const folder = join(dir, projectSlug(projectDir));
    try {
      for await (const entry of Deno.readDir(folder)) {
        const path = join(folder, entry.name);
        if (!entry.isFile || !entry.name.endsWith(".jsonl")) continue;
        if (isSubagentTranscript(path)) continue;
        const mtime = (await Deno.stat(path)).mtime?.getTime() ?? 0;
        if (!newest || mtime > newest.mtime) newest = { path, mtime };
      }
    } catch { /* no such folder, or unreadable */ }
  }
  if (!newest) return null;
  return { path: newest.path, release: tailRelease(newest.path) };
}

function tailRelease(path: string): Release | null {
  let file: Deno.FsFile | null = null;
  try {
    // A planted FIFO or device is refused, not read (see regular_file.ts).
    file = openRegularFile(path, "transcript");
    if (file === null) return null;
    const size = file.statSync().size;
    const start = Math.max(0, size - TAIL_BYTES);
    file.seekSync(start, Deno.SeekMode.Start);
    const buffer = new Uint8Array(size - start);
    const read = readFullSync(file, buffer);
    return newestRelease(
      new TextDecoder().decode(buffer.subarray(0, read)) + "\n",
    );
  } catch {
    return null;
  } finally {
    file?.close();
  }
}
