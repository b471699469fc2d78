/**
 * A history scan's lines as entries in fixed memory: metadata skipped, a
 * clipped `user` line sniffed, other clipped lines up to 1 MiB parsed again.
 *
 * @module
 */

import type { AssistantEntry, Entry } from "../transcript/entry.ts";
import { lineEntries } from "../transcript/line_entries.ts";
import { isSkippableLine, topLevelType } from "../transcript/line_prefilter.ts";
import {
  DEFAULT_LINE_READER_OPTIONS,
  type RawLine,
  type ReadableAt,
  readFullSync,
} from "../transcript/line_reader.ts";
import { DEFAULT_SCAN_BUDGETS } from "../transcript/tail_scan.ts";
import { launchWords } from "./background_tasks.ts";
import { MAX_TEXT_CHARS as MAX_JUDGED_TEXT_CHARS } from "./_model_text.ts";

/** The most entries a history turn may hold (the hook's budget); a longer one is not judged. */
export const MAX_HISTORY_TURN_ENTRIES = DEFAULT_SCAN_BUDGETS.entries;

/** 1 MiB reads, lines to 4 KiB parsed whole. */
export const HISTORY_READER_OPTIONS = Object.freeze({
  chunkBytes: 1024 * 1024,
  maxLineBytes: 4 * 1024,
  keepBytes: 2 * 1024,
  // One line of more results than a turn may hold is over it on its own.
  maxLineIds: MAX_HISTORY_TURN_ENTRIES,
});

/** Clipped non-user lines up to this size are read again and parsed. */
const REREAD_MAX_BYTES = DEFAULT_LINE_READER_OPTIONS.maxLineBytes;

/** An open file read synchronously. */
export type SyncFile = Pick<Deno.FsFile, "readSync" | "seekSync">;

/** The entries on one line of a forward history scan. */
export function historyLineEntries(
  raw: RawLine & { line: number },
  file: SyncSource,
): Entry[] {
  if (isSkippableLine(raw.head, raw.clipped ? raw.tail : raw.head)) return [];
  if (
    !raw.clipped || topLevelType(raw.head) === "user" ||
    raw.length > REREAD_MAX_BYTES
  ) {
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

/** `entries` keeping only the words a history judges: texts' ends, results' launches. */
function withoutTexts(entries: Entry[]): Entry[] {
  for (const entry of entries) {
    if (entry.kind === "assistant") {
      entry.texts = entry.texts.map((t) => t.slice(-MAX_JUDGED_TEXT_CHARS));
    } else if (entry.kind === "results") {
      for (const result of entry.results) {
        result.snippet = launchWords(result.snippet);
      }
    }
  }
  return entries;
}

const TEXT_NOT_KEPT = "(text)";

/** Newest messages that keep their words (a history judges the final message's and last call's). */
const MESSAGES_WITH_WORDS = 16;

/** Keeps the words of the newest {@link MESSAGES_WITH_WORDS} entries with text; older ones get a stand-in. */
export class RecentWords {
  #kept: AssistantEntry[] = [];

  /** A turn closed: its entries are never touched again. */
  forget(): void {
    this.#kept = [];
  }

  keep(entry: Entry): void {
    if (entry.kind !== "assistant" || entry.texts.length === 0) return;
    this.#kept.push(entry);
    if (this.#kept.length <= 2 * MESSAGES_WITH_WORDS) return;
    const old = this.#kept.splice(0, this.#kept.length - MESSAGES_WITH_WORDS);
    for (const e of old) e.texts = e.texts.map(() => TEXT_NOT_KEPT);
  }
}

/** A {@link ReadableAt} over synchronous reads that can re-read a range without disturbing the stream. */
export class SyncSource implements ReadableAt {
  #file: SyncFile;
  #position = 0;
  #moved = true; // the file's position may differ from #position
  #onRead: ((bytes: number) => void) | undefined;

  /** `onRead`: called with the bytes of each read. */
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

  /** Reads `length` bytes at `offset` again (fewer if the file shrank). */
  reread(offset: number, length: number): Uint8Array {
    this.#moved = true;
    const bytes = new Uint8Array(length);
    this.#file.seekSync(offset, Deno.SeekMode.Start);
    return bytes.subarray(0, readFullSync(this.#file, bytes));
  }
}
