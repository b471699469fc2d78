/**
 * Finds the `tool_use_id`s of an overlong line by a byte search as it streams
 * past (an error result writes its id after a long content), and notes a
 * non-empty text block. Inside a JSON string every quote is escaped, so
 * `"tool_use_id":"` after `{` or `,` is a key. A stop searches by `indexOf`
 * on a rare byte of the key; the Horspool loop, faster once V8 optimises it,
 * pays only over gigabytes (the audit).
 *
 * @module
 */

import { concat } from "./_line_pieces.ts";

/** A byte key: one of its rarer bytes to find it by, and its Horspool shifts. */
interface Key {
  bytes: Uint8Array;
  anchorAt: number;
  anchor: number;
  shift: Uint8Array;
}

function keyOf(text: string, anchor: string): Key {
  const bytes = new TextEncoder().encode(text);
  const anchorAt = text.indexOf(anchor);
  const shift = new Uint8Array(256).fill(bytes.length);
  for (let i = 0; i < bytes.length - 1; i++) {
    shift[bytes[i] as number] = bytes.length - 1 - i;
  }
  return { bytes, anchorAt, anchor: bytes[anchorAt] as number, shift };
}

const ID_KEY = keyOf('"tool_use_id":"', "_");
/** What an error result writes right before its id (`is_error` comes last but one). */
const ERROR_BEFORE_ID = new TextEncoder().encode('"is_error":true,');
const TEXT_KEY = keyOf('"type":"text","text":"', ",");
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Ids are short; a longer "value" is no id. */
const MAX_ID_BYTES = 256;
/** Bytes kept from each end of a piece to search across piece boundaries. */
const EDGE_BYTES = ID_KEY.bytes.length + MAX_ID_BYTES + 1;

interface Edge {
  offset: number;
  bytes: Uint8Array;
}

/**
 * Collects the ids of one line from its pieces, fed forward or backward,
 * each touching one fed before: every piece is searched whole, and its
 * junction with its neighbour again, so a key split between reads is found.
 */
export class ToolUseIdSearch {
  /** Each id with the offset of its first sighting. */
  #ids = new Map<string, number>();
  #errorIds = new Set<string>();
  #forEachKey: typeof forEachKeyByAnchor;
  #maxIds: number;
  #text = false;
  #left: Edge | null = null;
  #right: Edge | null = null;

  /**
   * `skipping`: the Horspool loop (for megabytes); `maxIds`: stop past this
   * many distinct ids (the caller's entries budget, the line alone over it).
   */
  constructor(options: { skipping?: boolean; maxIds?: number } = {}) {
    this.#forEachKey = options.skipping
      ? forEachKeyBySkipping
      : forEachKeyByAnchor;
    this.#maxIds = options.maxIds ?? Infinity;
  }

  /** The line holds more ids than `maxIds`: the search stopped there. */
  get full(): boolean {
    return this.#ids.size > this.#maxIds;
  }

  /** Searches one piece of the line (copied at its edges), at `offset`. */
  feed(bytes: Uint8Array, offset: number): void {
    if (bytes.length === 0 || this.full) return;
    this.#search(bytes, offset);
    const end = offset + bytes.length;
    const right = this.#right;
    const left = this.#left;
    const first = right === null || left === null;
    if (right && right.offset + right.bytes.length === offset) {
      const joined = concat([right.bytes, bytes.subarray(0, EDGE_BYTES)]);
      this.#search(joined, right.offset);
      this.#right = bytes.length >= EDGE_BYTES
        ? lastEdge(bytes, offset)
        : lastEdge(concat([right.bytes, bytes]), right.offset);
    }
    if (left && end === left.offset) {
      const start = Math.max(0, bytes.length - EDGE_BYTES);
      this.#search(concat([bytes.subarray(start), left.bytes]), offset + start);
      this.#left = firstEdge(
        bytes.length >= EDGE_BYTES ? bytes : concat([bytes, left.bytes]),
        offset,
      );
    }
    if (first) {
      this.#left = firstEdge(bytes, offset);
      this.#right = lastEdge(bytes, offset);
    }
  }

  /** In line order. */
  ids(): string[] {
    return [...this.#ids].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }

  /**
   * The ids of error results, in line order (a key at a piece's start is
   * judged again at the junction, where what precedes it is known).
   */
  errorIds(): string[] {
    return this.ids().filter((id) => this.#errorIds.has(id));
  }

  hasText(): boolean {
    return this.#text;
  }

  #search(bytes: Uint8Array, origin: number): void {
    this.#forEachKey(bytes, ID_KEY, (end) => {
      const id = valueAt(bytes, end);
      const start = end - ID_KEY.bytes.length;
      const at = origin + start;
      if (id !== null && at < (this.#ids.get(id) ?? Infinity)) {
        this.#ids.set(id, at);
      }
      if (id !== null && endsWith(bytes, start, ERROR_BEFORE_ID)) {
        this.#errorIds.add(id);
      }
      return this.full;
    });
    if (this.#text || this.full) return;
    this.#forEachKey(bytes, TEXT_KEY, (end) => {
      // An empty text is `""`; a value cut off here is seen at the junction.
      if (end < bytes.length && bytes[end] !== QUOTE) this.#text = true;
      return this.#text;
    });
  }
}

/**
 * Calls `found` with the index just past each occurrence of `key` as an
 * object key, found by its anchor byte, until it returns true.
 */
function forEachKeyByAnchor(
  bytes: Uint8Array,
  key: Key,
  found: (end: number) => boolean,
): void {
  const { anchor, anchorAt } = key;
  // The byte after the anchor is compared here: the comma of the text key
  // is common in content, but never followed by a bare quote there.
  const next = key.bytes[anchorAt + 1];
  for (
    let at = bytes.indexOf(anchor, anchorAt);
    at >= 0;
    at = bytes.indexOf(anchor, at + 1)
  ) {
    if (bytes[at + 1] !== next) continue;
    const start = at - anchorAt;
    if (
      matchesAt(bytes, start, key.bytes) && found(start + key.bytes.length)
    ) return;
  }
}

/** {@link forEachKeyByAnchor} with the Horspool loop. */
function forEachKeyBySkipping(
  bytes: Uint8Array,
  key: Key,
  found: (end: number) => boolean,
): void {
  const last = key.bytes.length - 1;
  const final = key.bytes[last] as number;
  let i = last;
  while (i < bytes.length) {
    const byte = bytes[i] as number;
    if (
      byte === final && matchesAt(bytes, i - last, key.bytes) && found(i + 1)
    ) return;
    i += key.shift[byte] as number;
  }
}

/** Whether `key` starts at `start` as an object key. */
function matchesAt(bytes: Uint8Array, start: number, key: Uint8Array): boolean {
  // The byte before is unknown at a piece's start: the junction search,
  // which sees it, decides.
  if (start < 1 || start + key.length > bytes.length) return false;
  for (let j = 0; j < key.length; j++) {
    if (bytes[start + j] !== key[j]) return false;
  }
  const before = bytes[start - 1];
  return before === 0x7b /* { */ || before === 0x2c /* , */ ||
    before === 0x20 || before === 0x09 || before === 0x0a || before === 0x0d;
}

function endsWith(bytes: Uint8Array, end: number, suffix: Uint8Array): boolean {
  if (end < suffix.length) return false;
  for (let j = 0; j < suffix.length; j++) {
    if (bytes[end - suffix.length + j] !== suffix[j]) return false;
  }
  return true;
}

/** The string value opening at `from` (after its quote), if it is id-like. */
function valueAt(bytes: Uint8Array, from: number): string | null {
  const limit = Math.min(bytes.length, from + MAX_ID_BYTES + 1);
  let id = "";
  for (let i = from; i < limit; i++) {
    const byte = bytes[i] as number;
    if (byte === QUOTE) return id === "" ? null : id;
    // Escapes and non-ASCII bytes: no id Claude Code writes.
    if (byte === BACKSLASH || byte < 0x20 || byte > 0x7e) return null;
    id += String.fromCharCode(byte);
  }
  return null; // cut off: the junction search sees the whole value
}

function firstEdge(bytes: Uint8Array, offset: number): Edge {
  return { offset, bytes: bytes.slice(0, EDGE_BYTES) };
}

function lastEdge(bytes: Uint8Array, offset: number): Edge {
  const start = Math.max(0, bytes.length - EDGE_BYTES);
  return { offset: offset + start, bytes: bytes.slice(start) };
}
