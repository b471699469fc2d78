/**
 * Every turn of a transcript, streamed and judged, for `audit` and `scan --all-turns`.
 *
 * @module
 */

import {
  type ClassifyContext,
  classifyTurn,
  type TurnVerdict,
} from "./classify.ts";
import { type Entry, isModelActivity } from "../transcript/entry.ts";
import { readLinesForward } from "../transcript/line_reader.ts";
import { type AnnouncedStop, announcedStop } from "./announcement.ts";
import { agentReturn } from "./_agent_return.ts";
import { ForwardTurnSplitter, type SplitTurn } from "../transcript/turn.ts";
import {
  HISTORY_READER_OPTIONS,
  historyLineEntries,
  MAX_HISTORY_TURN_ENTRIES,
  RecentWords,
  type SyncFile,
  SyncSource,
} from "./_history_lines.ts";

export {
  HISTORY_READER_OPTIONS,
  MAX_HISTORY_TURN_ENTRIES,
} from "./_history_lines.ts";

/** One turn of a transcript's history. */
export interface HistoryTurn {
  /** 1-based line of the prompt or command that opened it (else its first entry). */
  startLine: number;
  /** In file order, with 1-based line numbers. */
  entries: Entry[];
  /** A later turn began in the same file: this one had ended. */
  followed: boolean;
  /** The next turn opens with Claude Code's resume filler: the process died. */
  resumedAfter?: true;
  /** Over {@link MAX_HISTORY_TURN_ENTRIES}: `entries` is empty, not judged. */
  overBudget?: true;
}

/** How {@link readHistoryTurns} reads a transcript. */
export interface HistoryOptions {
  /** A subagent transcript: its sidechain entries count. */
  subagent: boolean;
  /** A subagent file's path: its parent's beside it may say it still ran. */
  path?: string;
  /** Called with the bytes of each read, for progress. */
  onRead?: (bytes: number) => void;
  /** A read buffer of the reader's chunk size to reuse across files. */
  buffer?: Uint8Array;
}

/**
 * Yields every turn of an open transcript in file order. Requires `--allow-read`.
 *
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
  // A turn is yielded once the next is known: its opening may say how this ended.
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

/** Whether lines ahead of `turn`'s opener hold the resume filler (2.1.281+): the turn before died. */
function opensWithResume(turn: SplitTurn): boolean {
  return turn.entries.some((e) => e.line < turn.startLine && isResumeFiller(e));
}

/** Claude Code's wordless `<synthetic>` entry, written on resume after a turn that stopped mid-way. */
function isResumeFiller(entry: Entry): boolean {
  return entry.kind === "assistant" && entry.synthetic === true &&
    entry.apiError !== true && entry.texts.length === 0 &&
    entry.toolUses.length === 0;
}

/** Whether a turn shows that it ended (docs/detection.md, "Did the turn end?"). */
export type TurnEnding = "ended" | "process_died" | "no_end" | "agent_running";

/** How a turn shows it ended: a later turn, a record of its end after the model's last activity, a resume. */
export function turnEnding(turn: HistoryTurn, subagent: boolean): TurnEnding {
  const entries = turn.entries;
  const last = entries.findLastIndex(isModelActivity);
  const after = entries.slice(last + 1);
  // Lines written ahead of the turn's opener are the turn before's.
  const resumed = after.some((e) =>
    e.line > turn.startLine &&
    (isResumeFiller(e) || (e.kind === "note" && e.source === "resume"))
  );
  if (resumed || turn.resumedAfter === true) return "process_died";
  if (turn.followed || subagent) return "ended";
  const ends = after.some((e) =>
    e.kind === "turn_end" || e.kind === "interrupt" ||
    e.kind === "hook_stop" ||
    (e.kind === "assistant" && e.apiError === true)
  );
  return ends ? "ended" : "no_end";
}

/** A main transcript's history turns are classified knowing no background work. */
export const HISTORY_CONTEXT: ClassifyContext = Object.freeze({
  backgroundTasks: [],
});

const SUBAGENT_HISTORY_CONTEXT: ClassifyContext = Object.freeze({
  ...HISTORY_CONTEXT,
  subagent: true,
});

/** What a history turn comes to: `stalled` would be blocked and ended; `unfinished` shows no end. */
type TurnOutcome = "stalled" | "unfinished" | "not_judged" | "healthy";

function turnOutcome(verdict: TurnVerdict, ending: TurnEnding): TurnOutcome {
  if (verdict.signatures.length === 0) return "healthy";
  return ending === "ended" ? "stalled" : "unfinished";
}

/** Whether a turn counts as announced, then stopped: on an announcement, and ended. */
export function countsAsAnnounced(turn: HistoryVerdict): boolean {
  return turn.announced !== undefined && turn.ending === "ended";
}

/** One classified turn of a transcript's history (lines 1-based). */
export interface HistoryVerdict {
  startLine: number;
  /** Its first line on file (a late entry may lead). */
  firstLine: number;
  /** Its last entry's (else its start line). */
  endLine: number;
  verdict: TurnVerdict;
  ending: TurnEnding;
  outcome: TurnOutcome;
  /** A main transcript's turn ended on this announcement without a call. */
  announced?: AnnouncedStop;
  /** Not judged (see {@link HistoryTurn.overBudget}). */
  overBudget?: true;
}

/**
 * Yields every turn's verdict of an open transcript. Requires `--allow-read`.
 *
 * @example
 * ```ts
 * using file = await Deno.open("session.jsonl", { read: true });
 * for await (const turn of readHistoryVerdicts(file, { subagent: false })) {
 *   if (turn.outcome === "stalled") console.log(turn.startLine, turn.verdict.reason);
 * }
 * ```
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

/** One history turn judged: its verdict, whether it ended, and (main transcript) its announcement. */
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
    outcome: turnOutcome(verdict, ending),
    ...(announced ? { announced } : {}),
  };
}

const OVER_BUDGET: TurnVerdict = Object.freeze({
  signatures: [],
  reason: `not judged: the turn holds more than ${
    MAX_HISTORY_TURN_ENTRIES.toLocaleString("en-US")
  } entries (the hook's entries budget)`,
});
