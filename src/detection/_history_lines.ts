/**
 * A history scan's lines as entries in fixed memory, most bytes never
 * decoded: metadata skipped by type, a clipped `user` line sniffed from its
 * ends, any other clipped line up to 1 MiB read again and parsed (an
 * assistant message's calls are never guessed); beyond, sniffed as in the hook.
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

/**
 * The most entries one history turn may hold, weighted as the hook weighs
 * them: the hook's own budget. A longer turn is not judged, and its entries
 * are let go as they come.
 */
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
 * `entries` with only the words a history judges: each text's end (the
 * closing words `_model_text.ts` reads), each result's background launch.
 */
function withoutTexts(entries: Entry[]): Entry[] {
  for (const entry of entries) {
    if (entry.kind === "assistant") {
      entry.texts = entry.texts.map(textEnd);
    } else if (entry.kind === "results") {
      for (const result of entry.results) {
        result.snippet = launchWords(result.snippet);
      }
    }
  }
  return entries;
}

function textEnd(text: string): string {
  return text.length > MAX_JUDGED_TEXT_CHARS
    ? text.slice(text.length - MAX_JUDGED_TEXT_CHARS)
    : text;
}

const TEXT_NOT_KEPT = "(text)";

/**
 * How many of the newest model messages with words keep them: a history
 * judges the words of a turn's final message and its last call's, no older.
 */
const MESSAGES_WITH_WORDS = 16;

/**
 * Keeps the words of only the newest {@link MESSAGES_WITH_WORDS} entries with
 * text of the turn being read (older ones keep a stand-in).
 */
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

/**
 * A {@link ReadableAt} over synchronous reads that can also re-read a range,
 * keeping its own position so a re-read never disturbs the stream.
 */
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
