/**
 * Claude Code's end-of-turn marker: the `system` line with subtype
 * `turn_duration` it appends when a turn is over, including turns that end
 * on a tool result, where no Stop hook fires. The entry model treats it as
 * metadata; only the watchdog asks for it, and only after a known offset.
 *
 * @module
 */

import { decodeUtf8, parseJsonObjects } from "./json_line.ts";
import { readLinesForward } from "./line_reader.ts";
import { openRegularFile } from "./tail_scan.ts";

/** True for a main-transcript `turn_duration` line. */
export function isTurnEndMarker(object: Record<string, unknown>): boolean {
  return object.type === "system" && object.subtype === "turn_duration" &&
    object.isSidechain !== true;
}

/**
 * Whether a turn-end marker follows the line that starts at `offset`, among
 * the lines that end before `end`. Reads forward from that line only (the
 * few lines after a tool result); overlong lines are never markers and are
 * not parsed. Requires `--allow-read`.
 *
 * @param path The transcript.
 * @param offset Byte offset of a line start (the watched result's line).
 * @param end The file size the caller's tail scan saw: lines written since
 * belong to the next look, so the answer matches that scan.
 * @returns False also when the file is gone.
 * @throws {TranscriptError} When the path is not a regular file.
 */
export async function turnEndAfter(
  path: string,
  offset: number,
  end: number,
): Promise<boolean> {
  const file = await openRegularFile(path);
  if (!file) return false;
  try {
    await file.seek(offset, Deno.SeekMode.Start);
    let first = true;
    for await (const raw of readLinesForward(file)) {
      // The reader counts offsets from where it started.
      if (offset + raw.offset + raw.length >= end) break;
      if (first) {
        first = false; // the line at `offset` itself
        continue;
      }
      if (raw.clipped) continue;
      const text = decodeUtf8(raw.head);
      if (!text.includes("turn_duration")) continue; // skip the JSON parse
      if (parseJsonObjects(text).some(isTurnEndMarker)) return true;
    }
    return false;
  } finally {
    file.close();
  }
}
