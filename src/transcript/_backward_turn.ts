/**
 * The current turn, read newest first (the hook) until the rule's answer is
 * settled, then split with the forward splitter (`turn.ts`), so they agree.
 *
 * @module
 */

import { type Entry, isModelActivity, type NoteEntry } from "./entry.ts";
import {
  carriesOtherPromptId,
  commandCanOpen,
  commandOpensTurn,
  inputStep,
  isCommand,
  isEligible,
  isLateFor,
  LOOK_BEHIND_ENTRIES,
  mayBeInput,
  mayWriteLatePrompt,
  namesTurnPromptId,
  ownsPromptId,
  promptIdsMarkTurns,
} from "./turn_rule.ts";
import { ForwardTurnSplitter, type SplitTurn } from "./turn.ts";

export interface TurnOptions {
  /** The payload's `prompt_id`, if sent; the rule needs none. */
  promptId: string | null;
  /** Keep `isSidechain` entries: a subagent's own transcript. */
  includeSidechains: boolean;
}

/**
 * Whether `entry`, read behind `prompt`'s line, may still be the prompt's:
 * made after it, stamped with its promptId, or naming none between such
 * entries and the line. Reading stops at the first that cannot be.
 */
function mayBePromptsOwn(
  entry: Entry,
  prompt: Entry,
  promptIds: boolean,
): boolean {
  if (entry.kind === "prompt" || entry.kind === "boundary") return false;
  if (isLateFor(entry, prompt)) return true;
  if (!promptIds || prompt.promptId === null) return false;
  return !namesTurnPromptId(entry) || ownsPromptId(entry, prompt);
}

/**
 * How the input at `window[index]` (newest first) is settled by the newer
 * entries, by `inputStep`: `unsettled` when only its promptId can say.
 */
function inputOutcome(
  window: readonly Entry[],
  index: number,
): "opens" | "stays" | "unsettled" {
  const input = window[index] as Entry;
  let after = 0;
  for (let j = index - 1; j >= 0; j--) {
    const step = inputStep(input, window[j] as Entry);
    if (step === "waits" && ++after <= LOOK_BEHIND_ENTRIES) continue;
    return step === "opens" || step === "stays" ? step : "unsettled";
  }
  return "unsettled";
}

/**
 * Collects the current turn from entries offered newest first until
 * {@link BackwardTurnCollector.offer} returns true: back to the newest turn
 * start (behind a prompt line, to the entries that decide which came late
 * for it) or a compaction the model acted after, and to the promptId named
 * before. A call a result of the turn answers is taken from behind its start
 * whatever its time: what a forward reader cannot do.
 */
export class BackwardTurnCollector {
  readonly #includeSidechains: boolean;
  readonly #promptIds: boolean;
  /** A command that opened the turn if the entry before shows it typed. */
  #commandCheck: NoteEntry | null = null;
  // Newest first: the turn's window, then entries read behind it.
  #window: Entry[] = [];
  #behind: Entry[] = [];
  #phase: "turn" | "context" | "orphans" | "done" = "turn";
  /** The newest prompt, once met: its late run is being decided. */
  #prompt: Entry | null = null;
  #run = 0;
  /** The run was decided by a command: settle once the entry before it is read. */
  #settleNext = false;
  /** The nearest newer entry's promptId, since the last compaction read. */
  #newerPromptId: string | null = null;
  #newerPromptIdAt = -1;
  #modelActed = false;
  #complete = false;
  #windowAtFileStart = false;
  #atCompaction = false;
  /** The promptId named before the window. */
  #context: string | null = null;
  #orphans = new Set<string>(); // result ids whose call is not read yet
  #lookedForOrphans = 0;
  #adopted: Entry[] = []; // calls taken from behind the turn, newest first
  #split: { turn: SplitTurn; key: string } | null = null;

  constructor(options: TurnOptions) {
    this.#includeSidechains = options.includeSidechains;
    this.#promptIds = promptIdsMarkTurns(options.includeSidechains);
  }

  /** Offers the next older entry; true once nothing older can change the turn. */
  offer(entry: Entry): boolean {
    if (this.#phase === "done") return true;
    if (!isEligible(entry, this.#includeSidechains)) return false;
    if (this.#phase === "context") return this.#readContext(entry);
    if (this.#phase === "orphans") {
      if (this.#orphansDone(entry)) this.#phase = "done";
      return this.#phase === "done";
    }
    this.#window.push(entry);
    if (this.#prompt !== null) {
      if (this.#settleNext) return this.#settle();
      if (
        mayBePromptsOwn(entry, this.#prompt, this.#promptIds) &&
        ++this.#run <= LOOK_BEHIND_ENTRIES
      ) {
        return false;
      }
      // A command that decides the run was typed or launched: the entry
      // before it says which (as the forward splitter reads it), so that
      // one is read too.
      if (isCommand(entry) && entry.launchedBy === undefined) {
        this.#settleNext = true;
        return false;
      }
      return this.#settle(); // this entry decides the run
    }
    const command = this.#commandCheck;
    this.#commandCheck = null;
    if (command !== null) {
      if (commandCanOpen(command, entry)) {
        this.#complete = true; // the user typed it: it opened the turn
        return this.#settle();
      }
      // Launched, or after a caveat: it goes on in its turn and is the
      // nearest newer entry naming its promptId (never an input).
      this.#notePromptId(command, this.#window.length - 2);
    }
    if (entry.kind === "prompt") {
      this.#complete = true;
      this.#prompt = entry;
      return mayWriteLatePrompt(entry) ||
          (this.#promptIds && entry.promptId !== null)
        ? false
        : this.#settle();
    }
    const at = this.#window.length - 1;
    if (isCommand(entry) && entry.launchedBy === undefined) {
      // Its expansion follows, or the client queried on it: it opened the
      // turn, unless the entry before shows a launch or a caveat.
      const opens = commandOpensTurn(entry, this.#window.at(-2)) ||
        inputOutcome(this.#window, at) === "opens";
      if (opens) {
        this.#commandCheck = entry;
        return false;
      }
    }
    if (entry.kind === "boundary") {
      if (this.#modelActed) {
        this.#complete = true;
        this.#atCompaction = true;
        return this.#settle();
      }
      this.#newerPromptId = null; // compared afresh on each side of it
      this.#newerPromptIdAt = -1;
      return false;
    }
    // A compaction the model acted after settles the turn.
    this.#modelActed ||= isModelActivity(entry);
    if (
      this.#promptIds && carriesOtherPromptId(entry, this.#newerPromptId) &&
      this.#newerInputOpens()
    ) {
      this.#complete = true; // the nearest newer one opened the turn
      return this.#settle();
    }
    this.#notePromptId(entry, at);
    return false;
  }

  /** Keeps `entry`, at `at` in the window, as the nearest newer one naming a promptId. */
  #notePromptId(entry: Entry, at: number): void {
    if (this.#promptIds && namesTurnPromptId(entry)) {
      this.#newerPromptId = entry.promptId;
      this.#newerPromptIdAt = at;
    }
  }

  /**
   * Whether the nearest newer entry naming a new promptId opened a turn: an
   * input the client queried on, or that nothing after settled (a result
   * goes on in its turn).
   */
  #newerInputOpens(): boolean {
    const at = this.#newerPromptIdAt;
    const input = this.#window[at];
    if (input === undefined || !mayBeInput(input, this.#window[at + 1])) {
      return false;
    }
    return inputOutcome(this.#window, this.#newerPromptIdAt) !== "stays";
  }

  /** Tells the collector that the file's first line was offered. */
  fileStart(): void {
    if (this.#phase === "done" || this.#phase === "orphans") return;
    if (this.#commandCheck !== null) {
      this.#commandCheck = null;
      this.#complete = true; // the file's first line: nothing before it
    }
    this.#windowAtFileStart = this.#phase === "turn";
    // Nothing older comes: the turn is what was read.
    this.#lookForOrphans();
    this.#phase = "done";
  }

  get complete(): boolean {
    return this.#complete;
  }

  get startOffset(): number | null {
    return this.opener?.offset ?? null;
  }

  /**
   * What showed where the turn starts (a prompt, a command, an entry of
   * another promptId, a compaction), null before it; late entries lie before it.
   */
  get opener(): Entry | null {
    if (!this.#complete) return null;
    const turn = this.#turn();
    if (this.#atCompaction && turn.opener === null) {
      return this.#window.at(-1) as Entry;
    }
    return turn.opener;
  }

  /** The turn's entries in file order, calls taken from behind it first. */
  entries(): Entry[] {
    return [...this.#adopted.toReversed(), ...this.#turn().entries];
  }

  /** The window is read: what is older matters only as context or calls. */
  #settle(): boolean {
    if (this.#needsContext()) {
      this.#phase = "context";
      return false;
    }
    return this.#lookForOrphans();
  }

  /** Whether the window's split depends on the promptId named before it. */
  #needsContext(): boolean {
    if (!this.#promptIds) return false;
    for (let i = this.#window.length - 1; i >= 0; i--) {
      const entry = this.#window[i] as Entry;
      if (entry.kind === "prompt" || entry.kind === "boundary") return false;
      if (namesTurnPromptId(entry)) return true;
    }
    return false;
  }

  /** Behind the window: the nearest entry that sets the promptId context. */
  #readContext(entry: Entry): boolean {
    this.#behind.push(entry);
    const newer = this.#behind.at(-2) ?? this.#window.at(-1);
    if (namesTurnPromptId(entry)) this.#context = entry.promptId;
    else if (
      entry.kind !== "boundary" && entry.kind !== "prompt" &&
      !(isCommand(entry) && commandOpensTurn(entry, newer))
    ) return false;
    return this.#lookForOrphans();
  }

  /** The turn is known: looks behind it for the calls its results answer. */
  #lookForOrphans(): boolean {
    this.#phase = "orphans";
    const turn = this.#turn();
    const called = new Set<string>();
    for (const entry of turn.entries) {
      if (entry.kind !== "assistant") continue;
      for (const use of entry.toolUses) called.add(use.id);
    }
    for (const entry of turn.entries) {
      if (entry.kind !== "results") continue;
      for (const result of entry.results) {
        if (!called.has(result.toolUseId)) this.#orphans.add(result.toolUseId);
      }
    }
    const inTurn = new Set(turn.entries);
    for (const entry of [...this.#window, ...this.#behind]) {
      if (inTurn.has(entry) || entry === turn.opener) continue;
      if (this.#orphansDone(entry)) break;
    }
    if (this.#orphans.size === 0) this.#phase = "done";
    return this.#phase === "done";
  }

  /**
   * Takes from an older entry the calls the turn's results answer; true once
   * none is left to find (a prompt, a compaction, or the look-behind's end).
   */
  #orphansDone(entry: Entry): boolean {
    if (this.#orphans.size === 0) return true;
    if (entry.kind === "prompt" || entry.kind === "boundary") {
      this.#orphans.clear();
      return true;
    }
    if (entry.kind === "assistant") {
      const uses = entry.toolUses.filter((use) => this.#orphans.has(use.id));
      if (uses.length > 0) {
        this.#adopted.push({ ...entry, texts: [], toolUses: uses });
        for (const use of uses) this.#orphans.delete(use.id);
      }
    }
    if (++this.#lookedForOrphans >= LOOK_BEHIND_ENTRIES) this.#orphans.clear();
    return this.#orphans.size === 0;
  }

  /** The last turn of the window, by the forward rule (cached per reading). */
  #turn(): SplitTurn {
    const fileStart = this.#windowAtFileStart;
    const key = `${this.#window.length} ${fileStart} ${this.#context}`;
    if (this.#split?.key === key) return this.#split.turn;
    const splitter = new ForwardTurnSplitter({
      includeSidechains: this.#includeSidechains,
      fromFileStart: fileStart,
      promptId: this.#context,
    });
    let last: SplitTurn | null = null;
    for (let i = this.#window.length - 1; i >= 0; i--) {
      last = splitter.push(this.#window[i] as Entry).at(-1) ?? last;
    }
    last = splitter.finish().at(-1) ?? last;
    const turn = last ?? { entries: [], opener: null, startLine: 0 };
    this.#split = { turn, key };
    return turn;
  }
}
