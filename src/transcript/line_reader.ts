/**
 * Chunked line readers over an open transcript file, in both directions.
 *
 * Lines are split on `\n` only; a trailing `\r` and runs of NUL bytes at either
 * end are left for the JSON layer to trim. A line longer than `maxLineBytes`
 * is not materialised: the reader keeps its first and last `keepBytes` bytes
 * (the envelope fields Claude Code writes live there) and flags it as clipped,
 * so one 500 MB line can neither exhaust memory nor stall the hook.
 *
 * @module
 */

import { ToolUseIdSearch } from "./_id_search.ts";

/** One line of a transcript, as raw bytes. */
export interface RawLine {
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Length of the whole line in bytes, without its `\n`. */
  length: number;
  /** The line's bytes, or its head when `clipped`. */
  head: Uint8Array;
  /** The line's last bytes when `clipped`, else empty. */
  tail: Uint8Array;
  /** True when the line was longer than `maxLineBytes`. */
  clipped: boolean;
  /**
   * For a clipped line: every `tool_use_id` it holds, wherever it sits,
   * found by a byte search while the line streamed past (see `_id_search.ts`).
   */
  toolUseIds?: string[];
  /**
   * For a clipped line: those of `toolUseIds` whose result is an error
   * (`"is_error":true` right before the id).
   */
  errorToolUseIds?: string[];
  /** For a clipped line: the same search saw a non-empty text block. */
  hasTextBlock?: true;
}

/** Tuning knobs shared by both readers. */
export interface LineReaderOptions {
  /** Bytes per read call. */
  chunkBytes?: number;
  /** Lines longer than this are clipped to head and tail. */
  maxLineBytes?: number;
  /** Bytes kept at each end of a clipped line. */
  keepBytes?: number;
  /**
   * The most distinct `tool_use_id`s kept for one clipped line, counted as
   * it streams past: a caller's budget of entries. A line holding more is
   * over that budget on its own (it carries one more id than this, and the
   * rest of it is not searched), so a crafted line of millions of ids costs
   * no more memory than the budget.
   */
  maxLineIds?: number;
  /**
   * Asked before each chunk is read: true ends the reading there, as the
   * end of the file would. Lets a caller with a deadline keep it even on a
   * file of gigabytes without a newline.
   */
  stopWhen?: () => boolean;
}

/** Options of {@link readLinesForward}. */
export interface ForwardReaderOptions extends LineReaderOptions {
  /**
   * A read buffer to reuse (its length is the chunk size), so scanning
   * thousands of files does not allocate a fresh chunk for each.
   */
  buffer?: Uint8Array;
}

/**
 * The reader defaults: 64 KiB reads, lines over 1 MiB clipped to 64 KiB
 * ends, every id of a clipped line kept.
 */
export const DEFAULT_LINE_READER_OPTIONS: Readonly<
  Required<Omit<LineReaderOptions, "stopWhen">>
> = Object.freeze({
  chunkBytes: 64 * 1024,
  maxLineBytes: 1024 * 1024,
  keepBytes: 64 * 1024,
  maxLineIds: Infinity,
});

/** The part of `Deno.FsFile` the readers need; lets tests inject faults. */
export interface ReadableAt {
  /** Reads into `buffer` at the current position; `null` at end of file. */
  read(buffer: Uint8Array): Promise<number | null>;
  /** Moves the position. */
  seek(offset: number, whence: Deno.SeekMode): Promise<number>;
}

/**
 * Adapts an open file to {@link ReadableAt} with synchronous reads.
 *
 * Why: each asynchronous file op is a round trip through Deno's thread pool,
 * about a millisecond apiece at start-up; the hook makes a handful of
 * small reads and is better served by plain blocking ones.
 */
export function syncReader(file: Deno.FsFile): ReadableAt {
  return {
    read: (buffer) => Promise.resolve(file.readSync(buffer)),
    seek: (offset, whence) => Promise.resolve(file.seekSync(offset, whence)),
  };
}

const NEWLINE = 0x0a;

/** Options of {@link readLinesBackward}. */
export interface BackwardReaderOptions extends LineReaderOptions {
  /**
   * Read at most this many bytes, counted from the end: nothing before
   * `size - budgetBytes` is read, however long the line that spans it.
   */
  budgetBytes?: number;
}

/**
 * Yields the complete lines of `file[0, size)`, newest first.
 *
 * Bytes after the last `\n` are an unfinished write and are skipped. Reading
 * stops as soon as the consumer stops iterating, so the cost is proportional
 * to what the consumer asks for, not to the file's size. With a budget, the
 * line cut by the budget's edge is incomplete and is not yielded. A yielded
 * line's bytes may view the reader's buffer: use them before asking for the
 * next line.
 *
 * @param file An open file (needs `--allow-read`).
 * @param size The file's size when the scan started.
 */
export async function* readLinesBackward(
  file: ReadableAt,
  size: number,
  options: BackwardReaderOptions = {},
): AsyncGenerator<RawLine> {
  const { chunkBytes, maxLineBytes, keepBytes, maxLineIds } = {
    ...DEFAULT_LINE_READER_OPTIONS,
    ...options,
  };
  // The first byte the budget lets us read.
  const floor = Math.max(0, size - (options.budgetBytes ?? Infinity));
  // The line being assembled, as chunks collected newest first.
  let pieces: Uint8Array[] = [];
  let pieceBytes = 0;
  let lineEnd = -1; // offset of the `\n` that ends the current line
  let dropped = false; // middle bytes of an overlong line were discarded
  let tailKept: Uint8Array = new Uint8Array(0);
  let ids: ToolUseIdSearch | null = null; // set once the line is overlong
  let position = size;
  const buffer = new Uint8Array(chunkBytes);
  // The head of a line whose middle is dropped, alternating between two.
  const heads = [new Uint8Array(keepBytes), new Uint8Array(keepBytes)];

  const finishLine = (start: number): RawLine => {
    const bytes = concatReversed(pieces, pieceBytes);
    const length = lineEnd - start;
    const line = dropped || length > maxLineBytes
      ? clippedLine(start, length, bytes, dropped ? tailKept : bytes, keepBytes)
      : { offset: start, length, head: bytes, tail: EMPTY, clipped: false };
    if (line.clipped && ids) addFound(line, ids);
    pieces = [];
    pieceBytes = 0;
    dropped = false;
    tailKept = EMPTY;
    ids = null;
    return line;
  };

  const inChunkLine = (start: number, bytes: Uint8Array): RawLine => {
    if (bytes.length <= maxLineBytes) {
      return {
        offset: start,
        length: bytes.length,
        head: bytes,
        tail: EMPTY,
        clipped: false,
      };
    }
    const line = clippedLine(start, bytes.length, bytes, bytes, keepBytes);
    addFound(line, searchAll([bytes], start, { maxIds: maxLineIds }));
    return line;
  };

  while (position > floor) {
    if (options.stopWhen?.()) return;
    const readBytes = Math.min(chunkBytes, position - floor);
    position -= readBytes;
    const chunk = await readExactly(file, position, buffer, readBytes);
    let end = readBytes; // exclusive end of the unconsumed part of `chunk`
    for (;;) {
      const newline = end > 0 ? chunk.lastIndexOf(NEWLINE, end - 1) : -1;
      if (newline < 0) break;
      const absolute = position + newline;
      if (lineEnd >= 0 && pieceBytes === 0 && !dropped) {
        // The whole line is in this chunk: yield a view, copy nothing.
        yield inChunkLine(absolute + 1, chunk.subarray(newline + 1, end));
      } else if (lineEnd >= 0) {
        collect(chunk.subarray(newline + 1, end), absolute + 1);
        yield finishLine(absolute + 1);
      }
      // Anything after the file's last newline is an unfinished line: skip it.
      lineEnd = absolute;
      end = newline;
    }
    // A view: collect() copies what it keeps.
    if (lineEnd >= 0 && end > 0) collect(chunk.subarray(0, end), position);
  }
  if (lineEnd >= 0 && floor === 0) yield finishLine(0);

  /** Adds the bytes at file offset `at`, just left of those collected. */
  function collect(bytes: Uint8Array, at: number): void {
    if (bytes.length === 0) return;
    if (dropped) {
      // Past the middle of an overlong line only its leftmost bytes stay
      // (the head), moved between two buffers of a head's size: a line of
      // many megabytes allocates nothing per read (garbage buffers grew
      // the hook's memory by a read's worth each).
      ids?.feed(bytes, at);
      heads.reverse();
      const head = leftmostInto(heads[0]!, bytes, pieces[0] ?? EMPTY);
      pieces = [head];
      pieceBytes = head.length;
      return;
    }
    // `subarray` views the shared buffer, which the next read overwrites.
    pieces.push(bytes.buffer === buffer.buffer ? bytes.slice() : bytes);
    pieceBytes += bytes.length;
    if (ids) {
      ids.feed(bytes, at);
    } else if (pieceBytes > maxLineBytes) {
      // Overlong from here on: search what was collected (no byte has been
      // dropped yet), then every piece as it comes.
      ids = new ToolUseIdSearch({ maxIds: maxLineIds });
      let from = at;
      for (let i = pieces.length - 1; i >= 0; i--) {
        const piece = pieces[i] as Uint8Array;
        ids.feed(piece, from);
        from += piece.length;
      }
    }
    if (pieceBytes <= maxLineBytes + keepBytes) return;
    // Overlong line: remember its tail once, then keep only the newest-read
    // (i.e. leftmost) bytes, which become the head.
    if (!dropped) tailKept = takeTail(pieces, keepBytes);
    dropped = true;
    const head = concatReversed(pieces, pieceBytes).subarray(0, keepBytes);
    pieces = [head.slice()];
    pieceBytes = head.length;
  }
}

/**
 * Yields the complete lines of `file` from the start, with 1-based numbers.
 *
 * Used by the audit, which must stream gigabytes without holding a file in
 * memory. A final line without `\n` is skipped, as in the backward reader.
 * A yielded line's bytes may view the reader's buffer: use them before asking
 * for the next line.
 *
 * @param file An open file positioned at its start (needs `--allow-read`).
 */
export async function* readLinesForward(
  file: ReadableAt,
  options: ForwardReaderOptions = {},
): AsyncGenerator<RawLine & { line: number }> {
  const { chunkBytes, maxLineBytes, keepBytes, maxLineIds } = {
    ...DEFAULT_LINE_READER_OPTIONS,
    ...options,
  };
  // The forward reader streams whole histories: the Horspool search.
  const searchOptions = { skipping: true, maxIds: maxLineIds };
  const buffer = options.buffer ?? new Uint8Array(chunkBytes);
  let carry: Uint8Array[] = []; // pieces of a line that spans chunks
  let carryBytes = 0;
  let overflowed = false; // the carried line is longer than maxLineBytes
  let recent: Uint8Array = EMPTY; // last bytes of an overflowed line
  // Set once the line is overlong (in `appendCarry`, hence the cast).
  let ids = null as ToolUseIdSearch | null;
  let lineStart = 0;
  let consumed = 0; // file offset of buffer[0]
  let lineNumber = 0;

  for (;;) {
    if (options.stopWhen?.()) return;
    const read = await file.read(buffer);
    if (read === null || read === 0) break;
    const chunk = buffer.subarray(0, read);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline < 0) break;
      lineNumber++;
      const piece = chunk.subarray(start, newline);
      const length = consumed + newline - lineStart;
      // Built whole, with its number, so each line costs one object.
      let line: RawLine & { line: number };
      const pieceAt = consumed + start;
      if (overflowed) {
        ids?.feed(piece, pieceAt);
        line = {
          line: lineNumber,
          offset: lineStart,
          length,
          head: carry[0] ?? EMPTY,
          tail: lastOf([recent, piece], keepBytes),
          clipped: true,
        };
      } else if (length > maxLineBytes) {
        const pieces = [...carry, piece];
        ids = searchAll(pieces, lineStart, searchOptions);
        line = {
          line: lineNumber,
          offset: lineStart,
          length,
          head: firstOf(pieces, keepBytes),
          tail: lastOf(pieces, keepBytes),
          clipped: true,
        };
      } else {
        line = {
          line: lineNumber,
          offset: lineStart,
          length,
          head: carryBytes === 0 ? piece : concat([...carry, piece]),
          tail: EMPTY,
          clipped: false,
        };
      }
      if (line.clipped && ids) addFound(line, ids);
      yield line;
      carry = [];
      carryBytes = 0;
      overflowed = false;
      recent = EMPTY;
      ids = null;
      start = newline + 1;
      lineStart = consumed + start;
    }
    if (start < read) appendCarry(chunk.subarray(start), consumed + start);
    consumed += read;
  }

  /**
   * Keeps what a line spanning chunks needs; `bytes` views the buffer and
   * sits at file offset `at`.
   */
  function appendCarry(bytes: Uint8Array, at: number): void {
    if (overflowed) {
      ids?.feed(bytes, at);
      recent = lastOf([recent, bytes], keepBytes).slice();
    } else if (carryBytes + bytes.length <= maxLineBytes) {
      carry.push(bytes.slice());
      carryBytes += bytes.length;
    } else {
      // Overlong: copy only its head and its most recent bytes, never the
      // middle, so a multi-megabyte line costs no more than a scan for `\n`.
      const pieces = [...carry, bytes];
      ids = searchAll(pieces, lineStart, searchOptions);
      recent = lastOf(pieces, keepBytes).slice();
      carry = [firstOf(pieces, keepBytes).slice()];
      overflowed = true;
    }
  }
}

const EMPTY = new Uint8Array(0);

/** Puts on a clipped line what the byte search found in it. */
function addFound(line: RawLine, search: ToolUseIdSearch): void {
  line.toolUseIds = search.ids();
  const errors = search.errorIds();
  if (errors.length > 0) line.errorToolUseIds = errors;
  if (search.hasText()) line.hasTextBlock = true;
}

/**
 * A search fed with consecutive pieces that start at `offset` (see
 * `_id_search.ts` for its options).
 */
function searchAll(
  pieces: Uint8Array[],
  offset: number,
  options: ConstructorParameters<typeof ToolUseIdSearch>[0],
): ToolUseIdSearch {
  const search = new ToolUseIdSearch(options);
  let at = offset;
  for (const piece of pieces) {
    search.feed(piece, at);
    at += piece.length;
  }
  return search;
}

function clippedLine(
  offset: number,
  length: number,
  head: Uint8Array,
  tail: Uint8Array,
  keepBytes: number,
): RawLine {
  return {
    offset,
    length,
    head: head.subarray(0, keepBytes),
    tail: lastBytes(tail, keepBytes),
    clipped: true,
  };
}

function lastBytes(bytes: Uint8Array, count: number): Uint8Array {
  return bytes.length <= count ? bytes : bytes.subarray(bytes.length - count);
}

/** The first `count` bytes of pieces in file order, copying only those. */
function firstOf(pieces: Uint8Array[], count: number): Uint8Array {
  const first = pieces[0] ?? EMPTY;
  if (first.length >= count || pieces.length === 1) {
    return first.subarray(0, count);
  }
  const total = pieces.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(Math.min(count, total));
  let at = 0;
  for (const piece of pieces) {
    if (at >= out.length) break;
    const take = piece.subarray(0, out.length - at);
    out.set(take, at);
    at += take.length;
  }
  return out;
}

/** The last `count` bytes of pieces in file order, copying only those. */
function lastOf(pieces: Uint8Array[], count: number): Uint8Array {
  const last = pieces.at(-1) ?? EMPTY;
  if (last.length >= count || pieces.length === 1) {
    return lastBytes(last, count);
  }
  const total = pieces.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(Math.min(count, total));
  let at = out.length;
  for (let i = pieces.length - 1; i >= 0 && at > 0; i--) {
    const piece = pieces[i] as Uint8Array;
    const take = piece.subarray(Math.max(0, piece.length - at));
    at -= take.length;
    out.set(take, at);
  }
  return out;
}

/** Joins pieces collected newest-first (rightmost first) into file order. */
function concatReversed(pieces: Uint8Array[], total: number): Uint8Array {
  if (pieces.length === 1) return pieces[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = total;
  for (const piece of pieces) {
    at -= piece.length;
    out.set(piece, at);
  }
  return out;
}

function concat(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0] as Uint8Array;
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/**
 * The first bytes of `left` then `right` copied into `out`, as many as it
 * holds; `right` must not share `out`'s memory.
 */
function leftmostInto(
  out: Uint8Array,
  left: Uint8Array,
  right: Uint8Array,
): Uint8Array {
  const size = Math.min(out.length, left.length + right.length);
  const fromLeft = Math.min(size, left.length);
  out.set(left.subarray(0, fromLeft), 0);
  out.set(right.subarray(0, size - fromLeft), fromLeft);
  return out.subarray(0, size);
}

/** The last `count` bytes of a line collected newest-first. */
function takeTail(pieces: Uint8Array[], count: number): Uint8Array {
  const kept: Uint8Array[] = [];
  let bytes = 0;
  for (const piece of pieces) {
    kept.push(piece);
    bytes += piece.length;
    if (bytes >= count) break;
  }
  return lastBytes(concatReversed(kept, bytes), count).slice();
}

async function readExactly(
  file: ReadableAt,
  position: number,
  buffer: Uint8Array,
  count: number,
): Promise<Uint8Array> {
  await file.seek(position, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < count) {
    const read = await file.read(buffer.subarray(filled, count));
    // The file shrank under us: treat the missing bytes as blank.
    if (read === null || read === 0) {
      buffer.fill(0x20, filled, count);
      break;
    }
    filled += read;
  }
  return buffer.subarray(0, count);
}
