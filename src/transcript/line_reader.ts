/**
 * Chunked line readers over an open transcript, both ways, split on `\n`. A
 * line over `maxLineBytes` is clipped to its first and last `keepBytes` (the
 * envelope fields): a 500 MB line neither exhausts memory nor stalls the hook.
 *
 * @module
 */

import { ToolUseIdSearch } from "./_id_search.ts";
import {
  concat,
  EMPTY,
  firstOf,
  lastBytes,
  lastOf,
  leftmostInto,
} from "./_line_pieces.ts";

/** One line of a transcript, as raw bytes. */
export interface RawLine {
  offset: number;
  /** The whole line's length, without its `\n`. */
  length: number;
  /** The line's bytes, or its head when `clipped`. */
  head: Uint8Array;
  /** The line's last bytes when `clipped`, else empty. */
  tail: Uint8Array;
  /** Longer than `maxLineBytes`. */
  clipped: boolean;
  /** Clipped lines: every `tool_use_id`, those of error results, a non-empty text block (`_id_search.ts`). */
  toolUseIds?: string[];
  errorToolUseIds?: string[];
  hasTextBlock?: true;
}

/** Both readers' read size, clipping and ids kept. */
export interface LineReaderOptions {
  chunkBytes?: number;
  /** Longer lines are clipped to their first and last `keepBytes`. */
  maxLineBytes?: number;
  keepBytes?: number;
  /** The most distinct `tool_use_id`s kept for one clipped line (a caller's entries budget). */
  maxLineIds?: number;
  /** Asked before each chunk: true ends the reading (a deadline holds on gigabytes without a newline). */
  stopWhen?: () => boolean;
}

interface ForwardReaderOptions extends LineReaderOptions {
  /** A read buffer to reuse (its length is the chunk size) across files. */
  buffer?: Uint8Array;
}

/** The defaults: 64 KiB reads, lines over 1 MiB clipped to 64 KiB ends. */
export const DEFAULT_LINE_READER_OPTIONS: Readonly<
  Required<Omit<LineReaderOptions, "stopWhen">>
> = Object.freeze({
  chunkBytes: 64 * 1024,
  maxLineBytes: 1024 * 1024,
  keepBytes: 64 * 1024,
  maxLineIds: Infinity,
});

/** The part of `Deno.FsFile` the readers need (`read`: `null` at the end). */
export interface ReadableAt {
  read(buffer: Uint8Array): Promise<number | null>;
  seek(offset: number, whence: Deno.SeekMode): Promise<number>;
}

/** An open file as {@link ReadableAt}, read synchronously (an async op costs about 1 ms at start-up). */
export function syncReader(file: Deno.FsFile): ReadableAt {
  return {
    read: (buffer) => Promise.resolve(file.readSync(buffer)),
    seek: (offset, whence) => Promise.resolve(file.seekSync(offset, whence)),
  };
}

/** Fills `buffer` from `file`'s position, as far as the file goes; returns the bytes read. */
export function readFullSync(
  file: Pick<Deno.FsFile, "readSync">,
  buffer: Uint8Array,
): number {
  let filled = 0;
  while (filled < buffer.length) {
    const read = file.readSync(buffer.subarray(filled));
    if (read === null || read === 0) break;
    filled += read;
  }
  return filled;
}

const NEWLINE = 0x0a;

interface BackwardReaderOptions extends LineReaderOptions {
  /** Read at most this many bytes from the end (the line cut there is not yielded). */
  budgetBytes?: number;
}

/**
 * Yields the complete lines of `file[0, size)` newest first, reading only as
 * far as the consumer iterates; bytes after the last `\n` (an unfinished
 * write) are skipped. A line's bytes may view the reader's buffer: use them
 * before asking for the next. Requires `--allow-read`.
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
  const floor = Math.max(0, size - (options.budgetBytes ?? Infinity));
  // The line being assembled, newest chunk first.
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
    const bytes = concat(pieces.toReversed());
    const length = lineEnd - start;
    const line = dropped || length > maxLineBytes
      ? clippedLine(start, length, bytes, dropped ? tailKept : bytes, keepBytes)
      : wholeLine(start, length, bytes);
    if (line.clipped && ids) addFound(line, ids);
    pieces = [];
    pieceBytes = 0;
    dropped = false;
    tailKept = EMPTY;
    ids = null;
    return line;
  };

  const inChunkLine = (start: number, bytes: Uint8Array): RawLine => {
    const length = bytes.length;
    if (length <= maxLineBytes) return wholeLine(start, length, bytes);
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
      // Past an overlong line's middle only its leftmost bytes (the head)
      // stay, moved between two buffers: nothing is allocated per read.
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
      // Overlong from here: search what was collected, then each piece.
      ids = searchAll(pieces.toReversed(), at, { maxIds: maxLineIds });
    }
    if (pieceBytes <= maxLineBytes + keepBytes) return;
    // Keep the tail, then only the leftmost bytes (the head).
    const ordered = pieces.toReversed();
    tailKept = lastOf(ordered, keepBytes).slice();
    dropped = true;
    const head = firstOf(ordered, keepBytes).slice();
    pieces = [head];
    pieceBytes = head.length;
  }
}

/**
 * Yields the complete lines of `file` (positioned at its start) with 1-based
 * numbers, streaming; a final line without `\n` is skipped, and a line's bytes
 * may view the reader's buffer. Requires `--allow-read`.
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
      let head: Uint8Array, tail: Uint8Array = EMPTY, clipped = true;
      if (overflowed) {
        ids?.feed(piece, consumed + start);
        head = carry[0] ?? EMPTY;
        tail = lastOf([recent, piece], keepBytes);
      } else if (length > maxLineBytes) {
        const pieces = [...carry, piece];
        ids = searchAll(pieces, lineStart, searchOptions);
        head = firstOf(pieces, keepBytes);
        tail = lastOf(pieces, keepBytes);
      } else {
        head = carryBytes === 0 ? piece : concat([...carry, piece]);
        clipped = false;
      }
      // One object per line.
      const line = {
        line: lineNumber,
        offset: lineStart,
        length,
        head,
        tail,
        clipped,
      };
      if (clipped && ids) addFound(line, ids);
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

  /** Keeps what a line spanning chunks needs (`bytes` views the buffer, at `at`). */
  function appendCarry(bytes: Uint8Array, at: number): void {
    if (overflowed) {
      ids?.feed(bytes, at);
      recent = lastOf([recent, bytes], keepBytes).slice();
    } else if (carryBytes + bytes.length <= maxLineBytes) {
      carry.push(bytes.slice());
      carryBytes += bytes.length;
    } else {
      // Overlong: copy only its head and its latest bytes, never the middle.
      const pieces = [...carry, bytes];
      ids = searchAll(pieces, lineStart, searchOptions);
      recent = lastOf(pieces, keepBytes).slice();
      carry = [firstOf(pieces, keepBytes).slice()];
      overflowed = true;
    }
  }
}

function addFound(line: RawLine, search: ToolUseIdSearch): void {
  line.toolUseIds = search.ids();
  const errors = search.errorIds();
  if (errors.length > 0) line.errorToolUseIds = errors;
  if (search.hasText()) line.hasTextBlock = true;
}

/** A search fed with consecutive pieces that start at `offset`. */
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

function wholeLine(offset: number, length: number, head: Uint8Array): RawLine {
  return { offset, length, head, tail: EMPTY, clipped: false };
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
