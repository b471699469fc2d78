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
    if (this.#complete) return true;
    if (entry.sidechain && !this.#options.includeSidechains) return false;
    if (entry.kind === "boundary") return this.#finish();
    const wanted = this.#options.promptId;
    if (wanted !== null && entry.promptId === wanted) {
      // Ours, whatever it looks like: the turn starts at its earliest entry,
      // which the next older entry (another turn's) will reveal.
      this.#foundPromptId = true;
      this.#newestFirst.push(entry);
      return false;
    }
    // Once our turn has been seen, anything from another turn ends it.
    if (this.#foundPromptId && entry.promptId !== null) return this.#finish();
    if (entry.kind === "prompt") return this.#finish();
    this.#newestFirst.push(entry);
    return false;
  }

  /** Whether the start of the turn was reached. */
  get complete(): boolean {
    return this.#complete;
  }

  /** The turn's entries collected so far, in file order. */
  entries(): Entry[] {
    return this.#newestFirst.toReversed();
  }

  #finish(): boolean {
    this.#complete = true;
    return true;
  }
}

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
