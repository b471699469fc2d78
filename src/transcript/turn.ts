/**
 * Finds turn boundaries: where the current turn starts when reading newest
 * first (the hook), and where each turn ends when streaming forward (audit).
 *
 * A turn is what follows a human prompt. A `compact_boundary` ends all older
 * history. When Claude Code stamps entries with `promptId` and the hook
 * payload names the turn's `prompt_id`, entries of that turn belong to it
 * whatever their text looks like, and an older promptId ends it.
 *
 * @module
 */

import { type Entry, entryWeight } from "./entry.ts";

/** How to delimit turns. */
export interface TurnOptions {
  /** The payload's `prompt_id`, when Claude Code sent one. */
  promptId: string | null;
  /**
   * Keep `isSidechain` entries. True for a subagent's own transcript, where
   * every entry is a sidechain; false for a main transcript.
   */
  includeSidechains: boolean;
}

/**
 * Collects the current turn from entries offered newest first.
 *
 * Offer entries until {@link BackwardTurnCollector.offer} returns true; then
 * {@link BackwardTurnCollector.entries} holds the turn in file order.
 *
 * Claude Code writes entries through a queue, and now and then a turn's
 * prompt line lands after entries of its turn: 2.1.145 wrote the model's
 * first call ahead of it, 2.1.47 under load the call and its result (its
 * silent reply writes nothing). So once the prompt is found, a few entries behind it are
 * looked at too (see {@link LOOK_BEHIND_ENTRIES}): those made after the
 * prompt (their `timestamp`) are the turn's, and a call that a result of the
 * turn answers is taken whatever its time.
 */
export class BackwardTurnCollector {
  #options: TurnOptions;
  #newestFirst: Entry[] = [];
  #foundPromptId = false;
  #complete = false;
  /** Behind the prompt: looking there until this is false. */
  #lookingBehind = false;
  #lookedBehind = 0;
  /**
   * The prompt, while the entries behind it were all made after it (they
   * are the turn's); null once one was not.
   */
  #prompt: Entry | null = null;
  /** Result ids of the turn whose call is not in it yet. */
  #orphans = new Set<string>();
  /** Entries taken from behind the prompt, newest first. */
  #behind: Entry[] = [];
  #startOffset: number | null = null;

  /** @param options How turns are delimited. */
  constructor(options: TurnOptions) {
    this.#options = options;
  }

  /**
   * Offers the next older entry.
   *
   * @returns True once the start of the turn has been reached; further
   * offers are ignored.
   */
  offer(entry: Entry): boolean {
    if (this.#lookingBehind) return this.#lookBehind(entry);
    if (this.#complete) return true;
    if (entry.sidechain && !this.#options.includeSidechains) return false;
    if (entry.kind === "boundary") return this.#finish(entry);
    const wanted = this.#options.promptId;
    if (wanted !== null && entry.promptId === wanted) {
      // Ours, whatever it looks like: the turn starts at its earliest entry,
      // which the next older entry (another turn's) will reveal.
      this.#foundPromptId = true;
      this.#newestFirst.push(entry);
      return false;
    }
    // Once our turn has been seen, anything from another turn ends it.
    if (this.#foundPromptId && entry.promptId !== null) {
      return this.#finish(entry);
    }
    if (entry.kind === "prompt") return this.#startLookingBehind(entry);
    this.#newestFirst.push(entry);
    return false;
  }

  /** Whether the start of the turn was reached. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * Offset of the entry that showed where the turn starts (its prompt, a
   * compaction, or another turn's entry), or null before it was reached.
   * Entries taken from behind a late prompt line lie before it.
   */
  get startOffset(): number | null {
    return this.#startOffset;
  }

  /**
   * The turn's entries collected so far, in file order: those taken from
   * behind its prompt line first. Of an older entry behind it only the calls
   * the turn's results answer are kept (the rest is the turn before's).
   */
  entries(): Entry[] {
    return [...this.#newestFirst, ...this.#behind].toReversed();
  }

  #finish(start: Entry): boolean {
    this.#complete = true;
    this.#startOffset = start.offset;
    return true;
  }

  /**
   * The prompt is found: the turn is complete, but entries behind the
   * prompt line may still be its own (see the class comment).
   */
  #startLookingBehind(prompt: Entry): boolean {
    this.#finish(prompt);
    this.#prompt = prompt.time === undefined ? null : prompt;
    const called = new Set<string>();
    for (const entry of this.#newestFirst) {
      if (entry.kind !== "assistant") continue;
      for (const use of entry.toolUses) called.add(use.id);
    }
    for (const entry of this.#newestFirst) {
      if (entry.kind !== "results") continue;
      for (const result of entry.results) {
        if (!called.has(result.toolUseId)) this.#orphans.add(result.toolUseId);
      }
    }
    this.#lookingBehind = this.#prompt !== null || this.#orphans.size > 0;
    return !this.#lookingBehind;
  }

  /**
   * One entry behind the prompt line. Entries made after the prompt are
   * taken whole while they last; after that only the tool_use blocks that
   * the turn's results answer. Looking ends at a prompt or compaction, once
   * nothing is left to find, or after {@link LOOK_BEHIND_ENTRIES} entries.
   */
  #lookBehind(entry: Entry): boolean {
    if (entry.sidechain && !this.#options.includeSidechains) {
      return this.#countLookedBehind();
    }
    if (entry.kind === "prompt" || entry.kind === "boundary") {
      return this.#stopLookingBehind();
    }
    if (this.#prompt !== null && madeAfter(entry, this.#prompt)) {
      this.#behind.push(entry);
      this.#noteIds(entry);
    } else {
      // Made before the prompt (or when, unknown): the turn before's, and so
      // is everything behind it but the calls the turn's results answer.
      this.#prompt = null;
      this.#takeAnsweredCalls(entry);
    }
    if (this.#prompt === null && this.#orphans.size === 0) {
      return this.#stopLookingBehind();
    }
    return this.#countLookedBehind();
  }

  /** Counts one entry looked at behind the prompt; true at the bound. */
  #countLookedBehind(): boolean {
    if (++this.#lookedBehind < LOOK_BEHIND_ENTRIES) return false;
    return this.#stopLookingBehind();
  }

  /** Takes from an older entry the calls that the turn's results answer. */
  #takeAnsweredCalls(entry: Entry): void {
    if (entry.kind !== "assistant" || this.#orphans.size === 0) return;
    const uses = entry.toolUses.filter((use) => this.#orphans.has(use.id));
    if (uses.length === 0) return;
    this.#behind.push({ ...entry, texts: [], toolUses: uses });
    for (const use of uses) this.#orphans.delete(use.id);
  }

  /**
   * Keeps the orphan ids up to date with an entry taken from behind the
   * prompt (offered newest first, so a result comes before its call).
   */
  #noteIds(entry: Entry): void {
    if (entry.kind === "assistant") {
      for (const use of entry.toolUses) this.#orphans.delete(use.id);
    } else if (entry.kind === "results") {
      for (const result of entry.results) this.#orphans.add(result.toolUseId);
    }
  }

  #stopLookingBehind(): boolean {
    this.#lookingBehind = false;
    return true;
  }
}

/**
 * Whether `entry` was made after `prompt` (both say when): written before
 * the prompt line, it is still the prompt's turn.
 */
export function madeAfter(entry: Entry, prompt: Entry): boolean {
  return entry.time !== undefined && prompt.time !== undefined &&
    entry.time > prompt.time;
}

/**
 * How many entries behind a turn's prompt line are looked at (see
 * {@link BackwardTurnCollector}). 2.1.145 was seen writing the prompt line
 * after the model's first reply (2 of 4 interactive runs), 2.1.47 after the
 * call and its result; beyond a few entries they are another
 * turn's.
 */
export const LOOK_BEHIND_ENTRIES = 8;

/**
 * Splits entries streamed in file order into turns, for the audit.
 *
 * Push entries one by one; a push that starts a new turn returns the turn it
 * closed. Call {@link ForwardTurnSplitter.finish} at the end of the file for
 * the last turn. As in {@link BackwardTurnCollector}, an entry stamped with
 * the current turn's promptId belongs to it whatever it looks like, and the
 * entries just before a prompt line that were made after it open the
 * prompt's turn. (The calls that collector also takes from behind a prompt,
 * for results still to come, stay with the turn before: read forward, their
 * results are not known yet.)
 */
export class ForwardTurnSplitter {
  #includeSidechains: boolean;
  #maxTurnEntries: number;
  #current: Entry[] = [];
  #currentPromptId: string | null = null;
  #openedAtLine = 0; // the prompt or boundary that opened #current, 0 = none
  #firstLine = -1; // the line of #current's first entry, -1 = none yet
  /** The current turn's {@link entryWeight}s, summed. */
  #weight = 0;
  #closedStartLine = 0;
  #closedOverBudget = false;
  /** The last {@link LOOK_BEHIND_ENTRIES} entries pushed, sidechains too. */
  #recent: Entry[] = [];

  /**
   * @param options Whether sidechain entries belong to the turns, and the
   * most entries a turn may hold (`maxTurnEntries`, weighted as
   * {@link entryWeight}; default no limit): past it the turn's entries
   * are let go and it closes empty, marked {@link closedTurnOverBudget}.
   */
  constructor(
    options: Pick<TurnOptions, "includeSidechains"> & {
      maxTurnEntries?: number;
    },
  ) {
    this.#includeSidechains = options.includeSidechains;
    this.#maxTurnEntries = options.maxTurnEntries ?? Infinity;
  }

  /**
   * Adds the next entry.
   *
   * @returns The entries of the turn this entry closed, or `null`.
   */
  push(entry: Entry): Entry[] | null {
    const closed = this.#place(entry);
    this.#recent.push(entry);
    if (this.#recent.length > LOOK_BEHIND_ENTRIES) this.#recent.shift();
    return closed;
  }

  /** Files `entry` in the current turn or a new one (see {@link push}). */
  #place(entry: Entry): Entry[] | null {
    if (entry.sidechain && !this.#includeSidechains) return null;
    const ownTurn = entry.promptId !== null &&
      entry.promptId === this.#currentPromptId;
    const promptChanged = entry.promptId !== null &&
      this.#currentPromptId !== null && !ownTurn;
    const opens = entry.kind === "boundary" ||
      (entry.kind === "prompt" && !ownTurn);
    if (opens || promptChanged) {
      const early = entry.kind === "prompt" ? this.#madeAfter(entry) : [];
      const closed = this.#take();
      this.#currentPromptId = entry.promptId;
      this.#openedAtLine = opens ? entry.line : 0;
      for (const made of early) this.#add(made);
      if (!opens) this.#add(entry);
      return closed;
    }
    this.#currentPromptId ??= entry.promptId;
    this.#add(entry);
    return null;
  }

  /**
   * Files `entry` in the current turn, within its budget: a turn that
   * outgrows it keeps none of its entries (a crafted turn of millions of
   * lines would otherwise hold them all in memory until it closes).
   */
  #add(entry: Entry): void {
    if (this.#firstLine < 0) this.#firstLine = entry.line;
    this.#weight += entryWeight(entry);
    if (this.#weight > this.#maxTurnEntries) {
      this.#current = [];
      return;
    }
    this.#current.push(entry);
  }
  /** Closes the last turn; returns its entries or `null` when empty. */
  finish(): Entry[] | null {
    return this.#take();
  }

  /**
   * Where the turn last returned by {@link push} or {@link finish} starts:
   * the 1-based line of the prompt or compaction boundary that opened it,
   * else of its first entry (0 when the entries carry no line numbers).
   */
  get closedTurnStartLine(): number {
    return this.#closedStartLine;
  }

  /**
   * The turn last returned by {@link push} or {@link finish} held more
   * than `maxTurnEntries`: it came back without its entries, unjudged.
   */
  get closedTurnOverBudget(): boolean {
    return this.#closedOverBudget;
  }

  /**
   * Removes from the end of the current turn the entries made after
   * `prompt`, by the rule of {@link BackwardTurnCollector}: a run of them
   * right before the prompt line, within the last few entries.
   */
  #madeAfter(prompt: Entry): Entry[] {
    const recent = this.#recent;
    let taken = 0;
    for (let i = recent.length - 1; i >= 0; i--) {
      const entry = recent[i] as Entry;
      if (entry.sidechain && !this.#includeSidechains) continue;
      if (entry.kind === "prompt" || entry.kind === "boundary") break;
      const last = this.#current.length - 1 - taken;
      if (!madeAfter(entry, prompt) || this.#current[last] !== entry) break;
      taken++;
    }
    const early = this.#current.splice(this.#current.length - taken, taken);
    for (const entry of early) this.#weight -= entryWeight(entry);
    return early;
  }

  #take(): Entry[] | null {
    const turn = this.#current;
    const overBudget = this.#weight > this.#maxTurnEntries;
    this.#current = [];
    this.#closedStartLine = this.#openedAtLine || Math.max(0, this.#firstLine);
    this.#closedOverBudget = overBudget;
    this.#firstLine = -1;
    this.#weight = 0;
    return turn.length > 0 || overBudget ? turn : null;
  }
}
