/**
 * Reads a transcript from its end until the current turn is complete, so the
 * cost follows the last turn, not the history, within budgets.
 *
 * @module
 */

import { type Entry, entryWeight } from "./entry.ts";
import { clipMiddle, describe, TranscriptError } from "../shared/errors.ts";
import {
  openRegularFile,
  UnreadableFileError,
} from "../shared/regular_file.ts";
import { decodeUtf8, parseJsonObjects } from "./json_line.ts";
import { lineEntries } from "./line_entries.ts";
import { topLevelType } from "./line_prefilter.ts";
import {
  type LineReaderOptions,
  type RawLine,
  type ReadableAt,
  readLinesBackward,
  readLinesForward,
  syncReader,
} from "./line_reader.ts";
import { BackwardTurnCollector, type TurnOptions } from "./_backward_turn.ts";
import { isTurnEndMarker } from "./turn_rule.ts";

/** The budgets of one tail scan. */
export interface ScanBudgets {
  /** Bytes read from the end of the file. */
  bytes: number;
  /** Lines examined, blank and unparsable ones included. */
  lines: number;
  /** Entries collected, each tool call and result counting as one. */
  entries: number;
}

export type ScanBudgetName = keyof ScanBudgets;

/** The default budgets: a longer turn is judged on its newest part, where a stall found is real. */
export const DEFAULT_SCAN_BUDGETS: Readonly<ScanBudgets> = Object.freeze({
  bytes: 64 * 1024 * 1024,
  lines: 250_000,
  entries: 50_000,
});

/** The current turn as read from the end of a transcript. */
export interface TurnScan {
  /** In file order. */
  entries: Entry[];
  /** False when a budget ran out, or the file began, before the turn's start. */
  reachedStart: boolean;
  /** Offset of the line that showed where the turn starts. */
  startOffset: number | null;
  /** The entry at `startOffset` (a prompt, command, ...). */
  opener: Entry | null;
  /** The budget that ran out before the turn's start. */
  budget: ScanBudgetName | null;
  /** When the scan started. */
  fileSize: number;
  bytesScanned: number;
  /** Where the newest complete line ends (else the size): where a follower goes on. */
  endOffset: number;
  /** The `stopWhen` option ended the scan early. */
  stopped: boolean;
  /** An end-of-turn line (`turn_duration`) follows the turn's newest entry. */
  endedOnFile: boolean;
}

interface ScanOptions extends TurnOptions, LineReaderOptions {
  budgets?: Partial<ScanBudgets>;
}

const MAX_PATH_CHARS = 200;

/**
 * How the hook reads lines: one over 64 KiB (a file read, an image) is sniffed
 * from its ends (parsing it whole was a decision's largest cost).
 */
export const SCAN_LINE_OPTIONS: Readonly<LineReaderOptions> = Object.freeze({
  maxLineBytes: 64 * 1024,
  keepBytes: 16 * 1024,
  maxLineIds: DEFAULT_SCAN_BUDGETS.entries,
});

/**
 * The current turn from the end of `path`, within the budgets; `null` when
 * the file does not exist. Requires `--allow-read`.
 *
 * @throws {TranscriptError} When the path is not a regular file or cannot be read.
 */
export async function scanCurrentTurn(
  path: string,
  options: ScanOptions,
): Promise<TurnScan | null> {
  const file = openTranscript(path);
  if (!file) return null;
  try {
    const fileSize = file.statSync().size;
    const budgets = { ...DEFAULT_SCAN_BUDGETS, ...options.budgets };
    const collector = new BackwardTurnCollector(options);
    let bytesScanned = 0;
    let endOffset = -1;
    let lines = 0;
    let entryCount = 0;
    let budget: ScanBudgetName | null = null;
    let done = false;
    // Lines newer than the turn's newest entry are looked at for its end.
    let beforeFirstEntry = true;
    let endedOnFile = false;
    for await (
      const raw of readLinesBackward(syncReader(file), fileSize, {
        ...SCAN_LINE_OPTIONS,
        ...options,
        budgetBytes: budgets.bytes,
        // One line of more results than the budget is over it on its own.
        maxLineIds: options.maxLineIds ?? budgets.entries,
      })
    ) {
      bytesScanned = fileSize - raw.offset;
      if (endOffset < 0) endOffset = raw.offset + raw.length + 1;
      const entries = lineEntries(raw);
      if (beforeFirstEntry) {
        if (
          entries.some((e) =>
            e.kind !== "turn_end" && (!e.sidechain || options.includeSidechains)
          )
        ) {
          beforeFirstEntry = false;
        } else if (!endedOnFile) endedOnFile = isTurnEndLine(raw);
      }
      for (let i = entries.length - 1; i >= 0 && !done; i--) {
        const entry = entries[i] as Entry;
        done = collector.offer(entry);
        entryCount += entryWeight(entry);
      }
      if (done) break;
      if (++lines >= budgets.lines) budget = "lines";
      else if (entryCount >= budgets.entries) budget = "entries";
      if (budget !== null) {
        // Out of budget behind a found start: the turn itself is whole.
        if (collector.complete) budget = null;
        break;
      }
    }
    // The reader ran out: at the file's start, its byte budget, or `stopWhen`.
    const ranOut = !done && budget === null;
    const cut = ranOut && options.stopWhen?.() === true;
    const stopped = cut && !collector.complete;
    if (ranOut && !cut && fileSize > budgets.bytes) {
      if (!collector.complete) budget = "bytes";
      bytesScanned = budgets.bytes;
    } else if (ranOut && !cut) {
      collector.fileStart();
    }
    return {
      // Entries a late prompt line came after lead the turn (2.1.47, 2.1.145).
      entries: collector.entries(),
      reachedStart: collector.complete,
      startOffset: collector.startOffset,
      opener: collector.opener,
      budget,
      fileSize,
      bytesScanned,
      endOffset: endOffset < 0 ? fileSize : endOffset,
      stopped,
      endedOnFile,
    };
  } catch (error) {
    throw new TranscriptError(
      `Cannot read transcript "${clipMiddle(path, MAX_PATH_CHARS)}": ${
        describe(error)
      }`,
    );
  } finally {
    file.close();
  }
}

/** What a reader found in the lines appended. */
export interface AppendedLines {
  /** A line that can change a scan of the current turn was appended. */
  changed: boolean;
  /** Where the last complete line read ends: the next call goes on from here. */
  to: number;
}

export interface AppendedLinesOptions
  extends Pick<TurnOptions, "includeSidechains"> {
  /** Bytes read at most (a lag wait gives it the look's byte budget). */
  maxBytes?: number;
  /** Checked before each read: the wait's deadline has come. */
  stopWhen?: () => boolean;
}

/**
 * Whether a line appended to `path` from `from` on `matters` (any client's
 * lines), and where the read stopped, within `options`' byte budget and
 * deadline; `null` when the file is gone or unreadable. Requires `--allow-read`.
 */
export async function appendedLinesMatching(
  path: string,
  from: number,
  options: AppendedLinesOptions,
  matters: (raw: RawLine) => boolean,
): Promise<AppendedLines | null> {
  const file = openTranscriptOrNull(path);
  if (!file) return null;
  try {
    const reader = boundedReader(file, options.maxBytes);
    await reader.seek(from, Deno.SeekMode.Start);
    let to = from;
    const lines = readLinesForward(reader, {
      ...SCAN_LINE_OPTIONS,
      ...(options.stopWhen ? { stopWhen: options.stopWhen } : {}),
    });
    for await (const raw of lines) {
      // The reader counts offsets from where it was put.
      to = from + raw.offset + raw.length + 1;
      if (matters(raw)) return { changed: true, to };
    }
    return { changed: false, to };
  } catch {
    return null;
  } finally {
    file.close();
  }
}

/**
 * What detection asks of a client's transcript: its current turn as entries,
 * and whether lines that matter were appended since. A second client's
 * reader slots in beside {@link claudeCodeReader}.
 *
 * @example
 * ```ts
 * const scan = await claudeCodeReader.currentTurn(path, {
 *   promptId: null,
 *   includeSidechains: false,
 * });
 * if (scan !== null) console.log(scan.entries.length, scan.reachedStart);
 * ```
 */
export interface TranscriptReader {
  /** The current turn of `path`, or `null` when the file does not exist. */
  currentTurn(path: string, options: ScanOptions): Promise<TurnScan | null>;
  /** Whether lines that can change the current turn were appended since `from` (a scan's `endOffset`, the last `to`). */
  appended(
    path: string,
    from: number,
    options: AppendedLinesOptions,
  ): Promise<AppendedLines | null>;
}

/** Claude Code's transcript reader: an appended entry or end-of-turn line matters, not metadata. */
export const claudeCodeReader: TranscriptReader = {
  currentTurn: scanCurrentTurn,
  appended: (path, from, options) =>
    appendedLinesMatching(path, from, options, (raw) =>
      isTurnEndLine(raw) ||
      lineEntries(raw).some((e) => !e.sidechain || options.includeSidechains)),
};

/** A reader that ends, as at the file's end, once `exhausted` or `stopped`. */
interface BoundedReader extends ReadableAt {
  exhausted: boolean;
  stopped: boolean;
  bytesRead: number;
}

/**
 * Reads `file` from where it stands until `budget` bytes or `stopWhen()`:
 * a look at a growing transcript stays short.
 */
export function boundedReader(
  file: Deno.FsFile,
  budget: number = Infinity,
  stopWhen: () => boolean = () => false,
): BoundedReader {
  const reader: BoundedReader = {
    exhausted: false,
    stopped: false,
    bytesRead: 0,
    read(buffer) {
      reader.exhausted = reader.bytesRead >= budget;
      reader.stopped = !reader.exhausted && stopWhen();
      if (reader.exhausted || reader.stopped) return Promise.resolve(null);
      const room = Math.min(buffer.length, budget - reader.bytesRead);
      const read = file.readSync(buffer.subarray(0, room));
      if (read !== null) reader.bytesRead += read;
      return Promise.resolve(read);
    },
    seek: (offset, whence) => Promise.resolve(file.seekSync(offset, whence)),
  };
  return reader;
}

function isTurnEndLine(raw: RawLine): boolean {
  if (raw.clipped || topLevelType(raw.head) !== "system") return false;
  return parseJsonObjects(decodeUtf8(raw.head)).some(isTurnEndMarker);
}

/**
 * Opens a transcript (`null` when absent): a regular file only, checked again
 * once open, so a FIFO never blocks the hook.
 *
 * @throws {TranscriptError} For directories, FIFOs, devices and read errors.
 */
export function openTranscript(path: string): Deno.FsFile | null {
  try {
    return openRegularFile(path, "transcript");
  } catch (error) {
    if (error instanceof UnreadableFileError) {
      throw new TranscriptError(error.message);
    }
    throw error;
  }
}

/** {@link openTranscript}, or `null` where it would throw. */
export function openTranscriptOrNull(path: string): Deno.FsFile | null {
  try {
    return openTranscript(path);
  } catch {
    return null;
  }
}
