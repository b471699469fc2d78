/**
 * The streaming scanner: reads a transcript from its end until the current
 * turn is complete. Its cost follows the size of the last turn, not of the
 * history; a byte budget bounds even a turn that spans a huge file.
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

/** The budgets of one tail scan; see {@link DEFAULT_SCAN_BUDGETS}. */
export interface ScanBudgets {
  /** Bytes read, counted from the end of the file. */
  bytes: number;
  /** Lines examined, blank and unparsable ones included. */
  lines: number;
  /** Entries collected, each tool call and tool result counting as one. */
  entries: number;
}

/** Which scan budget ran out before the turn's start was found. */
export type ScanBudgetName = keyof ScanBudgets;

/**
 * The default budgets. A turn longer than any of them is judged on its
 * newest part: results always follow their calls, so a stall found there is
 * real; what lies before it (an older unanswered call) is not seen, and the
 * hook says so when it allows such a stop.
 */
export const DEFAULT_SCAN_BUDGETS: Readonly<ScanBudgets> = Object.freeze({
  bytes: 64 * 1024 * 1024,
  lines: 250_000,
  entries: 50_000,
});

/** The current turn as read from the end of a transcript. */
export interface TurnScan {
  /** The turn's entries in file order. */
  entries: Entry[];
  /** False when a budget ran out, or the file began, before the turn's start. */
  reachedStart: boolean;
  /**
   * Offset of the line that showed where the turn starts (see
   * `BackwardTurnCollector.startOffset`), or null when not reached.
   */
  startOffset: number | null;
  /** The entry at `startOffset` (a prompt, command, ...), or null. */
  opener: Entry | null;
  /** The budget that ran out before the turn's start, or `null`. */
  budget: ScanBudgetName | null;
  /** Size of the file when the scan started. */
  fileSize: number;
  /** Bytes examined from the end. */
  bytesScanned: number;
  /**
   * Where the newest complete line ends (just past its `\n`), or the file
   * size when the scan saw no complete line: the place a reader that follows
   * the file's growth continues from.
   */
  endOffset: number;
  /** True when the `stopWhen` option ended the scan early. */
  stopped: boolean;
  /**
   * Claude Code's end-of-turn line (`turn_duration`) comes after the turn's
   * newest entry: the turn on file is over, its Stop hooks already ran.
   */
  endedOnFile: boolean;
}

/** Options for {@link scanCurrentTurn}. */
export interface ScanOptions extends TurnOptions, LineReaderOptions {
  /** Budgets to use instead of {@link DEFAULT_SCAN_BUDGETS}. */
  budgets?: Partial<ScanBudgets>;
}

/** Longest transcript path echoed in an error line. */
const MAX_PATH_CHARS = 200;

/**
 * How the hook reads lines: lines over 64 KiB (file reads, images, big
 * tool inputs) are judged from their first and last 16 KiB by the sniffer.
 * Decoding and parsing them whole is the largest cost of a decision, and
 * stall detection needs only their envelope. The ids of such a line count
 * against the entries budget while it streams past: a line holding more
 * results than the whole budget stops being searched there.
 */
export const SCAN_LINE_OPTIONS: Readonly<LineReaderOptions> = Object.freeze({
  maxLineBytes: 64 * 1024,
  keepBytes: 16 * 1024,
  maxLineIds: DEFAULT_SCAN_BUDGETS.entries,
});

/**
 * Reads the current turn from the end of `path`, within the budgets.
 *
 * Requires `--allow-read`.
 *
 * @returns The turn, or `null` when the file does not exist (no evidence).
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
    // Lines newer than the turn's newest entry: only metadata (and records
    // of a turn's end), looked at for an end-of-turn line.
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
    // The reader ran out: at the file's start, at its byte budget, or
    // where `stopWhen` (asked before each chunk) ended it early.
    const ranOut = !done && budget === null;
    const cut = ranOut && options.stopWhen?.() === true;
    const stopped = cut && !collector.complete;
    if (ranOut && !cut && fileSize > budgets.bytes) {
      // Short of the file's start: a turn whose start was not found is
      // judged on its newest part.
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

/** What {@link appendedTurnLines} found in the lines appended. */
export interface AppendedLines {
  /** A line that can change a scan of the current turn was appended. */
  changed: boolean;
  /**
   * Where the last complete line it examined ends: the next call goes on
   * from here, so appended metadata is read once, not at every poll.
   */
  to: number;
}

/** Options of {@link appendedTurnLines}. */
export interface AppendedLinesOptions
  extends Pick<TurnOptions, "includeSidechains"> {
  /** Bytes read at most (a lag wait gives it the look's byte budget). */
  maxBytes?: number;
  /** Checked before each read: stop, the wait's deadline has come. */
  stopWhen?: () => boolean;
}

/**
 * Whether the lines appended to `path` from `from` on hold anything that can
 * change a scan of its current turn: a conversation entry, or an
 * end-of-turn line. Metadata alone (progress, snapshots, queue operations)
 * does not, so a lag wait need not read the whole turn again for it. A line
 * still being written is not looked at: the next look sees it whole. The
 * read ends at `maxBytes` or when `stopWhen` says so: a file that keeps
 * growing, or one append of gigabytes, cannot keep it reading.
 *
 * Requires `--allow-read`.
 *
 * @param from Where the last scan's newest complete line ended
 * (`TurnScan.endOffset`), or where the last call's read stopped
 * (`AppendedLines.to`).
 * @returns `null` when the file is gone or cannot be read.
 */
export function appendedTurnLines(
  path: string,
  from: number,
  options: AppendedLinesOptions,
): Promise<AppendedLines | null> {
  return appendedLinesMatching(
    path,
    from,
    options,
    (raw) =>
      isTurnEndLine(raw) ||
      lineEntries(raw).some((e) => !e.sidechain || options.includeSidechains),
  );
}

/**
 * Whether a line appended to `path` from `from` on `matters`, and where the
 * read stopped, within `options`' byte budget and deadline: the reading of
 * {@link appendedTurnLines}, for any client's lines. Requires `--allow-read`.
 *
 * @returns `null` when the file is gone or cannot be read.
 */
export async function appendedLinesMatching(
  path: string,
  from: number,
  options: AppendedLinesOptions,
  matters: (raw: RawLine) => boolean,
): Promise<AppendedLines | null> {
  let file: Deno.FsFile | null;
  try {
    file = openTranscript(path);
  } catch {
    return null;
  }
  if (!file) return null;
  try {
    const reader = cappedReader(syncReader(file), options.maxBytes);
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
 * What detection asks of a client's transcript: its current turn, read from
 * the end as entries (`entry.ts`), and whether lines that matter were
 * appended since. Detection judges entries only, so a second client's
 * reader slots in beside {@link claudeCodeReader}.
 */
export interface TranscriptReader {
  /**
   * The current turn of `path`, or `null` when the file does not exist.
   *
   * @throws {TranscriptError} When the file cannot be read.
   */
  currentTurn(path: string, options: ScanOptions): Promise<TurnScan | null>;
  /**
   * Whether lines appended from `from` on can change the current turn, and
   * where the read stopped (within `options`' byte budget and deadline);
   * `null` when the file is gone or cannot be read.
   */
  appended(
    path: string,
    from: number,
    options: AppendedLinesOptions,
  ): Promise<AppendedLines | null>;
}

/** Claude Code's transcript, read by this folder. */
export const claudeCodeReader: TranscriptReader = {
  currentTurn: scanCurrentTurn,
  appended: appendedTurnLines,
};

/** `reader`, reading at most `maxBytes` (none: no cap). */
function cappedReader(
  reader: ReadableAt,
  maxBytes: number | undefined,
): ReadableAt {
  if (maxBytes === undefined) return reader;
  let left = maxBytes;
  return {
    seek: (offset, whence) => reader.seek(offset, whence),
    async read(buffer) {
      if (left <= 0) return null;
      const read = await reader.read(
        buffer.subarray(0, Math.min(buffer.length, left)),
      );
      if (read !== null) left -= read;
      return read;
    },
  };
}

/** Whether a raw line is Claude Code's end-of-turn line. */
function isTurnEndLine(raw: RawLine): boolean {
  if (raw.clipped || topLevelType(raw.head) !== "system") return false;
  return parseJsonObjects(decodeUtf8(raw.head)).some(isTurnEndMarker);
}

/**
 * Opens a transcript for reading, by the shared rule for files someone
 * else wrote (`shared/regular_file.ts`): a regular file only, checked again
 * once open, so a FIFO never blocks the hook.
 *
 * @returns The open file, or `null` when it does not exist.
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
