/**
 * Every turn of a Codex rollout, streamed forward, shaped as Claude Code's
 * `HistoryTurn` for `audit` and `scan --all-turns`. Memory: one turn's
 * entries and the words of its newest messages.
 *
 * @module
 */

import { type Entry, entryWeight } from "../transcript/entry.ts";
import {
  type ReadableAt,
  readLinesForward,
} from "../transcript/line_reader.ts";
import { DEFAULT_SCAN_BUDGETS } from "../transcript/tail_scan.ts";
import { rolloutLineRecords } from "./_rollout_lines.ts";
import { markerEntry, type RolloutRecord } from "./_rollout_records.ts";

/** One turn of a rollout, shaped as a Claude Code history turn. */
export interface RolloutTurn {
  /** 1-based line of its `task_started`. */
  startLine: number;
  turnId: string;
  entries: Entry[];
  /** A later turn began in the same file. */
  followed: boolean;
  /** No end on file and a later turn began: Codex died in it. */
  resumedAfter?: true;
  /** Over the hook's entries budget: not judged. */
  overBudget?: true;
}

const MAX_ROLLOUT_TURN_ENTRIES = DEFAULT_SCAN_BUDGETS.entries;

/** Big reads; lines over 64 KiB judged from their ends, as in the hook. */
const ROLLOUT_HISTORY_READER_OPTIONS = Object.freeze({
  chunkBytes: 1024 * 1024,
  maxLineBytes: 64 * 1024,
  keepBytes: 16 * 1024,
  maxLineIds: MAX_ROLLOUT_TURN_ENTRIES,
});

/** Of each text a turn keeps its end: all that is judged of closing words. */
const MAX_KEPT_TEXT_CHARS = 16 * 1024;

/** How many of a turn's newest messages with words keep them. */
const MESSAGES_WITH_WORDS = 16;

const TEXT_NOT_KEPT = "(text)";

/** An open file read synchronously (a `Deno.FsFile`). */
export type SyncFile = Pick<Deno.FsFile, "readSync" | "seekSync">;

/** Options of {@link readRolloutTurns}. */
export interface RolloutHistoryOptions {
  onRead?: (bytes: number) => void;
  /** A read buffer of the reader's chunk size, reused across files. */
  buffer?: Uint8Array;
}

/**
 * Yields every turn of an open rollout in file order (moves its position). Requires `--allow-read`.
 *
 * @throws Whatever the file's reads throw (an I/O error).
 */
export async function* readRolloutTurns(
  file: SyncFile,
  options: RolloutHistoryOptions = {},
): AsyncGenerator<RolloutTurn> {
  file.seekSync(0, Deno.SeekMode.Start);
  const source: ReadableAt = {
    read: (buffer) => {
      const read = file.readSync(buffer);
      if (read !== null) options.onRead?.(read);
      return Promise.resolve(read);
    },
    seek: (offset, whence) => Promise.resolve(file.seekSync(offset, whence)),
  };
  const splitter = new RolloutTurnSplitter();
  for await (
    const raw of readLinesForward(source, {
      ...ROLLOUT_HISTORY_READER_OPTIONS,
      ...(options.buffer ? { buffer: options.buffer } : {}),
    })
  ) {
    for (const record of rolloutLineRecords(raw, raw.line)) {
      const closed = splitter.push(record);
      if (closed !== null) yield closed;
    }
  }
  const last = splitter.finish();
  if (last !== null) yield last;
}

/** Cuts a stream of records into turns (pure; fed in file order). */
export class RolloutTurnSplitter {
  #turn: RolloutTurn | null = null;
  #weight = 0;
  #ended = false;
  #worded: Entry[] = [];

  /** Takes the next record; returns the turn a `task_started` closed, else null. */
  push(record: RolloutRecord): RolloutTurn | null {
    if (record.kind === "turn_started") {
      const closed = this.#close(true);
      this.#turn = {
        startLine: record.line,
        turnId: record.turnId,
        entries: [],
        followed: false,
      };
      this.#weight = 0;
      this.#ended = false;
      this.#worded = [];
      return closed;
    }
    const turn = this.#turn;
    if (turn === null) return null; // before the first turn: the session's set-up
    const stamp = record.kind === "entry"
      ? record.turnId
      : record.turnId || null;
    if (stamp !== null && turn.turnId !== "" && stamp !== turn.turnId) {
      return null; // stamped with another turn's id
    }
    if (record.kind !== "entry") this.#ended = true;
    this.#add(record.kind === "entry" ? record.entry : markerEntry(record));
    return null;
  }

  /** The last turn, once every record was pushed. */
  finish(): RolloutTurn | null {
    return this.#close(false);
  }

  #close(followed: boolean): RolloutTurn | null {
    const turn = this.#turn;
    if (turn === null) return null;
    this.#turn = null;
    turn.followed = followed;
    if (followed && !this.#ended) turn.resumedAfter = true;
    return turn;
  }

  #add(entry: Entry): void {
    const turn = this.#turn as RolloutTurn;
    if (turn.overBudget) return;
    this.#weight += entryWeight(entry);
    if (this.#weight > MAX_ROLLOUT_TURN_ENTRIES) {
      turn.overBudget = true;
      turn.entries = [];
      this.#worded = [];
      return;
    }
    if (entry.kind === "assistant" && entry.texts.length > 0) {
      entry.texts = entry.texts.map(textEnd);
      this.#worded.push(entry);
      if (this.#worded.length > 2 * MESSAGES_WITH_WORDS) {
        const old = this.#worded.splice(
          0,
          this.#worded.length - MESSAGES_WITH_WORDS,
        );
        for (const e of old) {
          if (e.kind === "assistant") {
            e.texts = e.texts.map(() => TEXT_NOT_KEPT);
          }
        }
      }
    } else if (entry.kind === "results") {
      for (const result of entry.results) result.snippet = "";
    }
    turn.entries.push(entry);
  }
}

function textEnd(text: string): string {
  return text.length > MAX_KEPT_TEXT_CHARS
    ? text.slice(text.length - MAX_KEPT_TEXT_CHARS)
    : text;
}
