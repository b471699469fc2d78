/**
 * Which Claude Code release a project runs, as its transcripts show: the
 * project's folder under Claude Code's `projects`, its newest session file,
 * and the `version` of that file's newest line. For `doctor`; the hook and
 * the watchdog read the release from the turn they judge.
 *
 * @module
 */

import { joinPath, NATIVE } from "../shared/paths.ts";
import { openRegularFile } from "../shared/regular_file.ts";
import { parseRelease, type Release } from "../claude_client/release.ts";
import { isSubagentTranscript } from "./transcript_files.ts";

/** The newest session transcript of a project, and the release it names. */
export interface ProjectRelease {
  /** The transcript read. */
  path: string;
  /** Its newest line's release, or `null` when no line names one. */
  release: Release | null;
}

/**
 * The folder name Claude Code gives a project under `projects`: its path
 * with every character but ASCII letters and digits replaced by `-`.
 */
export function projectSlug(projectDir: string): string {
  return projectDir.replace(/[^A-Za-z0-9]/g, "-");
}

/** Bytes read from a transcript's end to find a line that names its release. */
const TAIL_BYTES = 256 * 1024;

/**
 * The release named by the newest complete line of `text` that has a
 * top-level `version` (metadata lines may lack one), or `null`.
 */
export function newestRelease(text: string): Release | null {
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
 * The newest session transcript (by modification time, subagents' files
 * left out) of `projectDir` in any of `projectsDirs`, and its release; or
 * `null` when there is none. Requires `--allow-read`; unreadable folders
 * and files count as absent.
 */
export async function projectRelease(
  projectsDirs: readonly string[],
  projectDir: string,
): Promise<ProjectRelease | null> {
  let newest: { path: string; mtime: number } | null = null;
  for (const dir of projectsDirs) {
    const folder = joinPath(NATIVE, dir, projectSlug(projectDir));
    try {
      for await (const entry of Deno.readDir(folder)) {
        const path = joinPath(NATIVE, folder, entry.name);
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
    let read = 0;
    while (read < buffer.length) {
      const n = file.readSync(buffer.subarray(read));
      if (n === null) break;
      read += n;
    }
    return newestRelease(
      new TextDecoder().decode(buffer.subarray(0, read)) + "\n",
    );
  } catch {
    return null;
  } finally {
    file?.close();
  }
}
