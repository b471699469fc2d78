/**
 * Splits entries streamed in file order into turns by `turn_rule.ts`; the
 * hook's backward reader splits what it read with it too, so they agree.
 *
 * @module
 */

import { type Entry, entryWeight, isModelActivity } from "./entry.ts";
import {
  carriesOtherPromptId,
  commandCanOpen,
  commandOpensTurn,
  endsTurnInProgress,
  type InputStep,
  inputStep,
  isCommand,
  isEligible,
  lateEntryCount,
  LOOK_BEHIND_ENTRIES,
  mayBeInput,
  namesTurnPromptId,
  ownsPromptId,
  promptIdsMarkTurns,
} from "./turn_rule.ts";

/** One turn, as the splitter closed it. */
export interface SplitTurn {
  /** In file order, without the prompt or command that opened it. */
  entries: Entry[];
  /** A prompt, a command, an entry of another `promptId`; `null` before the file's first. */
  opener: Entry | null;
  /** 1-based line of the opener, else of its first entry (0: not counted). */
  startLine: number;
  /** It held more than `maxTurnEntries`: emptied as it grew, not judged. */
  overBudget?: true;
}

interface SplitterOptions {
  /** Sidechain entries belong to the turns (a subagent's own file). */
  includeSidechains: boolean;
  /** The first entry pushed is the file's first (default), which a late prompt's run may reach. */
  fromFileStart?: boolean;
  /** Pushing starts mid-file: the promptId the entry before named. */
  promptId?: string | null;
  /** The most a turn may hold ({@link entryWeight}): past it (a crafted turn) entries are let go and it closes empty, `overBudget`. */
  maxTurnEntries?: number;
}

/** The newest entries a turn past its budget keeps, for a late opener or prompt line. */
const KEPT_PAST_BUDGET = LOOK_BEHIND_ENTRIES + 2;

/**
 * An opener not decided yet: a slash command's line until the next entry
 * shows its expansion (`command`), an input until the client queries on it
 * (`input`), a result of another promptId that only its prompt line,
 * following within reach, takes (`ahead`).
 */
interface PendingOpener {
  kind: "command" | "input" | "ahead";
  at: number; // index in the turn in progress
  entry: Entry;
  after: number; // entries pushed since (it waits only a few)
  otherPromptId: boolean;
}

/**
 * Splits entries streamed in file order into turns: each
 * {@link ForwardTurnSplitter.push} returns the turns it closed (usually none),
 * {@link ForwardTurnSplitter.finish} the rest. An opener waiting to be decided
 * closes its turn a push or a few late.
 *
 * @example
 * ```ts
 * const splitter = new ForwardTurnSplitter({ includeSidechains: false });
 * const turns = entries.flatMap((entry) => splitter.push(entry));
 * turns.push(...splitter.finish());
 * ```
 */
export class ForwardTurnSplitter {
  readonly #includeSidechains: boolean;
  readonly #promptIds: boolean;
  #previous: Entry | null = null; // eligible, pushed last (a launch follows its result)
  #current: Entry[] = [];
  #opener: Entry | null = null;
  #lastPromptId: string | null = null; // named since the turn began or was compacted
  #lateCount = 0; // entries of the turn in progress behind its prompt line
  #atFileStart: boolean; // the turn in progress opens the file
  #pending: PendingOpener | null = null;
  #closed: SplitTurn[] = [];
  readonly #maxTurnEntries: number;
  #weight = 0; // of the turn in progress, also of entries let go
  #firstLine = -1; // of the turn in progress, -1 before one
  #modelActed = false; // in the turn in progress, also in entries let go

  constructor(options: SplitterOptions) {
    this.#includeSidechains = options.includeSidechains;
    this.#promptIds = promptIdsMarkTurns(options.includeSidechains);
    this.#atFileStart = options.fromFileStart ?? true;
    this.#lastPromptId = this.#promptIds ? options.promptId ?? null : null;
    this.#maxTurnEntries = options.maxTurnEntries ?? Infinity;
  }

  /** Adds the next entry; returns the turns it closed. */
  push(entry: Entry): SplitTurn[] {
    if (!isEligible(entry, this.#includeSidechains)) return NONE;
    const previous = this.#previous;
    this.#previous = entry;
    if (this.#continues(entry)) {
      this.#append(entry); // most entries: nothing waits, and it opens nothing
      this.#notePromptId(entry);
      return NONE;
    }
    this.#settlePending(entry);
    const otherPromptId = this.#pending === null && this.#promptIds &&
      carriesOtherPromptId(entry, this.#lastPromptId);
    if (entry.kind === "prompt") {
      this.#openAtPrompt(entry);
    } else if (
      isCommand(entry) && this.#pending === null &&
      commandCanOpen(entry, previous)
    ) {
      this.#wait("command", entry, otherPromptId);
    } else if (otherPromptId && mayBeInput(entry, previous)) {
      this.#wait("input", entry, true);
    } else if (otherPromptId && entry.kind === "results") {
      this.#wait("ahead", entry, true);
    } else {
      this.#append(entry);
    }
    this.#notePromptId(entry);
    return this.#drain();
  }

  #continues(entry: Entry): boolean {
    if (this.#pending !== null) return false;
    const kind = entry.kind;
    if (kind === "prompt" || kind === "boundary") return false;
    if (kind === "note" && entry.source === "command") return false;
    return !this.#promptIds || !namesTurnPromptId(entry) ||
      entry.promptId === this.#lastPromptId;
  }

  /** Closes the turn in progress; returns what was still open. */
  finish(): SplitTurn[] {
    const pending = this.#pending;
    this.#pending = null;
    // Nothing on file settled it: an input of another promptId (a wake-up
    // not answered yet) opens; a result waiting for its prompt goes on.
    if (pending !== null && pending.kind !== "ahead" && pending.otherPromptId) {
      this.#openAt(pending.at, pending.entry);
    }
    this.#close();
    return this.#drain();
  }

  /** The turn in progress, in file order, up to an input waiting to open one. */
  get current(): readonly Entry[] {
    const pending = this.#pending;
    return this.#waitingInput(pending)
      ? this.#current.slice(0, (pending as PendingOpener).at)
      : this.#current;
  }

  get opener(): Entry | null {
    return this.#opener;
  }

  /** An input of another `promptId` is waiting to open a turn. */
  get opening(): boolean {
    return this.#waitingInput(this.#pending);
  }

  #waitingInput(pending: PendingOpener | null): boolean {
    return pending?.kind === "input" && pending.otherPromptId;
  }

  #append(entry: Entry): void {
    if (this.#firstLine < 0) this.#firstLine = entry.line;
    this.#modelActed ||= isModelActivity(entry);
    this.#current.push(entry);
    this.#weight += entryWeight(entry);
    if (this.#weight <= this.#maxTurnEntries) return;
    if (this.#current.length < 2 * KEPT_PAST_BUDGET) return;
    // Let go of the older entries only once they alone are past the budget:
    // whatever a late opener takes, the turn it closes is past it too.
    const drop = this.#current.length - KEPT_PAST_BUDGET;
    let newest = 0;
    for (let i = drop; i < this.#current.length; i++) {
      newest += entryWeight(this.#current[i] as Entry);
    }
    if (this.#weight - newest <= this.#maxTurnEntries) return;
    this.#current = this.#current.slice(drop);
    if (this.#pending !== null) this.#pending.at -= drop;
    this.#lateCount = Math.max(0, this.#lateCount - drop);
  }

  /** Keeps the newest promptId named; a compaction starts afresh. */
  #notePromptId(entry: Entry): void {
    if (entry.kind === "boundary") this.#lastPromptId = null;
    else if (this.#promptIds && namesTurnPromptId(entry)) {
      this.#lastPromptId = entry.promptId;
    }
  }

  #wait(
    kind: PendingOpener["kind"],
    entry: Entry,
    otherPromptId: boolean,
  ): void {
    this.#pending = {
      kind,
      at: this.#current.length,
      entry,
      after: 0,
      otherPromptId,
    };
    this.#append(entry);
  }

  /** Decides a waiting opener, now that `next` follows it. */
  #settlePending(next: Entry): void {
    const pending = this.#pending;
    if (pending === null) return;
    if (pending.kind === "command") {
      if (commandOpensTurn(pending.entry, next)) {
        this.#pending = null;
        this.#openAt(pending.at, pending.entry); // the command is the opener
        const command = this.#current.shift() as Entry;
        this.#weight -= entryWeight(command);
        this.#firstLine = this.#current[0]?.line ?? -1;
        return;
      }
      // No expansion: a local command, or one that hands the model work.
      pending.kind = "input";
    }
    // A prompt line decides it with its late entries (`#openAtPrompt`).
    if (next.kind === "prompt") return;
    if (pending.kind === "ahead") {
      // Only its prompt line takes it; a new input, an interrupt or a long
      // wait leave it in the turn in progress.
      const newInput = isCommand(next) || next.kind === "boundary" ||
        carriesOtherPromptId(next, pending.entry.promptId);
      if (
        newInput || endsTurnInProgress(next) ||
        ++pending.after > LOOK_BEHIND_ENTRIES
      ) {
        this.#pending = null;
      }
      return;
    }
    const step: InputStep = inputStep(pending.entry, next);
    if (step === "waits" && ++pending.after <= LOOK_BEHIND_ENTRIES) return;
    this.#pending = null;
    // A long wait or a compaction opens it where it names another promptId.
    const opens = step === "opens" ||
      (step !== "stays" && pending.otherPromptId);
    if (opens) this.#openAt(pending.at, pending.entry);
  }

  /**
   * A prompt opens a turn, taking the entries of the turn in progress its
   * line came late for (those after that turn's own start).
   */
  #openAtPrompt(prompt: Entry): void {
    const current = this.#current;
    const before = current.slice(this.#lateCount);
    const late = lateEntryCount(
      prompt,
      before,
      this.#opener === null && this.#atFileStart,
    );
    let lateAt = current.length - late;
    // A waiting input or result stamped with this prompt's promptId is the
    // prompt's, written ahead of its line (a crashed call's, on resume).
    const pending = this.#pending;
    this.#pending = null;
    if (
      pending !== null && pending.kind !== "command" && pending.at < lateAt &&
      this.#promptIds && ownsPromptId(pending.entry, prompt)
    ) {
      lateAt = pending.at;
    }
    this.#openAt(lateAt, prompt);
    this.#lateCount = this.#current.length; // all behind the prompt line
  }

  /** Closes the turn in progress before index `at`; `opener` opens the next. */
  #openAt(at: number, opener: Entry): void {
    const rest = this.#current.slice(at);
    const restWeight = rest.reduce((sum, e) => sum + entryWeight(e), 0);
    this.#current = this.#current.slice(0, at);
    this.#weight -= restWeight;
    this.#close(true);
    this.#current = rest;
    this.#weight = restWeight;
    this.#firstLine = rest[0]?.line ?? -1;
    this.#modelActed = rest.some(isModelActivity);
    this.#opener = opener;
    this.#atFileStart = false;
    this.#lateCount = 0;
    this.#lastPromptId = this.#promptIds && namesTurnPromptId(opener)
      ? opener.promptId
      : null;
  }

  /** `forOpener`: an opener follows what is closed. */
  #close(forOpener = false): void {
    const entries = this.#current;
    const opener = this.#opener;
    const overBudget = this.#weight > this.#maxTurnEntries;
    const firstLine = this.#firstLine;
    const modelActed = this.#modelActed;
    this.#current = [];
    this.#weight = 0;
    this.#firstLine = -1;
    this.#modelActed = false;
    // Before the file's first opener is a turn only if the model worked
    // there, and never in a subagent's file (the parent's context, forked).
    const forkContext = this.#includeSidechains && forOpener;
    if (
      opener === null &&
      (firstLine < 0 || (this.#atFileStart && (!modelActed || forkContext)))
    ) return;
    if (overBudget) {
      this.#closed.push({
        entries: [],
        opener,
        startLine: opener?.line || Math.max(0, firstLine),
        overBudget: true,
      });
      return;
    }
    this.#closed.push({
      entries,
      opener,
      startLine: opener?.line || (entries[0]?.line ?? 0),
    });
  }

  #drain(): SplitTurn[] {
    if (this.#closed.length === 0) return NONE;
    const closed = this.#closed;
    this.#closed = [];
    return closed;
  }
}

const NONE: SplitTurn[] = [];
