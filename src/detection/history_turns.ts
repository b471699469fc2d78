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
import {
  type AssistantEntry,
  type Entry,
  isModelActivity,
} from "../transcript/entry.ts";
import { lineEntries } from "../transcript/line_entries.ts";
import { isSkippableLine, topLevelType } from "../transcript/line_prefilter.ts";
import {
  DEFAULT_LINE_READER_OPTIONS,
  type RawLine,
  type ReadableAt,
  readLinesForward,
} from "../transcript/line_reader.ts";
import { type AnnouncedStop, announcedStop } from "./announcement.ts";
import { agentReturn } from "./_agent_return.ts";
import { launchWords } from "./background_launch.ts";
import { MAX_TEXT_CHARS as MAX_JUDGED_TEXT_CHARS } from "./_model_text.ts";
import { ForwardTurnSplitter, type SplitTurn } from "../transcript/turn.ts";
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
  /**
   * Where the file is: for a subagent's, {@link readHistoryVerdicts} reads
   * its parent's file beside it when its last turn looks stalled (see
   * `agent_running` in {@link TurnEnding}).
   */
  path?: string;
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
  const reader = readLinesForward(source, {
    ...HISTORY_READER_OPTIONS,
    ...(options.buffer ? { buffer: options.buffer } : {}),
  });
  // A turn is yielded once the next one is known: how that one opens may
  // say how this one ended.
  let held: SplitTurn | null = null;
  const words = new RecentWords();
  for await (const raw of reader) {
    for (const entry of historyLineEntries(raw, source)) {
      words.keep(entry);
      const closed = splitter.push(entry);
      if (closed.length === 0) continue;
      words.forget();
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
    ...(turn.overBudget ? { overBudget: true as const } : {}),
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
 *   copied or killed mid-turn);
 * - `agent_running`: a subagent's last turn whose parent's file shows no
 *   return of it (see `_agent_return.ts`): the parent was still waiting for
 *   it when the session ended.
 *
 * A subagent's file holds no record of its end (its end shows in the
 * parent's result), so it counts as ended unless its parent's file says
 * otherwise.
 */
export type TurnEnding = "ended" | "process_died" | "no_end" | "agent_running";

/** How `turn` ended (see {@link TurnEnding}). */
export function turnEnding(turn: HistoryTurn, subagent: boolean): TurnEnding {
  const entries = turn.entries;
  const last = entries.findLastIndex(isModelActivity);
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
 * How history turns of a main transcript are classified: no background
 * work is known (see `ClassifyContext`).
 */
export const HISTORY_CONTEXT: ClassifyContext = Object.freeze({
  backgroundTasks: [],
});

/** How a subagent transcript's turns are classified. */
const SUBAGENT_HISTORY_CONTEXT: ClassifyContext = Object.freeze({
  backgroundTasks: [],
  subagent: true,
});

/**
 * What a history turn comes to: the one answer `scan --all-turns` and
 * `audit` both give (see {@link turnOutcome}).
 *
 * - `stalled`: the hook would block it at its end, and the file shows that
 *   it ended;
 * - `unfinished`: it would be blocked, but nothing shows that it ended
 *   ({@link TurnEnding}): no stall, since no Stop fired there;
 * - `not_judged`: over the entries budget;
 * - `healthy`: anything else (an API-error ending no nudge can fix among
 *   them).
 */
export type TurnOutcome = "stalled" | "unfinished" | "not_judged" | "healthy";

/** What a turn comes to, from its verdict and its ending. */
export function turnOutcome(
  turn: Pick<HistoryVerdict, "verdict" | "ending" | "overBudget">,
): TurnOutcome {
  if (turn.overBudget) return "not_judged";
  if (turn.verdict.signatures.length === 0) return "healthy";
  return turn.ending === "ended" ? "stalled" : "unfinished";
}

/**
 * Whether a turn counts as announced, then stopped: it ended on an
 * announcement, and the file shows that it ended.
 */
export function countsAsAnnounced(turn: HistoryVerdict): boolean {
  return turn.announced !== undefined && turn.ending === "ended";
}

/** One classified turn of a transcript's history. */
export interface HistoryVerdict {
  /** See {@link HistoryTurn.startLine}. */
  startLine: number;
  /** 1-based line of its first line on file (a late entry may lead). */
  firstLine: number;
  /** 1-based line of its last entry (its start line when it has none). */
  endLine: number;
  /** The classifier's verdict; signature lines are 1-based. */
  verdict: TurnVerdict;
  /** Whether the file shows that the turn ended (see {@link TurnEnding}). */
  ending: TurnEnding;
  /** What the turn comes to (see {@link TurnOutcome}). */
  outcome: TurnOutcome;
  /**
   * The announcement a main transcript's turn ended on without a call
   * (`announced_no_call`, see `announcement.ts`), when it did.
   */
  announced?: AnnouncedStop;
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
    const judged = historyVerdict(turn, options.subagent);
    // A subagent's last turn ends where its parent got its return.
    if (
      options.subagent && options.path !== undefined && !turn.followed &&
      judged.outcome === "stalled" &&
      await agentReturn(options.path) === "waiting"
    ) {
      yield { ...judged, ending: "agent_running", outcome: "unfinished" };
    } else {
      yield judged;
    }
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
  if (turn.overBudget) {
    return {
      startLine: turn.startLine,
      firstLine: turn.startLine,
      endLine: turn.startLine,
      verdict: OVER_BUDGET,
      ending: turn.followed ? "ended" : "no_end",
      outcome: "not_judged",
      overBudget: true,
    };
  }
  const verdict = classifyTurn(
    turn.entries,
    subagent ? SUBAGENT_HISTORY_CONTEXT : HISTORY_CONTEXT,
  );
  const announced = subagent ? null : announcedStop(
    turn.entries,
    HISTORY_CONTEXT,
    verdict.signatures.length > 0,
  );
  const ending = turnEnding(turn, subagent);
  let firstLine = turn.startLine;
  for (const entry of turn.entries) firstLine = Math.min(firstLine, entry.line);
  return {
    startLine: turn.startLine,
    firstLine,
    endLine: turn.entries.at(-1)?.line ?? turn.startLine,
    verdict,
    ending,
    outcome: turnOutcome({ verdict, ending }),
    ...(announced ? { announced } : {}),
  };
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
 * `entries` with only the words a history judges: of each text its end
 * (the closing words are what `_model_text.ts` reads), of each result's
 * snippet only a background launch with its id (see `launchWords`).
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

/** The end of a text that a history keeps, at most {@link MAX_KEPT_TEXT_CHARS}. */
function textEnd(text: string): string {
  return text.length > MAX_KEPT_TEXT_CHARS
    ? text.slice(text.length - MAX_KEPT_TEXT_CHARS)
    : text;
}

/**
 * The most characters of one text a history keeps: all that is judged of
 * a closing text.
 */
const MAX_KEPT_TEXT_CHARS = MAX_JUDGED_TEXT_CHARS;

/** What stands for a text a history entry had and no longer keeps. */
const TEXT_NOT_KEPT = "(text)";

/**
 * How many of the newest model messages with words keep them: the
 * history judges the words of a turn's final message and of the message
 * of its last call, never older ones.
 */
const MESSAGES_WITH_WORDS = 16;

/**
 * Keeps the words of only the newest {@link MESSAGES_WITH_WORDS} entries
 * with text of the turn being read: older ones keep a stand-in for each
 * text (that they had one is all that is asked of them), so a turn of long
 * texts holds few. A turn that closed is never touched again: what is
 * tracked is forgotten at each close (the few entries read since, which a
 * turn may have closed a few entries late, keep their words).
 */
class RecentWords {
  #kept: AssistantEntry[] = [];

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
