/**
 * Finds the `tool_use_id` values of an overlong line by a byte search, as
 * its bytes stream past the reader, without decoding the line.
 *
 * A clipped line is judged from its first and last bytes, but an error
 * result writes its id after the content (`type, content, is_error,
 * tool_use_id`), so a long error text followed by a long `toolUseResult`
 * puts the id in the middle. Searching raw bytes for the key is safe: inside
 * a JSON string every quote is escaped, so the bytes `"tool_use_id":"`
 * (quote, name, quote) cannot occur in content text, and a key opening
 * quote follows `{` or `,`. The same search notes whether the line holds a
 * non-empty text block (`"type":"text","text":"…`), which an assistant line
 * in the older one-line form may keep after a long thinking block.
 *
 * The search itself is the engine's: each piece is decoded as UTF-8 and
 * searched with `String.prototype.indexOf`. A byte loop in JavaScript was
 * the one piece of the hook hot enough for V8 to optimise at every stop,
 * which cost more CPU and memory (its optimising compilers) than the
 * search. Keys and ids are ASCII, so decoding changes neither what matches
 * nor what is an id; positions are counted in UTF-16 units from the piece's
 * byte offset, which keeps ids in line order.
 *
 * @module
 */

/** Invalid bytes become U+FFFD; a BOM is kept, so it stays one unit. */
const UTF8 = new TextDecoder("utf-8", { ignoreBOM: true });

/** A result's id. */
const ID_KEY = '"tool_use_id":"';
/**
 * A text block with some text: an assistant line in the older one-line
 * form may hold its reply after a long thinking block, beyond the head.
 */
const TEXT_KEY = '"type":"text","text":"';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** Ids are short; a longer "value" is no id. */
const MAX_ID_BYTES = 256;
/** Bytes kept from each end of a piece to search across piece boundaries. */
const EDGE_BYTES = ID_KEY.length + MAX_ID_BYTES + 1;

interface Edge {
  offset: number;
  bytes: Uint8Array;
}

/**
 * Collects the ids of one line from its pieces, fed in any order as long as
 * each new piece touches one already fed (forward or backward reading).
 * Every piece is searched whole, and the junction with its neighbour again,
 * so a key split between two reads is still found.
 */
export class ToolUseIdSearch {
  /** Each id with the position of its first sighting (see the module doc). */
  #ids = new Map<string, number>();
  #text = false;
  #left: Edge | null = null;
  #right: Edge | null = null;

  /**
   * Searches one piece of the line.
   *
   * @param bytes The piece; not kept beyond its edges (copied).
   * @param offset Its position (in the file, or any consistent origin).
   */
  feed(bytes: Uint8Array, offset: number): void {
    if (bytes.length === 0) return;
    this.#search(bytes, offset);
    const end = offset + bytes.length;
    const right = this.#right;
    const left = this.#left;
    const first = right === null || left === null;
    if (right && right.offset + right.bytes.length === offset) {
      const joined = join(right.bytes, bytes.subarray(0, EDGE_BYTES));
      this.#search(joined, right.offset);
      this.#right = bytes.length >= EDGE_BYTES
        ? lastEdge(bytes, offset)
        : lastEdge(join(right.bytes, bytes), right.offset);
    }
    if (left && end === left.offset) {
      const start = Math.max(0, bytes.length - EDGE_BYTES);
      this.#search(join(bytes.subarray(start), left.bytes), offset + start);
      this.#left = firstEdge(
        bytes.length >= EDGE_BYTES ? bytes : join(bytes, left.bytes),
        offset,
      );
    }
    if (first) {
      this.#left = firstEdge(bytes, offset);
      this.#right = lastEdge(bytes, offset);
    }
  }

  /** The ids found, in line order. */
  ids(): string[] {
    return [...this.#ids].sort((a, b) => a[1] - b[1]).map(([id]) => id);
  }

  /** Whether the line holds a non-empty text block anywhere. */
  hasText(): boolean {
    return this.#text;
  }

  #search(bytes: Uint8Array, origin: number): void {
    const text = UTF8.decode(bytes);
    forEachKey(text, ID_KEY, (end) => {
      const id = valueAt(text, end);
      const at = origin + end - ID_KEY.length;
      if (id !== null && at < (this.#ids.get(id) ?? Infinity)) {
        this.#ids.set(id, at);
      }
    });
    if (this.#text) return;
    forEachKey(text, TEXT_KEY, (end) => {
      // An empty text is `""`; a value cut off here is seen at the junction.
      if (end < text.length && text.charCodeAt(end) !== QUOTE) {
        this.#text = true;
      }
    });
  }
}

/**
 * Calls `found` with the index just past each occurrence of `key` in
 * `text` that opens an object key.
 */
function forEachKey(
  text: string,
  key: string,
  found: (end: number) => void,
): void {
  // From index 1: the byte before a piece's first is unknown, and the
  // junction search, which sees it, decides.
  for (let at = text.indexOf(key, 1); at >= 0; at = text.indexOf(key, at + 1)) {
    if (opensKey(text.charCodeAt(at - 1))) found(at + key.length);
  }
}

/** Whether a key's quote after this byte opens an object key. */
function opensKey(before: number): boolean {
  return before === 0x7b /* { */ || before === 0x2c /* , */ ||
    before === 0x20 || before === 0x09 || before === 0x0a || before === 0x0d;
}

/** The string value opening at `from` (after its quote), if it is id-like. */
function valueAt(text: string, from: number): string | null {
  const close = text.indexOf('"', from);
  // Cut off here (the junction search sees the whole value), or too long.
  if (close < 0 || close - from > MAX_ID_BYTES || close === from) return null;
  for (let i = from; i < close; i++) {
    const code = text.charCodeAt(i);
    // Escapes and non-ASCII bytes: no id Claude Code writes.
    if (code === BACKSLASH || code < 0x20 || code > 0x7e) return null;
  }
  return text.slice(from, close);
}

/** The first {@link EDGE_BYTES} of `bytes` (a copy), which start at `offset`. */
function firstEdge(bytes: Uint8Array, offset: number): Edge {
  return { offset, bytes: bytes.slice(0, EDGE_BYTES) };
}

/** The last {@link EDGE_BYTES} of `bytes` (a copy), which start at `offset`. */
function lastEdge(bytes: Uint8Array, offset: number): Edge {
  const start = Math.max(0, bytes.length - EDGE_BYTES);
  return { offset: offset + start, bytes: bytes.slice(start) };
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
