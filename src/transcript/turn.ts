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

import type { Entry } from "./entry.ts";

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
 */
export class BackwardTurnCollector {
  #options: TurnOptions;
  #newestFirst: Entry[] = [];
  #foundPromptId = false;
  #complete = false;
  /** Result ids of the turn whose call is not in it, while looking behind. */
  #orphans: Set<string> | null = null;
  #lookedBehind = 0;
  /** Calls found behind the turn's prompt, oldest last. */
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
    if (this.#orphans !== null) return this.#lookBehind(entry);
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
   */
  get startOffset(): number | null {
    return this.#startOffset;
  }

  /** The turn's entries collected so far, in file order. */
  entries(): Entry[] {
    return this.#newestFirst.toReversed();
  }

  /**
   * The calls found just behind the turn's prompt that its results answer
   * (see {@link LOOK_BEHIND_ENTRIES}), in file order: assistant entries
   * holding only those `tool_use` blocks. They name the results' tools;
   * the turn itself still starts at its prompt.
   */
  callsBehind(): Entry[] {
    return this.#behind.toReversed();
  }

  #finish(start: Entry): boolean {
    this.#complete = true;
    this.#startOffset = start.offset;
    return true;
  }

  /**
   * The prompt is found. When a result of the turn answers a call that is
   * not in it, look behind the prompt for that call before finishing.
   */
  #startLookingBehind(prompt: Entry): boolean {
    this.#complete = true;
    this.#startOffset = prompt.offset;
    const called = new Set<string>();
    for (const entry of this.#newestFirst) {
      if (entry.kind === "assistant") {
        for (const use of entry.toolUses) called.add(use.id);
      }
    }
    const orphans = new Set<string>();
    for (const entry of this.#newestFirst) {
      if (entry.kind !== "results") continue;
      for (const result of entry.results) {
        if (!called.has(result.toolUseId)) orphans.add(result.toolUseId);
      }
    }
    if (orphans.size === 0) return true;
    this.#orphans = orphans;
    return false;
  }

  /**
   * One entry behind the prompt: only the tool_use blocks the turn's
   * results answer are taken (the rest of that line belongs to the turn
   * before), until they are all found, a prompt or compaction intervenes,
   * or {@link LOOK_BEHIND_ENTRIES} entries were looked at.
   */
  #lookBehind(entry: Entry): boolean {
    const orphans = this.#orphans as Set<string>;
    if (entry.sidechain && !this.#options.includeSidechains) return false;
    if (entry.kind === "prompt" || entry.kind === "boundary") {
      return this.#stopLookingBehind();
    }
    if (entry.kind === "assistant") {
      const uses = entry.toolUses.filter((use) => orphans.has(use.id));
      if (uses.length > 0) {
        this.#behind.push({ ...entry, texts: [], toolUses: uses });
        for (const use of uses) orphans.delete(use.id);
      }
    }
    if (orphans.size === 0 || ++this.#lookedBehind >= LOOK_BEHIND_ENTRIES) {
      return this.#stopLookingBehind();
    }
    return false;
  }

  #stopLookingBehind(): boolean {
    this.#orphans = null;
    return true;
  }
}

/**
 * How many entries behind a turn's prompt are searched for the calls its
 * results answer. Claude Code 2.1.145 writes a turn's prompt line after the
 * model's first reply now and then (seen in 2 of 4 interactive runs): the
 * call then stands just before the prompt, its result after it. Beyond a
 * few entries a call is another turn's.
 */
export const LOOK_BEHIND_ENTRIES = 8;

/**
 * Splits entries streamed in file order into turns, for the audit.
 *
 * Push entries one by one; a push that starts a new turn returns the turn it
 * closed. Call {@link ForwardTurnSplitter.finish} at the end of the file for
 * the last turn. As in {@link BackwardTurnCollector}, an entry stamped with
 * the current turn's promptId belongs to it whatever it looks like.
 */
export class ForwardTurnSplitter {
  #includeSidechains: boolean;
  #current: Entry[] = [];
  #currentPromptId: string | null = null;
  #openedAtLine = 0; // the prompt or boundary that opened #current, 0 = none
  #closedStartLine = 0;

  /** @param options Whether sidechain entries belong to the turns. */
  constructor(options: Pick<TurnOptions, "includeSidechains">) {
    this.#includeSidechains = options.includeSidechains;
  }

  /**
   * Adds the next entry.
   *
   * @returns The entries of the turn this entry closed, or `null`.
   */
  push(entry: Entry): Entry[] | null {
    if (entry.sidechain && !this.#includeSidechains) return null;
    const ownTurn = entry.promptId !== null &&
      entry.promptId === this.#currentPromptId;
    const promptChanged = entry.promptId !== null &&
      this.#currentPromptId !== null && !ownTurn;
    const opens = entry.kind === "boundary" ||
      (entry.kind === "prompt" && !ownTurn);
    if (opens || promptChanged) {
      const closed = this.#take();
      this.#currentPromptId = entry.promptId;
      this.#openedAtLine = opens ? entry.line : 0;
      if (!opens) this.#current.push(entry);
      return closed;
    }
    this.#currentPromptId ??= entry.promptId;
    this.#current.push(entry);
    return null;
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

  #take(): Entry[] | null {
    const turn = this.#current;
    this.#current = [];
    this.#closedStartLine = this.#openedAtLine || (turn[0]?.line ?? 0);
    return turn.length > 0 ? turn : null;
  }
}
