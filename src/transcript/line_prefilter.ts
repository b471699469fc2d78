/**
 * Byte-level checks that let a history scan skip metadata lines (snapshots,
 * titles, queue operations: about half a transcript) undecoded.
 *
 * @module
 */

/** The top-level `type`s `toEntry` reads (`attachment`: `hook_stopped_continuation`). */
const ENTRY_LINE_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  "attachment",
]);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const NUL = 0x00;
const T = 0x74, Y = 0x79, P = 0x70, E = 0x65;
const MAX_TYPE_BYTES = 64;

/**
 * A line's (or clipped head's) top-level `"type"`, by a JSON-aware walk over
 * strings and nesting; `null` when not certain. Claude Code writes the type
 * before the message: the walk usually stops within a few hundred bytes.
 */
export function topLevelType(bytes: Uint8Array): string | null {
  let i = 0;
  const end = bytes.length;
  while (i < end && isSpace(bytes[i] as number)) i++;
  if (bytes[i] !== OPEN_BRACE) return null;
  let depth = 1;
  i++;
  while (i < end) {
    const byte = bytes[i] as number;
    if (byte === QUOTE) {
      const close = stringEnd(bytes, i);
      if (close < 0) return null;
      if (depth === 1 && isTypeKey(bytes, i, close)) {
        return stringValueAfterKey(bytes, close + 1);
      }
      i = close;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return null;
    }
    i++;
  }
  return null;
}

/**
 * Whether a line (a clipped one's head and tail) is metadata: Claude Code
 * writes `type` first only there. A NUL byte may hide a second object: parsed.
 */
export function isSkippableLine(
  head: Uint8Array,
  tail: Uint8Array = head,
): boolean {
  if (!startsWith(head, TYPE_FIRST)) return false;
  const type = topLevelType(head);
  if (type === null || ENTRY_LINE_TYPES.has(type)) return false;
  return head.indexOf(NUL) < 0 && tail.indexOf(NUL) < 0;
}

const TYPE_FIRST = new TextEncoder().encode('{"type":"');

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) {
    if (bytes[i] !== prefix[i]) return false;
  }
  return true;
}

/** Index of the quote closing the string that opens at `open`, or -1. */
function stringEnd(bytes: Uint8Array, open: number): number {
  let i = open + 1;
  for (;;) {
    const close = bytes.indexOf(QUOTE, i);
    if (close < 0) return -1;
    // An odd run of backslashes before the quote escapes it.
    let slashes = 0;
    for (let j = close - 1; j > open && bytes[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return close;
    i = close + 1;
  }
}

function isTypeKey(bytes: Uint8Array, open: number, close: number): boolean {
  return close - open === 5 && bytes[open + 1] === T &&
    bytes[open + 2] === Y && bytes[open + 3] === P && bytes[open + 4] === E;
}

/** After a key's closing quote: `: "value"` -> value, else `null`. */
function stringValueAfterKey(bytes: Uint8Array, from: number): string | null {
  let i = from;
  while (i < bytes.length && isSpace(bytes[i] as number)) i++;
  if (bytes[i] !== COLON) return null;
  i++;
  while (i < bytes.length && isSpace(bytes[i] as number)) i++;
  if (bytes[i] !== QUOTE) return null;
  const close = stringEnd(bytes, i);
  if (close < 0 || close - i - 1 > MAX_TYPE_BYTES) return null;
  let value = "";
  for (let j = i + 1; j < close; j++) {
    const byte = bytes[j] as number;
    if (byte === BACKSLASH || byte > 0x7e) return null; // not a plain name
    value += String.fromCharCode(byte);
  }
  return value;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}
