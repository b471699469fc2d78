/**
 * Byte-level checks that let a history scan skip lines before decoding them.
 *
 * About half of a transcript's lines are metadata (snapshots, titles, queue
 * operations, attachments) that `toEntry` turns into nothing. Reading their
 * top-level `type` from the raw bytes costs a few hundred byte comparisons;
 * decoding and parsing them costs far more.
 *
 * @module
 */

/**
 * The top-level `type` values `toEntry` turns into entries (see
 * `entry.ts`); every other type is metadata. Kept in step with `toEntry` by
 * `tests/detection/history_turns_test.ts`, which checks on every fixture and on a
 * generated transcript that a skipped line never held an entry.
 */
export const ENTRY_LINE_TYPES: ReadonlySet<string> = new Set([
  "user",
  "assistant",
  "system",
  // A hook's `continue: false` (`hook_stopped_continuation`).
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
// `type` as bytes.
const T = 0x74, Y = 0x79, P = 0x70, E = 0x65;
/** Longest type value worth reading. */
const MAX_TYPE_BYTES = 64;

/**
 * The value of the line's top-level `"type"` key, read from raw bytes.
 *
 * A tiny JSON-aware walk: it follows strings (with escapes) and nesting, so
 * a `"type"` inside `message` or inside a string never counts. Claude Code
 * writes the type before the message, so the walk usually stops within the
 * first few hundred bytes.
 *
 * @param bytes The line, or the head of a clipped line.
 * @returns The type, or `null` when it cannot be read with certainty (not
 * an object, the key is missing or beyond `bytes`, a non-string value).
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
      i = close + 1;
    } else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      depth++;
      i++;
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return null;
      i++;
    } else {
      i++;
    }
  }
  return null;
}

/**
 * Whether a line can be skipped without decoding: it is a metadata entry.
 *
 * Claude Code writes metadata entries with `type` as their first key
 * (`{"type":"file-history-snapshot",...`) and conversation entries with the
 * envelope first, so a prefix check settles most lines in a few byte
 * comparisons; a line in any other shape is simply parsed. Lines with a NUL
 * byte are never skipped, since a lost write may hide a second object
 * behind the NUL run (`parseJsonObjects` splits there).
 *
 * @param head The line, or the head of a clipped line.
 * @param tail The tail of a clipped line.
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
