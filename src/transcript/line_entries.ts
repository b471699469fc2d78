/**
 * The bridge from raw line bytes to normalised entries.
 *
 * @module
 */

import { type Entry, toEntry } from "./entry.ts";
import { sniffEntry } from "./_entry_sniff.ts";
import { decodeUtf8, parseJsonObjects } from "./json_line.ts";
import type { RawLine } from "./line_reader.ts";

/**
 * The entries on one raw line, in file order (usually zero or one).
 *
 * Overlong lines are sniffed from their head and tail instead of parsed.
 *
 * @param raw A line from one of the line readers.
 * @param lineNumber Its 1-based number, or 0 when unknown.
 */
export function lineEntries(raw: RawLine, lineNumber = 0): Entry[] {
  const at = { offset: raw.offset, line: lineNumber };
  if (raw.clipped) {
    const entry = sniffEntry(
      decodeUtf8(raw.head),
      decodeUtf8(raw.tail),
      at,
      raw,
    );
    return entry ? [entry] : [];
  }
  const entries: Entry[] = [];
  for (const object of parseJsonObjects(decodeUtf8(raw.head))) {
    const entry = toEntry(object, at);
    if (entry) entries.push(entry);
  }
  return entries;
}
