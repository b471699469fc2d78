/**
 * Turns one raw transcript line into JSON values without ever throwing.
 *
 * Real transcripts hold blank lines, CRLF endings, runs of NUL bytes left by
 * lost writes, truncated JSON and values that are not objects. Each of those
 * yields nothing rather than an error.
 *
 * @module
 */

const decoder = new TextDecoder("utf-8", { fatal: false, ignoreBOM: false });

// deno-lint-ignore no-control-regex -- NUL runs are what lost writes leave
const NUL_RUN = /\u0000+/;

/** Decodes bytes as UTF-8, replacing invalid sequences instead of failing. */
export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Parses the JSON objects on one line, in file order.
 *
 * A run of NUL bytes inside a line usually marks a lost write followed by a
 * good one, so the pieces between NUL runs are parsed separately.
 *
 * @param text One line, without its `\n`.
 * @returns The plain objects found; arrays, strings and numbers are dropped.
 */
export function parseJsonObjects(text: string): Record<string, unknown>[] {
  const trimmed = trimEdges(text);
  if (trimmed === "") return [];
  const pieces = trimmed.includes("\u0000")
    ? trimmed.split(NUL_RUN)
    : [trimmed];
  const objects: Record<string, unknown>[] = [];
  for (const piece of pieces) {
    const value = parseOrUndefined(piece.trim());
    if (isPlainObject(value)) objects.push(value);
  }
  return objects;
}

/** True for a non-null, non-array object. */
export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Trims whitespace, NUL and BOM characters from both ends. A loop over the
 * ends only: an anchored-at-end regex would scan the whole line.
 */
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
  // Cheap pre-check: every transcript entry is an object.
  if (text.charCodeAt(0) !== 0x7b /* { */) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
