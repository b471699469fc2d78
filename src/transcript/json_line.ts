/**
 * One raw transcript line to JSON objects, never throwing: blank lines, CRLF,
 * NUL runs left by lost writes, truncated JSON and non-objects yield nothing.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

/** Decodes UTF-8, replacing invalid sequences. */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** At most this many pieces between NUL runs are parsed, half from each end (lost writes leave one or two). */
export const MAX_LINE_PIECES = 16;

/** The plain objects on one line (without its `\n`); a NUL run (a lost write) parts pieces. */
export function parseJsonObjects(text: string): Record<string, unknown>[] {
  const trimmed = trimEdges(text);
  if (trimmed === "") return [];
  const pieces = trimmed.includes("\u0000") ? nulPieces(trimmed) : [trimmed];
  const objects: Record<string, unknown>[] = [];
  for (const piece of pieces) {
    const value = parseOrUndefined(piece.trim());
    if (isPlainObject(value)) objects.push(value);
  }
  return objects;
}

/** The pieces between NUL runs, at most {@link MAX_LINE_PIECES}. */
function nulPieces(text: string): string[] {
  const half = MAX_LINE_PIECES / 2;
  const head: string[] = [];
  let from = 0;
  while (head.length < half) {
    const nul = text.indexOf("\u0000", from);
    if (nul < 0) return [...head, text.slice(from)].filter((p) => p !== "");
    head.push(text.slice(from, nul));
    from = nul + 1;
    while (from < text.length && text.charCodeAt(from) === 0) from++;
  }
  // More to come: take the last pieces from the end, back to `from`.
  const tail: string[] = [];
  let to = text.length;
  while (tail.length < half && to > from) {
    const nul = text.lastIndexOf("\u0000", to - 1);
    const start = nul < from ? from : nul + 1;
    tail.push(text.slice(start, to));
    if (nul < from) break;
    to = nul;
    while (to > from && text.charCodeAt(to - 1) === 0) to--;
  }
  return [...head, ...tail.reverse()].filter((p) => p !== "");
}

/** Trims whitespace, NUL and BOM from both ends (an end-anchored regex scans it all). */
function trimEdges(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isEdgeJunk(text.charCodeAt(start))) start++;
  while (end > start && isEdgeJunk(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

const WHITESPACE = /\s/;

function isEdgeJunk(code: number): boolean {
  if (code === 0x20 || code === 0x00 || (code >= 0x09 && code <= 0x0d)) {
    return true;
  }
  // `\s` also covers NBSP, BOM and the Unicode spaces.
  return code >= 0x80 && WHITESPACE.test(String.fromCharCode(code));
}

function parseOrUndefined(text: string): unknown {
  if (text.charCodeAt(0) !== 0x7b /* { */) return undefined; // no object
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
