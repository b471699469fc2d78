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

/** Characters trimmed from both ends of a line before parsing. */
// deno-lint-ignore no-control-regex -- NUL runs are what lost writes leave
const EDGE_JUNK = /^[\s\u0000\ufeff]+|[\s\u0000]+$/g;
// deno-lint-ignore no-control-regex -- see above
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
  const trimmed = text.replace(EDGE_JUNK, "");
  if (trimmed === "") return [];
  const pieces = NUL_RUN.test(trimmed) ? trimmed.split(NUL_RUN) : [trimmed];
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

function parseOrUndefined(text: string): unknown {
  // Cheap pre-check: every transcript entry is an object.
  if (text.charCodeAt(0) !== 0x7b /* { */) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
