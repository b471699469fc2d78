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
import { type AnnouncedStop, announcedStop } from "./announcement.ts";
import { ForwardTurnSplitter, type SplitTurn } from "../transcript/turn.ts";
import { modelActs } from "../transcript/turn_rule.ts";

/** Reader tuning for history scans: big reads, small lines parsed whole. */
export const HISTORY_READER_OPTIONS = Object.freeze({
  chunkBytes: 1024 * 1024,
  maxLineBytes: 4 * 1024,
  keepBytes: 2 * 1024,
});

/** Clipped non-user lines up to this size are read again and parsed. */
const REREAD_MAX_BYTES = DEFAULT_LINE_READER_OPTIONS.maxLineBytes;

/** One turn of a transcript's history. */
export interface HistoryTurn {
  /** 1-based line of the prompt or command that opened it (else its first entry). */
  startLine: number;
  /** Its entries in file order, with 1-based line numbers. */
  entries: Entry[];
  /** A later turn began in the same file: this one had ended. */
  followed: boolean;
  /**
   * The next turn opens with Claude Code's resume filler (see
   * {@link opensWithResume}): the process died during this one.
   */
  resumedAfter?: true;
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
  });
  const reader = readLinesForward(source, {
    ...HISTORY_READER_OPTIONS,
    ...(options.buffer ? { buffer: options.buffer } : {}),
  });
  // A turn is yielded once the next one is known: how that one opens may
  // say how this one ended.
  let held: SplitTurn | null = null;
  for await (const raw of reader) {
    for (const entry of historyLineEntries(raw, source)) {
      const closed = splitter.push(entry);
      if (closed.length === 0) continue;
      for (const turn of closed) {
        if (held !== null) yield historyTurn(held, turn);
        held = turn;
      }
    }
  }
  for (const turn of splitter.finish()) {
    if (held !== null) yield historyTurn(held, turn);
    held = turn;
  }
  if (held !== null) yield historyTurn(held, null);
}

function historyTurn(turn: SplitTurn, next: SplitTurn | null): HistoryTurn {
  return {
    startLine: turn.startLine,
    entries: turn.entries,
    followed: next !== null,
    ...(next !== null && opensWithResume(next)
      ? { resumedAfter: true as const }
      : {}),
  };
}

/**
 * Whether `turn`'s lines written ahead of its opener (see `turn_rule.ts`)
 * hold the filler Claude Code writes when it resumes a conversation that
 * stopped in the middle of a turn (see {@link isResumeFiller}): the turn
 * before it had died. From 2.1.281 the result Claude Code gives the call
 * that was running comes with it (`[Tool call interrupted: ...]`, stamped
 * with the new prompt's promptId).
 */
export function opensWithResume(turn: SplitTurn): boolean {
  return turn.entries.some((e) => e.line < turn.startLine && isResumeFiller(e));
}

/**
 * Claude Code's `<synthetic>` entry without words (`No response
 * requested.`): it writes it when it resumes a conversation whose last
 * message is no model reply (a result, a prompt), i.e. one that stopped in
 * the middle of a turn.
 */
function isResumeFiller(entry: Entry): boolean {
  return entry.kind === "assistant" && entry.synthetic === true &&
    entry.apiError !== true && entry.texts.length === 0 &&
    entry.toolUses.length === 0;
}

/**
 * Whether a turn shows that it ended, as opposed to a file captured while
 * its turn was still running:
 *
 * - `ended`: a later turn began, or after the model's last activity came a
 *   record of the turn's end (`stop_hook_summary`, `turn_duration`, 1.0.x's
 *   Stop hook line), an interrupt, another hook's `continue: false`, or
 *   Claude Code's API-error entry;
 * - `process_died`: after the model's last activity Claude Code resumed the
 *   session (its `Continue from where you left off.`, or its resume filler
 *   `No response requested.`, in the turn or written ahead of the next
 *   turn's opener, see {@link opensWithResume}): its process had died in
 *   the middle of the turn;
 * - `no_end`: none of that (the session hung, or the file was committed,
 *   copied or killed mid-turn).
 *
 * A subagent's file holds no record of its end (its end shows in the
 * parent's result), so it counts as ended.
 */
export type TurnEnding = "ended" | "process_died" | "no_end";

/** How `turn` ended (see {@link TurnEnding}). */
export function turnEnding(turn: HistoryTurn, subagent: boolean): TurnEnding {
  const entries = turn.entries;
  const last = entries.findLastIndex((e) => modelActs([e]));
  const after = entries.slice(last + 1);
  // Lines written ahead of the turn's opener are the turn before's.
  const resumed = after.some((e) =>
    e.line > turn.startLine &&
    (isResumeFiller(e) || (e.kind === "note" && e.source === "resume"))
  );
  if (resumed || turn.resumedAfter === true) {
    return "process_died";
  }
  if (turn.followed || subagent) return "ended";
  const ends = after.some((e) =>
    e.kind === "turn_end" || e.kind === "interrupt" ||
    e.kind === "hook_stop" ||
    (e.kind === "assistant" && e.apiError === true)
  );
  return ends ? "ended" : "no_end";
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
  /** 1-based line of its last entry (its start line when it has none). */
  endLine: number;
  /** The classifier's verdict; signature lines are 1-based. */
  verdict: TurnVerdict;
  /** Whether the file shows that the turn ended (see {@link TurnEnding}). */
  ending: TurnEnding;
  /**
   * The announcement a main transcript's turn ended on without a call
   * (`announced_no_call`, see `announcement.ts`), when it did.
   */
  announced?: AnnouncedStop;
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
    yield historyVerdict(turn, options.subagent);
  }
}

/**
 * One history turn judged: the classifier's verdict, whether it ended,
 * and (in a main transcript, as the hook judges a main thread's Stop) the
 * announcement it ended on.
 */
export function historyVerdict(
  turn: HistoryTurn,
  subagent: boolean,
): HistoryVerdict {
  const verdict = classifyTurn(turn.entries, HISTORY_CONTEXT);
  const announced = subagent ? null : announcedStop(
    turn.entries,
    HISTORY_CONTEXT,
    verdict.signatures.length > 0,
  );
  return {
    startLine: turn.startLine,
    endLine: turn.entries.at(-1)?.line ?? turn.startLine,
    verdict,
    ending: turnEnding(turn, subagent),
    ...(announced ? { announced } : {}),
  };
}

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
  if (!raw.clipped) return lineEntries(raw, raw.line);
  if (topLevelType(raw.head) === "user" || raw.length > REREAD_MAX_BYTES) {
    return lineEntries(raw, raw.line);
  }
  const whole: RawLine = {
    offset: raw.offset,
    length: raw.length,
    head: file.reread(raw.offset, raw.length),
    tail: new Uint8Array(0),
    clipped: false,
  };
  return lineEntries(whole, raw.line);
}

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
