/**
 * Every turn of a transcript, streamed forward from its first line: what the
 * audit and `scan --all-turns` read. Gigabyte files pass through a fixed
 * amount of memory, and most of their bytes are never decoded.
 *
 * Lines are read in 1 MiB chunks with synchronous reads (no thread hop per
 * chunk). Complete lines of at most 4 KiB are parsed unless their top-level
 * type marks them as metadata. Longer lines are clipped by the reader: a
 * `user` line (a tool result, a pasted file) is judged from its first and
 * last 2 KiB by the sniffer, which is where its ids and markers live; any
 * other clipped line of at most 1 MiB is read again and parsed, so the calls
 * and texts of an assistant message are never guessed. Beyond 1 MiB every
 * line is sniffed, exactly as in the hook.
 *
 * @module
 */

import {
  type ClassifyContext,
  classifyTurn,
  type TurnVerdict,
} from "./classify.ts";
import type { Entry } from "../transcript/entry.ts";
import { lineEntries } from "../transcript/line_entries.ts";
import { isSkippableLine, topLevelType } from "../transcript/line_prefilter.ts";
import {
  DEFAULT_LINE_READER_OPTIONS,
  type RawLine,
  type ReadableAt,
  readLinesForward,
} from "../transcript/line_reader.ts";
import { ForwardTurnSplitter } from "../transcript/turn.ts";
import { DEFAULT_SCAN_BUDGETS } from "../transcript/tail_scan.ts";

/**
 * The most entries one history turn may hold, weighted as the hook weighs
 * them (each tool call and result counts): the hook's own entries budget.
 * A longer turn is not judged (the hook would not judge it either), and
 * its entries are let go as they come, so a crafted turn of millions of
 * lines costs no more memory than this many.
 */
export const MAX_HISTORY_TURN_ENTRIES = DEFAULT_SCAN_BUDGETS.entries;

/** Reader tuning for history scans: big reads, small lines parsed whole. */
export const HISTORY_READER_OPTIONS = Object.freeze({
  chunkBytes: 1024 * 1024,
  maxLineBytes: 4 * 1024,
  keepBytes: 2 * 1024,
  // One line of more results than a turn may hold is over it on its own.
  maxLineIds: MAX_HISTORY_TURN_ENTRIES,
});

/** Clipped non-user lines up to this size are read again and parsed. */
const REREAD_MAX_BYTES = DEFAULT_LINE_READER_OPTIONS.maxLineBytes;

/** One turn of a transcript's history. */
export interface HistoryTurn {
  /** 1-based line of the prompt or boundary that opened it (else its first entry). */
  startLine: number;
  /** Its entries in file order, with 1-based line numbers. */
  entries: Entry[];
  /**
   * It held more than {@link MAX_HISTORY_TURN_ENTRIES}: its entries were
   * let go (`entries` is empty) and it is not judged.
   */
  overBudget?: true;
}

/** Options for {@link readHistoryTurns}. */
export interface HistoryOptions {
  /** The file is a subagent transcript: its sidechain entries count. */
  subagent: boolean;
  /** Called with the number of bytes after each read, for progress. */
  onRead?: (bytes: number) => void;
  /**
   * A read buffer of {@link HISTORY_READER_OPTIONS}' chunk size to reuse
   * across files (one scan at a time).
   */
  buffer?: Uint8Array;
}

/** An open file read synchronously: `read`, `seek` and positioned re-reads. */
export interface SyncFile {
  readSync(buffer: Uint8Array): number | null;
  seekSync(offset: number, whence: Deno.SeekMode): number;
}

/**
 * Yields every turn of an open transcript in file order.
 *
 * Requires `--allow-read`. The file's position is moved.
 *
 * @param file An open file (a `Deno.FsFile`).
 * @throws Whatever the file's reads throw (an I/O error).
 */
export async function* readHistoryTurns(
  file: SyncFile,
  options: HistoryOptions,
): AsyncGenerator<HistoryTurn> {
  const source = new SyncSource(file, options.onRead);
  const splitter = new ForwardTurnSplitter({
    includeSidechains: options.subagent,
    maxTurnEntries: MAX_HISTORY_TURN_ENTRIES,
  });
  const closedTurn = (entries: Entry[]): HistoryTurn => ({
    startLine: splitter.closedTurnStartLine,
    entries,
    ...(splitter.closedTurnOverBudget ? { overBudget: true as const } : {}),
  });
  const reader = readLinesForward(source, {
    ...HISTORY_READER_OPTIONS,
    ...(options.buffer ? { buffer: options.buffer } : {}),
  });
  for await (const raw of reader) {
    for (const entry of historyLineEntries(raw, source)) {
      const closed = splitter.push(entry);
      if (closed) yield closedTurn(closed);
    }
  }
  const last = splitter.finish();
  if (last) yield closedTurn(last);
}

/**
 * How history turns are classified: no background work is known, and a
 * call the model moved on from is not a stall (see `ClassifyContext`).
 */
export const HISTORY_CONTEXT: ClassifyContext = Object.freeze({
  backgroundTasks: [],
  ignoreSupersededCalls: true,
});

/** One classified turn of a transcript's history. */
export interface HistoryVerdict {
  /** See {@link HistoryTurn.startLine}. */
  startLine: number;
  /** The classifier's verdict; signature lines are 1-based. */
  verdict: TurnVerdict;
  /** See {@link HistoryTurn.overBudget}: the verdict says it was not judged. */
  overBudget?: true;
}

/**
 * Yields the verdict of every turn of an open transcript, in file order:
 * {@link readHistoryTurns} through the shared classifier. Requires
 * `--allow-read`.
 */
export async function* readHistoryVerdicts(
  file: SyncFile,
  options: HistoryOptions,
): AsyncGenerator<HistoryVerdict> {
  for await (const turn of readHistoryTurns(file, options)) {
    yield {
      startLine: turn.startLine,
      verdict: turn.overBudget ? OVER_BUDGET : classifyTurn(
        turn.entries,
        HISTORY_CONTEXT,
      ),
      ...(turn.overBudget ? { overBudget: true as const } : {}),
    };
  }
}

/** The verdict of a turn past {@link MAX_HISTORY_TURN_ENTRIES}. */
const OVER_BUDGET: TurnVerdict = Object.freeze({
  signatures: [],
  reason: `not judged: the turn holds more than ${
    MAX_HISTORY_TURN_ENTRIES.toLocaleString("en-US")
  } entries (the hook's entries budget)`,
});

/** Reads a byte range of a file again (for clipped lines worth parsing). */
export interface LineRereader {
  reread(offset: number, length: number): Uint8Array;
}

/**
 * The entries on one line of a forward history scan (see the module notes).
 *
 * @param raw A line from {@link readLinesForward} with the history options.
 * @param file Where to read a clipped line again.
 */
export function historyLineEntries(
  raw: RawLine & { line: number },
  file: LineRereader,
): Entry[] {
  if (isSkippableLine(raw.head, raw.clipped ? raw.tail : raw.head)) return [];
  if (!raw.clipped) return withoutTexts(lineEntries(raw, raw.line));
  if (topLevelType(raw.head) === "user" || raw.length > REREAD_MAX_BYTES) {
    return withoutTexts(lineEntries(raw, raw.line));
  }
  const whole: RawLine = {
    offset: raw.offset,
    length: raw.length,
    head: file.reread(raw.offset, raw.length),
    tail: new Uint8Array(0),
    clipped: false,
  };
  return withoutTexts(lineEntries(whole, raw.line));
}

/**
 * `entries` without the words they carry: the history's classifier asks
 * only whether a message had text, and links no result to background work
 * (see {@link HISTORY_CONTEXT}), so a turn of long texts holds none of them
 * while it is read.
 */
function withoutTexts(entries: Entry[]): Entry[] {
  for (const entry of entries) {
    if (entry.kind === "assistant") {
      entry.texts = entry.texts.map(() => TEXT_NOT_KEPT);
    } else if (entry.kind === "results") {
      for (const result of entry.results) result.snippet = "";
    }
  }
  return entries;
}

/** What stands for a text a history entry had. */
const TEXT_NOT_KEPT = "(text)";

/**
 * A {@link ReadableAt} over synchronous reads that can also re-read a range;
 * it keeps its own position, so a re-read never disturbs the stream.
 */
class SyncSource implements ReadableAt, LineRereader {
  #file: SyncFile;
  #position = 0;
  #moved = true; // the file's position may differ from #position
  #onRead: ((bytes: number) => void) | undefined;

  constructor(file: SyncFile, onRead?: (bytes: number) => void) {
    this.#file = file;
    this.#onRead = onRead;
  }

  read(buffer: Uint8Array): Promise<number | null> {
    if (this.#moved) this.#file.seekSync(this.#position, Deno.SeekMode.Start);
    this.#moved = false;
    const read = this.#file.readSync(buffer);
    if (read !== null) {
      this.#position += read;
      this.#onRead?.(read);
    }
    return Promise.resolve(read);
  }

  seek(offset: number): Promise<number> {
    this.#position = offset;
    this.#moved = true;
    return Promise.resolve(offset);
  }

  reread(offset: number, length: number): Uint8Array {
    this.#moved = true;
    const bytes = new Uint8Array(length);
    this.#file.seekSync(offset, Deno.SeekMode.Start);
    let filled = 0;
    while (filled < length) {
      const read = this.#file.readSync(bytes.subarray(filled));
      if (read === null || read === 0) break; // the file shrank: blank rest
      filled += read;
    }
    return bytes.subarray(0, filled);
  }
}
