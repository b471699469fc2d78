/**
 * The streaming scanner: reads a transcript from its end until the current
 * turn is complete. Its cost follows the size of the last turn, not of the
 * history; a byte budget bounds even a turn that spans a huge file.
 *
 * @module
 */

import type { Entry } from "./entry.ts";
import { clipMiddle, describe, TranscriptError } from "../shared/errors.ts";
import { lineEntries } from "./line_entries.ts";
import {
  type LineReaderOptions,
  readLinesBackward,
  syncReader,
} from "./line_reader.ts";
import { BackwardTurnCollector, type TurnOptions } from "./turn.ts";

/** The current turn as read from the end of a transcript. */
export interface TurnScan {
  /** The turn's entries in file order. */
  entries: Entry[];
  /** False when the budget ran out, or the file began, before the turn's start. */
  reachedStart: boolean;
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
  /** True when {@link ScanOptions.stopWhen} ended the scan early. */
  stopped: boolean;
}

/** Options for {@link scanCurrentTurn}. */
export interface ScanOptions extends TurnOptions, LineReaderOptions {
  /** Stop reading this many bytes before the end, even mid-turn. */
  budgetBytes?: number;
  /**
   * Asked between lines (every few hundred): true ends the scan where it is,
   * as a spent budget does. Lets a caller with a deadline keep it.
   */
  stopWhen?: () => boolean;
}

/** Lines between two calls of {@link ScanOptions.stopWhen}. */
const STOP_CHECK_LINES = 256;

/** Longest transcript path echoed in an error line. */
const MAX_PATH_CHARS = 200;

/**
 * Default scan budget. A turn longer than this is judged on its newest
 * 64 MiB: results always follow their calls, so a stall at the end of the
 * turn is still seen.
 */
export const DEFAULT_SCAN_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * How the hook reads lines: lines over 64 KiB (file reads, images, big
 * tool inputs) are judged from their first and last 16 KiB by the sniffer.
 * Decoding and parsing them whole is the largest cost of a decision, and
 * stall detection needs only their envelope.
 */
export const SCAN_LINE_OPTIONS: Readonly<LineReaderOptions> = Object.freeze({
  maxLineBytes: 64 * 1024,
  keepBytes: 16 * 1024,
});

/**
 * Reads the current turn from the end of `path`.
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
  const file = await openRegularFile(path);
  if (!file) return null;
  try {
    const fileSize = file.statSync().size;
    const budget = options.budgetBytes ?? DEFAULT_SCAN_BUDGET_BYTES;
    const collector = new BackwardTurnCollector(options);
    let bytesScanned = 0;
    let endOffset = -1;
    let stopped = false;
    let lines = 0;
    for await (
      const raw of readLinesBackward(syncReader(file), fileSize, {
        ...SCAN_LINE_OPTIONS,
        ...options,
      })
    ) {
      bytesScanned = fileSize - raw.offset;
      if (endOffset < 0) endOffset = raw.offset + raw.length + 1;
      const entries = lineEntries(raw);
      let done = false;
      for (let i = entries.length - 1; i >= 0 && !done; i--) {
        done = collector.offer(entries[i] as Entry);
      }
      if (done || bytesScanned >= budget) break;
      if (++lines % STOP_CHECK_LINES === 0 && options.stopWhen?.()) {
        stopped = true;
        break;
      }
    }
    return {
      entries: collector.entries(),
      reachedStart: collector.complete,
      fileSize,
      bytesScanned,
      endOffset: endOffset < 0 ? fileSize : endOffset,
      stopped,
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

/**
 * Opens `path` for reading if it is a regular file.
 *
 * Checks with `stat` first: opening a FIFO would block the hook forever.
 *
 * @returns The open file, or `null` when it does not exist.
 * @throws {TranscriptError} For directories, FIFOs, devices and read errors.
 */
export function openRegularFile(
  path: string,
): Deno.FsFile | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new TranscriptError(
      `Cannot read transcript "${clipMiddle(path, MAX_PATH_CHARS)}": ${
        describe(error)
      }`,
    );
  }
  if (!info.isFile) {
    const what = info.isDirectory ? "a directory" : "not a regular file";
    throw new TranscriptError(
      `Cannot read transcript "${
        clipMiddle(path, MAX_PATH_CHARS)
      }": it is ${what}`,
    );
  }
  try {
    return Deno.openSync(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw new TranscriptError(
      `Cannot read transcript "${clipMiddle(path, MAX_PATH_CHARS)}": ${
        describe(error)
      }`,
    );
  }
}
