/**
 * Finds turn boundaries by the one rule of `turn_rule.ts`: streaming
 * forward through a file (the audit, the watcher's follower), and reading
 * newest first for the current turn (the hook). The backward reader reads
 * only until the rule's answer for the last turn is settled, then applies
 * the forward splitter to what it read, so the two cannot disagree.
 *
 * @module
 */

import {
  type Entry,
  entryWeight,
  isModelActivity,
  type NoteEntry,
} from "./entry.ts";
import {
  carriesOtherPromptId,
  commandCanOpen,
  commandOpensTurn,
  compactionSettlesTurn,
  endsTurnInProgress,
  type InputStep,
  inputStep,
  isCommand,
  isEligible,
  isLateFor,
  lateEntryCount,
  LOOK_BEHIND_ENTRIES,
  mayBeInput,
  mayWriteLatePrompt,
  namesTurnPromptId,
  ownsPromptId,
  promptIdsMarkTurns,
} from "./turn_rule.ts";

export { LOOK_BEHIND_ENTRIES, madeAfter } from "./turn_rule.ts";

/** How to delimit turns. */
export interface TurnOptions {
  /**
   * The payload's `prompt_id`, when Claude Code sent one. The rule needs
   * none: every turn start is on file. Kept so callers can pass what the
   * payload says without knowing that.
   */
  promptId: string | null;
  /**
   * Keep `isSidechain` entries. True for a subagent's own transcript, where
   * every entry is a sidechain; false for a main transcript.
   */
  includeSidechains: boolean;
}

/** One turn, as the splitter closed it. */
export interface SplitTurn {
  /**
   * Its entries in file order. A prompt or command that opened it is not
   * among them; an entry that opened it by its `promptId` is.
   */
  entries: Entry[];
  /**
   * What opened it: a prompt, a slash command, an entry of another
   * `promptId`; `null` for what comes before the first of them, when the
   * model worked there (a file that starts in the middle of a turn).
   */
  opener: Entry | null;
  /**
   * 1-based line of the opener, else of its first entry (0 when the
   * entries carry no line numbers).
   */
  startLine: number;
  /**
   * It held more than the splitter's `maxTurnEntries`: its entries were let
   * go as it grew (`entries` is empty), and it is not to be judged.
   */
  overBudget?: true;
}

/** Options of a {@link ForwardTurnSplitter}. */
export interface SplitterOptions {
  /** Whether sidechain entries belong to the turns. */
  includeSidechains: boolean;
  /**
   * The first entry pushed is the file's first one (the default): a late
   * prompt line's run of entries may then reach back to it. False when
   * pushing starts in the middle of a file.
   */
  fromFileStart?: boolean;
  /**
   * Pushing starts in the middle of a file: the promptId the entry before
   * the first one pushed named (see `carriesOtherPromptId`).
   */
  promptId?: string | null;
  /**
   * The most entries a turn may hold, weighted as {@link entryWeight}
   * (default no limit): past it the turn's entries are let go as they come
   * (a crafted turn of millions of lines would otherwise hold them all in
   * memory until it closes), and it closes empty, marked `overBudget`.
   */
  maxTurnEntries?: number;
}

/**
 * How many of its newest entries a turn past its budget still keeps: what
 * an opener waiting to be decided, or a late prompt line, may take.
 */
const KEPT_PAST_BUDGET = LOOK_BEHIND_ENTRIES + 2;

/**
 * An opener not decided yet (see `turn_rule.ts`):
 *
 * - `command`: a slash command's line, until the next entry shows whether
 *   its expansion follows;
 * - `input`: an input that opens a turn once the client queries on it (a
 *   command without an expansion, a note of another promptId);
 * - `ahead`: a result of another promptId, which only its prompt line,
 *   following within reach, takes; else it goes on in its turn.
 */
interface PendingOpener {
  kind: "command" | "input" | "ahead";
  /** Its index in the turn in progress. */
  at: number;
  entry: Entry;
  /** Entries pushed after it (each waits only a few). */
  after: number;
  /** It names another promptId than the entry before it. */
  otherPromptId: boolean;
}

/**
 * Splits entries streamed in file order into turns.
 *
 * Push entries one by one; each push returns the turns it closed (none,
 * one, or rarely two). Call {@link ForwardTurnSplitter.finish} at the end of
 * the file for the rest. A slash command opens a turn only once its
 * expansion follows, and an entry of another `promptId` only when its own
 * prompt line does not follow within reach, so turns close a push or a few
 * late.
 */
export class ForwardTurnSplitter {
  readonly #includeSidechains: boolean;
  /** PromptIds mark turns (a main transcript, see `promptIdsMarkTurns`). */
  readonly #promptIds: boolean;
  /** The eligible entry pushed last (a model's launch follows its result). */
  #previous: Entry | null = null;
  #current: Entry[] = [];
  #opener: Entry | null = null;
  /**
   * The promptId of the newest entry that named one since the turn began
   * or was last compacted: an entry naming another opens a turn.
   */
  #lastPromptId: string | null = null;
  /** How many entries of the turn in progress lie behind its prompt line. */
  #lateCount = 0;
  /** The turn in progress starts at the file's start (no opener before). */
  #atFileStart: boolean;
  #pending: PendingOpener | null = null;
  #closed: SplitTurn[] = [];
  readonly #maxTurnEntries: number;
  /** The turn in progress's {@link entryWeight}s, summed (also those let go). */
  #weight = 0;
  /** 1-based line of the turn in progress's first entry, -1 before one. */
  #firstLine = -1;
  /** The model acted in the turn in progress (also in entries let go). */
  #modelActed = false;

  /** @param options Which entries count, and where pushing starts. */
  constructor(options: SplitterOptions) {
    this.#includeSidechains = options.includeSidechains;
    this.#promptIds = promptIdsMarkTurns(options.includeSidechains);
    this.#atFileStart = options.fromFileStart ?? true;
    this.#lastPromptId = this.#promptIds ? options.promptId ?? null : null;
    this.#maxTurnEntries = options.maxTurnEntries ?? Infinity;
  }

  /**
   * Adds the next entry.
   *
   * @returns The turns this entry closed, in file order.
   */
  push(entry: Entry): SplitTurn[] {
    if (!isEligible(entry, this.#includeSidechains)) return NONE;
    const previous = this.#previous;
    this.#previous = entry;
    if (this.#continues(entry)) {
      // Most entries: nothing waits, and this one opens nothing.
      this.#append(entry);
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
      this.#add(entry);
    }
    this.#notePromptId(entry);
    return this.#drain();
  }

  /**
   * Whether `entry` simply goes on in the turn: no opener waits, and it is
   * no prompt, command or compaction, and names no other promptId.
   */
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
    // whose reply is not written yet) opens its turn; a result waiting for
    // its prompt line goes on in the turn in progress.
    if (pending !== null && pending.kind !== "ahead" && pending.otherPromptId) {
      this.#openAt(pending.at, pending.entry);
    }
    this.#close();
    return this.#drain();
  }

  /**
   * The turn in progress, in file order: up to an opener not decided yet
   * (an input of another `promptId` waiting for the client's query).
   */
  get current(): readonly Entry[] {
    const pending = this.#pending;
    return this.#waitingInput(pending)
      ? this.#current.slice(0, (pending as PendingOpener).at)
      : this.#current;
  }

  /**
   * What opened the turn in progress (see {@link SplitTurn.opener}); null
   * while none is known.
   */
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

  #add(entry: Entry): void {
    this.#append(entry);
  }

  /**
   * Files `entry` in the turn in progress, within its budget: past it only
   * the newest {@link KEPT_PAST_BUDGET} entries are kept.
   */
  #append(entry: Entry): void {
    if (this.#firstLine < 0) this.#firstLine = entry.line;
    this.#modelActed ||= isModelActivity(entry);
    this.#current.push(entry);
    this.#weight += entryWeight(entry);
    if (this.#weight <= this.#maxTurnEntries) return;
    if (this.#current.length < 2 * KEPT_PAST_BUDGET) return;
    // Let go of what lies behind the newest entries only once that alone
    // is past the budget: whatever a late opener takes from the newest, the
    // turn it closes is then past it too, and judged by none.
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

  /**
   * Keeps the newest promptId named. After a compaction promptIds are
   * compared afresh, so that what opens a turn after it is known from the
   * entries after it (the backward reader may stop there).
   */
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
        this.#openAt(pending.at, pending.entry);
        // The command itself is the opener.
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
      // Only its prompt line takes it: a new input or a long wait, and it
      // stays in the turn in progress.
      const newInput = isCommand(next) || next.kind === "boundary" ||
        carriesOtherPromptId(next, pending.entry.promptId);
      // An interrupt ends the turn in progress, the result with it.
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
    // A long wait, or a compaction, opens it only as before the rule knew
    // queries: where it names another promptId.
    const opens = step === "opens" ||
      (step !== "stays" && pending.otherPromptId);
    if (opens) this.#openAt(pending.at, pending.entry);
  }

  /**
   * A prompt opens a turn, taking the entries its line came late for: of
   * the turn in progress, those after its own start (entries that came
   * late for its opener lie behind that).
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
    // An input or result of another promptId waiting to open a turn:
    // stamped with this prompt's promptId, it and what follows are this
    // prompt's, written ahead of its line (Claude Code's repair of a
    // crashed call on resume); otherwise no query came on it, and it stays
    // in the turn in progress, unless it came late for this prompt.
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

  /** @param forOpener An opener follows what is closed. */
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
    // What a file holds before its first opener is a turn only if the
    // model worked there (the rest of a turn begun in another file), not a
    // session's preamble of caveats and local commands. In a subagent's own
    // file, what comes before its prompt is the parent's conversation, the
    // context Claude Code copies into a fork: no turn either.
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

/**
 * Whether `entry`, read behind `prompt`'s line, may still be the prompt's:
 * made after it (a late line), or stamped with its promptId (written ahead
 * of it), or naming no promptId between such entries and the line. The
 * forward rule decides on what was read; reading stops at the first entry
 * that cannot be.
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
 * How the input at `window[index]` (newest first) is settled by the
 * entries after it, `window[index - 1]` down to `window[0]`, by the forward
 * rule (`inputStep`): `unsettled` when only its promptId can say (a
 * compaction, a long wait, or the file's end after it).
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
 * Collects the current turn from entries offered newest first.
 *
 * Offer entries until {@link BackwardTurnCollector.offer} returns true; then
 * {@link BackwardTurnCollector.entries} holds the turn in file order. The
 * collector reads back to the newest turn start (and, behind a prompt line,
 * the entries that decide which of them came late for it), then splits
 * what it read with {@link ForwardTurnSplitter}. A compaction the model
 * acted after ends the reading too: nothing before it changes the verdict.
 * When what was read names promptIds, the promptId named before it is
 * read as well, since the rule compares neighbours.
 *
 * Besides, a call that a result of the turn answers is taken from behind
 * the turn's start whatever its time (reading backward, the results are
 * known before the calls): the one thing a forward reader cannot do.
 */
export class BackwardTurnCollector {
  readonly #includeSidechains: boolean;
  /** PromptIds mark turns (a main transcript, see `promptIdsMarkTurns`). */
  readonly #promptIds: boolean;
  /**
   * A command that opens a turn if the user typed it, until the entry
   * before it shows whether they did (see `commandCanOpen`).
   */
  #commandCheck: NoteEntry | null = null;
  /** Eligible entries of the turn's window, newest first. */
  #window: Entry[] = [];
  /** Eligible entries read behind the window, newest first. */
  #behind: Entry[] = [];
  #phase: "turn" | "context" | "orphans" | "done" = "turn";
  /** The newest prompt, once met: its late run is being decided. */
  #prompt: Entry | null = null;
  #run = 0;
  /**
   * The promptId of the nearest newer entry that named one, since the
   * last compaction read: an older entry naming another means the newer
   * one opened a turn.
   */
  #newerPromptId: string | null = null;
  /** The index in the window of the entry that named `#newerPromptId`. */
  #newerPromptIdAt = -1;
  /** The model acted in the entries read so far. */
  #modelActed = false;
  /** The turn start was found. */
  #complete = false;
  /** The window reaches back to the file's first entry. */
  #windowAtFileStart = false;
  /** Reading stopped at a compaction the model acted after. */
  #atCompaction = false;
  /** The promptId named before the window (see the class notes). */
  #context: string | null = null;
  /** Result ids of the turn whose call is not in it yet. */
  #orphans = new Set<string>();
  #lookedForOrphans = 0;
  /** Calls taken from behind the turn for its results, newest first. */
  #adopted: Entry[] = [];
  /** The split of the window, and the reading it was made for. */
  #split: { turn: SplitTurn; key: string } | null = null;

  /** @param options How turns are delimited. */
  constructor(options: TurnOptions) {
    this.#includeSidechains = options.includeSidechains;
    this.#promptIds = promptIdsMarkTurns(options.includeSidechains);
  }

  /**
   * Offers the next older entry.
   *
   * @returns True once nothing older can change the turn; further offers
   * are ignored.
   */
  offer(entry: Entry): boolean {
    if (this.#phase === "done") return true;
    if (!isEligible(entry, this.#includeSidechains)) return false;
    if (this.#phase === "context") return this.#readContext(entry);
    if (this.#phase === "orphans") return this.#readOrphans(entry);
    this.#window.push(entry);
    if (this.#prompt !== null) {
      if (
        mayBePromptsOwn(entry, this.#prompt, this.#promptIds) &&
        ++this.#run <= LOOK_BEHIND_ENTRIES
      ) {
        return false;
      }
      return this.#settle(); // this entry decides the run
    }
    const command = this.#commandCheck;
    this.#commandCheck = null;
    if (command !== null && commandCanOpen(command, entry)) {
      this.#complete = true; // the user typed it: it opened the turn
      return this.#settle();
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
      // turn, unless the entry before it shows the model's launch or a
      // local command's caveat.
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
    this.#modelActed ||= compactionSettlesTurn([entry]);
    if (
      this.#promptIds && carriesOtherPromptId(entry, this.#newerPromptId) &&
      this.#newerInputOpens()
    ) {
      this.#complete = true; // the nearest newer one opened the turn
      return this.#settle();
    }
    if (this.#promptIds && namesTurnPromptId(entry)) {
      this.#newerPromptId = entry.promptId;
      this.#newerPromptIdAt = at;
    }
    return false;
  }

  /**
   * Whether the nearest newer entry naming a promptId, which took a new
   * one, opened a turn: an input (a note) the client queried on, or that
   * nothing after it settled. A result of a new promptId goes on in its
   * turn (only its prompt line, not among newer entries here, takes it).
   */
  #newerInputOpens(): boolean {
    const at = this.#newerPromptIdAt;
    const input = this.#window[at];
    if (input === undefined || !mayBeInput(input, this.#window[at + 1])) {
      return false;
    }
    return inputOutcome(this.#window, this.#newerPromptIdAt) !== "stays";
  }

  /**
   * Tells the collector that the file's first line was offered: a late
   * prompt line's run may reach back to it, and a turn without a start
   * found began before the file did.
   */
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

  /** Whether the start of the turn was reached. */
  get complete(): boolean {
    return this.#complete;
  }

  /**
   * Offset of the entry that showed where the turn starts (its prompt, a
   * slash command, an entry of another promptId, or a compaction the model
   * acted after), or null before it was reached. Entries taken from behind
   * a late prompt line lie before it.
   */
  get startOffset(): number | null {
    return this.opener?.offset ?? null;
  }

  /**
   * The entry that showed where the turn starts (see {@link startOffset}),
   * or null before it was reached.
   */
  get opener(): Entry | null {
    if (!this.#complete) return null;
    const turn = this.#turn();
    if (this.#atCompaction && turn.opener === null) {
      return this.#window.at(-1) as Entry;
    }
    return turn.opener;
  }

  /**
   * The turn's entries collected so far, in file order: calls taken from
   * behind it for its results first (copies holding those calls only).
   */
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

  /**
   * Whether the split of the window depends on the promptId named before
   * it: an entry names one before any prompt or compaction of the window.
   */
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

  /**
   * The turn is known: looks behind it for the calls its results answer,
   * in what was read already, then in older entries (see `#readOrphans`).
   */
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

  #readOrphans(entry: Entry): boolean {
    if (this.#orphansDone(entry)) this.#phase = "done";
    return this.#phase === "done";
  }

  /**
   * Takes from an older entry the calls that the turn's results answer.
   * True once no more are to be found: none left, a prompt or compaction
   * reached, or {@link LOOK_BEHIND_ENTRIES} entries looked at.
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

  /**
   * The last turn of the window, by the forward rule. The window starts at
   * the file's start only when reading ran out there before it was settled.
   */
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
