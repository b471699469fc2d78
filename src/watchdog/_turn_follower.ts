/**
 * Follows one turn of a growing transcript: read once from the end, then only
 * what was appended, noting the metadata lines the watchdog reasons with
 * (`api-request`, `turn_duration`, `stop_hook_summary`).
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";
import { decodeUtf8, parseJsonObjects } from "../transcript/json_line.ts";
import { lineEntries } from "../transcript/line_entries.ts";
import { isSkippableLine, topLevelType } from "../transcript/line_prefilter.ts";
import { type RawLine, readLinesForward } from "../transcript/line_reader.ts";
import {
  boundedReader,
  DEFAULT_SCAN_BUDGETS,
  openTranscript,
  SCAN_LINE_OPTIONS,
  scanCurrentTurn,
} from "../transcript/tail_scan.ts";
import { ForwardTurnSplitter } from "../transcript/turn.ts";
import { isCommand, isTurnEndMarker } from "../transcript/turn_rule.ts";
import { callState } from "./_watch_state.ts";

interface FollowOptions {
  promptId: string | null;
  /** The watched call: lines from its result on are re-read with metadata. */
  toolUseId: string;
  lookBudgetBytes?: number;
  maxEntries?: number;
}

/** Offsets (-1: none) of the newest metadata lines, and the request's `timestamp` (ms). */
export interface FollowedMarks {
  request: number;
  requestTime: number | null;
  /** A main-transcript `turn_duration` line. */
  turnEnd: number;
  stopSummary: number;
}

/** Most bytes one look reads: the rest is the next look's, so each stays short. */
const LOOK_BUDGET_BYTES = DEFAULT_SCAN_BUDGETS.bytes;

/** Entries kept for one turn: beyond, the watcher gives up (fail open). */
export const MAX_TURN_ENTRIES = 200_000;

/** One watched turn, read incrementally. */
export class TurnFollower {
  #path: string;
  #options: FollowOptions;
  #turn = new ForwardTurnSplitter({ includeSidechains: false });
  #taken = 0;
  #marks: FollowedMarks = NO_MARKS;
  /** Where the next look reads from (a line start); -1 before the first. */
  #offset = -1;
  /** Lines before this offset were taken already: only their marks count. */
  #entriesFrom = 0;
  /** The size seen by the last look; -1: none yet, null: no file. */
  #size: number | null = -1;
  #newTurn = false;
  /**
   * Until the call is seen a prompt opens the followed turn, not a new one
   * (2.1.145 ran PostToolUse about 65 ms before the turn's lines landed).
   */
  #callSeen = false;
  /** The line that opened the turn when it came late: not to open it again. */
  #openerOffset = -1;
  #scanOpener: Entry | null = null;
  #overflow = false;
  /** The last look ended inside a line: its rest is no line of its own. */
  #midLine = false;
  /** The last look was cut short: the next continues without growth. */
  #pending = false;

  constructor(path: string, options: FollowOptions) {
    this.#path = path;
    this.#options = options;
  }

  /** The followed turn's entries in file order (empty once a new turn began). */
  get entries(): readonly Entry[] {
    return this.#newTurn ? [] : this.#turn.current;
  }

  /** Another turn began after the followed one. */
  get newTurn(): boolean {
    return this.#newTurn;
  }

  get exists(): boolean {
    return this.#size !== null && this.#size >= 0;
  }

  /** The turn grew past {@link MAX_TURN_ENTRIES}: it is no longer followed. */
  get overflow(): boolean {
    return this.#overflow;
  }

  /** What opened the followed turn (a late prompt line too); null while none is. */
  get opener(): Entry | null {
    return this.#turn.opener ?? this.#scanOpener;
  }

  get marks(): Readonly<FollowedMarks> {
    return this.#marks;
  }

  /**
   * Looks once (a shrunk file afresh); true when the size changed. Requires `--allow-read`.
   *
   * @throws {TranscriptError} When the path is not a readable file.
   */
  async look(stopWhen: () => boolean): Promise<boolean> {
    const size = sizeOf(this.#path);
    const changed = size !== this.#size;
    if (!changed && !this.#pending) return false;
    this.#size = size;
    this.#pending = false;
    if (size === null) return changed;
    if (this.#offset < 0 || size < this.#offset) {
      await this.#start(stopWhen);
    }
    if (size > this.#offset) await this.#readAppended(stopWhen);
    return changed;
  }

  /** The first look: the current turn from the end, then its watched result on. */
  async #start(stopWhen: () => boolean): Promise<void> {
    this.#turn = new ForwardTurnSplitter({ includeSidechains: false });
    this.#taken = 0;
    this.#marks = { ...NO_MARKS };
    this.#newTurn = false;
    this.#overflow = false;
    this.#midLine = false;
    this.#callSeen = false;
    this.#openerOffset = -1;
    this.#scanOpener = null;
    this.#entriesFrom = 0;
    const scan = await scanCurrentTurn(this.#path, {
      promptId: this.#options.promptId,
      includeSidechains: false,
      stopWhen,
    });
    if (!scan) {
      this.#offset = 0;
      return;
    }
    // From the file's start only when the scan read back to it finding no
    // turn start (a late prompt line's run may reach back to it).
    this.#turn = new ForwardTurnSplitter({
      includeSidechains: false,
      fromFileStart: !scan.reachedStart && scan.budget === null &&
        !scan.stopped,
    });
    this.#openerOffset = scan.startOffset ?? -1;
    this.#scanOpener = scan.opener;
    const max = this.#options.maxEntries ?? MAX_TURN_ENTRIES;
    if (scan.entries.length > max) this.#overflow = true;
    const entries = scan.entries.slice(-max);
    const state = callState(entries, this.#options.toolUseId);
    this.#callSeen = state.kind !== "absent";
    // Entries again from the result on, metadata from before the newest
    // reply: 2.1.332 wrote api-request ahead of reply and result.
    const resultAt = state.kind === "answered"
      ? entries.findIndex((e) => e.offset === state.resultOffset)
      : entries.length;
    for (const entry of entries.slice(0, resultAt)) this.#turn.push(entry);
    this.#taken = resultAt;
    this.#entriesFrom = state.kind === "answered"
      ? state.resultOffset
      : scan.endOffset;
    this.#offset = Math.min(
      this.#entriesFrom,
      replyStart(entries, resultAt, scan.startOffset) ?? this.#entriesFrom,
    );
  }

  /** Reads the complete lines appended since the last look. */
  async #readAppended(stopWhen: () => boolean): Promise<void> {
    const file = openTranscript(this.#path);
    if (!file) return;
    try {
      file.seekSync(this.#offset, Deno.SeekMode.Start);
      const start = this.#offset;
      const reader = boundedReader(
        file,
        this.#options.lookBudgetBytes ?? LOOK_BUDGET_BYTES,
        stopWhen,
      );
      let lines = 0;
      for await (const raw of readLinesForward(reader, SCAN_LINE_OPTIONS)) {
        const offset = start + raw.offset;
        this.#offset = offset + raw.length + 1;
        if (this.#midLine) {
          this.#midLine = false; // the rest of a line a look gave up on
        } else if (offset < this.#entriesFrom) {
          this.#takeMarks({ ...raw, offset });
        } else {
          this.#take({ ...raw, offset });
        }
        if (++lines % STOP_CHECK_LINES === 0 && stopWhen()) {
          this.#pending = true;
          return;
        }
      }
      this.#pending = reader.exhausted || reader.stopped;
      if (reader.exhausted && this.#offset === start) {
        // A whole budget without one complete line: skip past it.
        this.#offset = start + reader.bytesRead;
        this.#midLine = true;
      }
    } finally {
      file.close();
    }
  }

  #take(raw: RawLine): void {
    this.#takeMarks(raw);
    if (this.#newTurn || isSkippableLine(raw.head, raw.tail)) return;
    for (const entry of lineEntries(raw)) this.#add(entry);
  }

  #takeMarks(raw: RawLine): void {
    const type = topLevelType(raw.head);
    if (type === "api-request") {
      this.#marks.request = raw.offset;
      this.#marks.requestTime = timestampOf(raw.head);
    } else if (type === "system" && !raw.clipped) this.#system(raw);
  }

  #system(raw: RawLine): void {
    const text = decodeUtf8(raw.head);
    const turnEnd = text.includes("turn_duration");
    if (!turnEnd && !text.includes("stop_hook_summary")) return;
    for (const object of parseJsonObjects(text)) {
      if (isTurnEndMarker(object)) this.#marks.turnEnd = raw.offset;
      else if (
        object.subtype === "stop_hook_summary" && object.isSidechain !== true
      ) {
        this.#marks.stopSummary = raw.offset;
      }
    }
  }

  /** Adds one entry by the turn rule, or notes a turn after the watched call's began. */
  #add(entry: Entry): void {
    if (entry.sidechain) return;
    if (
      entry.offset === this.#openerOffset &&
      (entry.kind === "prompt" || isCommand(entry))
    ) return;
    if (this.#taken >= (this.#options.maxEntries ?? MAX_TURN_ENTRIES)) {
      this.#overflow = true;
      return;
    }
    this.#taken++;
    const closedTurns = this.#turn.push(entry);
    for (const closed of closedTurns) {
      if (closed.entries.some((e) => this.#isWatchedCall(e))) {
        this.#newTurn = true;
        return;
      }
    }
    // Only what is surely in the followed turn counts, not what follows an
    // entry of another promptId waiting to open one; once that entry waits
    // and the turn holds the call, the followed turn is over.
    this.#callSeen = closedTurns.length > 0 || this.#turn.opening
      ? this.#turn.current.some((e) => this.#isWatchedCall(e))
      : this.#callSeen || this.#isWatchedCall(entry);
    if (this.#callSeen && this.#turn.opening) this.#newTurn = true;
  }

  #isWatchedCall(entry: Entry): boolean {
    const id = this.#options.toolUseId;
    if (entry.kind === "assistant") {
      return entry.toolUses.some((use) => use.id === id);
    }
    return entry.kind === "results" &&
      entry.results.some((result) => result.toolUseId === id);
  }
}

const NO_MARKS: Readonly<FollowedMarks> = Object.freeze({
  request: -1,
  requestTime: null,
  turnEnd: -1,
  stopSummary: -1,
});

/** Where to re-read metadata from: the entry before the reply ending `entries[0, before)`, or the turn's start. */
function replyStart(
  entries: readonly Entry[],
  before: number,
  turnStart: number | null,
): number | null {
  let index = before - 1;
  while (index >= 0 && entries[index]?.kind === "assistant") index--;
  if (index >= 0) return (entries[index] as Entry).offset;
  return turnStart ?? entries[0]?.offset ?? null;
}

/** How far into an `api-request` line its `timestamp` is looked for. */
const TIMESTAMP_WITHIN = 512;

/** An `api-request` line's `timestamp`, or null. */
function timestampOf(head: Uint8Array): number | null {
  const start = decodeUtf8(head.subarray(0, TIMESTAMP_WITHIN));
  const match = /"timestamp":"([^"]{1,40})"/.exec(start);
  const time = match ? Date.parse(match[1] as string) : NaN;
  return Number.isFinite(time) ? time : null;
}

const STOP_CHECK_LINES = 256;

function sizeOf(path: string): number | null {
  try {
    return Deno.statSync(path).size;
  } catch {
    return null;
  }
}
