/**
 * The one rule for where a turn starts and ends, with the release quirks it
 * needs, each applied only where its evidence holds. The audit's forward
 * splitter, the hook's backward reader and the watcher's follower all
 * decide through these functions (`turn.ts` holds the first two; the
 * watcher feeds its appended lines to the same splitter). It follows the
 * grammar of what Claude Code writes, read from the client's own source
 * (the table in `docs/detection.md`, "The transcript's grammar").
 *
 * A turn is one run of the client's query loop: an input (a human prompt,
 * a slash command, a wake-up) and what the model and the client wrote
 * until the loop ended. What opens one, read in file order:
 *
 * - a human prompt, always: prompts that share one `promptId` (VS Code
 *   stamped many with one) are still separate turns;
 * - a slash command the user typed, when its expanded prompt follows it:
 *   the model works on it as on a prompt. One the model launched with a
 *   tool call (`SlashCommand`, `Skill`) goes on in the model's turn: its
 *   line follows the call's result ("Launching command: /x") and, from
 *   about 2.0.50, names the call (`sourceToolUseID`);
 * - any other input, once the client queries on it: a command without an
 *   expansion (a local command that hands the model work, as `/doctor`
 *   does), a note stamped with another `promptId` than the entry before it
 *   (a task notification, a scheduled wake-up). It opens a turn when the
 *   model's reply, Claude Code's own API-error entry or an interrupt comes
 *   before the next input, or when its own prompt line follows within
 *   reach (Claude Code wrote it ahead of the line). A local command that
 *   queries nothing (`/model`, `/context`, shell mode) writes its records
 *   and opens nothing: they go on in the turn in progress.
 *
 * `promptId` (2.1.x) is the session's current prompt when a line was
 * written, stamped on every user entry: the client sets a new one for each
 * prompt, slash command (local ones too) and wake-up it processes. So an
 * entry of another `promptId` says an input was processed, not that it
 * opened a turn; a tool result stamped with a new one answers a call made
 * before it and goes on in its turn (unless its prompt line, written after
 * it, owns it: on resume, the result Claude Code gives a call the crash
 * cut short). An interrupt marker, or a result the user stopped, is
 * written by the query it aborts and ends that turn, whatever `promptId`
 * it carries (a prompt typed to interrupt stamps its own on the marker).
 * In a subagent's own file every user entry carries the *parent's*
 * current `promptId`: there promptIds say nothing, and what comes before
 * the subagent's first prompt is the parent's conversation copied as a
 * fork's context, no turn.
 *
 * What does not open one: a compaction (`compact_boundary` and its
 * summary) goes on in the turn it happens in; the model carries on after
 * the summary. Since the model sees only the summary afterwards, a call
 * left open before it can no longer be answered (the classifier's
 * concern); and once the model acted after a compaction, nothing before it
 * can change the turn's verdict, which lets the backward reader stop there
 * ({@link compactionSettlesTurn}).
 *
 * Claude Code writes entries through a queue, and now and then a prompt
 * line lands after entries of its own turn: 2.1.145 wrote the model's
 * first call ahead of it, 2.1.47 under load the call and its result. The
 * entries right before a prompt line that were made after it (their
 * `timestamp`) are then the prompt's ({@link lateEntryCount}). 1.0.x
 * rewrote the timestamps of assistant and result entries to the time a
 * session was resumed, while prompts kept theirs, so there times order
 * nothing: the look-behind applies only where its evidence holds (a
 * release that can write a late prompt line, entries written by the same
 * release as the prompt, and a run that an older entry made before the
 * prompt closes, as the end of the turn before does).
 *
 * @module
 */

import type { Entry, NoteEntry } from "./entry.ts";
import { parseRelease } from "../claude_client/release.ts";

/**
 * How many entries behind a turn's prompt line are looked at. 2.1.145 was
 * seen writing the prompt line after the model's first reply (2 of 4
 * interactive runs), 2.1.47 after the call and its result; beyond a few
 * entries they are another turn's.
 */
export const LOOK_BEHIND_ENTRIES = 8;

/** Whether `entry` takes part in turns (a subagent's own file keeps sidechains). */
export function isEligible(entry: Entry, includeSidechains: boolean): boolean {
  return includeSidechains || !entry.sidechain;
}

/** A slash command's line: it opens a turn when its expansion follows. */
export function isCommand(entry: Entry): entry is NoteEntry {
  return entry.kind === "note" && entry.source === "command";
}

/**
 * Whether a slash command opens a turn: the entry right after it is its
 * expanded prompt (an `isMeta` note of the same `promptId`, not the caveat
 * of a local command after it), which the model answers. A local command
 * writes its output there instead.
 *
 * @param command The command's line.
 * @param next The next eligible entry after the command, or `undefined`
 * when none is on file yet.
 */
export function commandOpensTurn(
  command: Entry,
  next: Entry | undefined,
): boolean {
  return next !== undefined && next.kind === "note" &&
    next.source === "meta" &&
    (command.promptId === null || next.promptId === null ||
      next.promptId === command.promptId);
}

/**
 * Whether a command's line was written by the model's tool call rather
 * than typed: it names the call (`sourceToolUseID`, from about 2.0.50),
 * or it follows right after a launching tool's result (the client writes
 * the tool's result, then the command's line and its expansion). Such a
 * command goes on in the model's turn.
 *
 * @param command The command's line.
 * @param before The eligible entry right before it, if any.
 */
export function isModelLaunch(
  command: NoteEntry,
  before: Entry | null | undefined,
): boolean {
  if (command.launchedBy !== undefined) return true;
  return before?.kind === "results" &&
    before.results.some((result) => result.launch === true);
}

/** The caveat Claude Code writes ahead of a local command's records. */
export function isCaveat(entry: Entry | null | undefined): boolean {
  return entry?.kind === "note" && entry.source === "caveat";
}

/**
 * Whether a slash command's line may open a turn: the user typed it (see
 * {@link isModelLaunch}), and no caveat stands right before it. Claude
 * Code writes the caveat ahead of what a command wrote exactly when the
 * command queries nothing (every release, 1.0.x to 2.1.332: `shouldQuery`
 * false): a local command, whose records go on in the turn in progress.
 *
 * @param command The command's line.
 * @param before The eligible entry right before it, if any.
 */
export function commandCanOpen(
  command: NoteEntry,
  before: Entry | null | undefined,
): boolean {
  return !isModelLaunch(command, before) && !isCaveat(before);
}

/**
 * Whether `entry`, naming another promptId than the entry before it, may
 * open a turn once the client queries on it: a note that is no caveat (a
 * caveat says the command after it queries nothing), nor a command's line
 * that may not open one ({@link commandCanOpen}).
 *
 * @param before The eligible entry right before it, if any.
 */
export function mayBeInput(
  entry: Entry,
  before: Entry | null | undefined,
): boolean {
  if (entry.kind !== "note" || entry.source === "caveat") return false;
  return entry.source !== "command" || commandCanOpen(entry, before);
}

/**
 * Whether `entry` ends the turn in progress whatever `promptId` it
 * carries: an interrupt marker, or results every one of which the user
 * stopped. The query being aborted writes them; a prompt typed to
 * interrupt has already stamped its own `promptId` on them.
 */
export function endsTurnInProgress(entry: Entry): boolean {
  return entry.kind === "interrupt" ||
    (entry.kind === "results" && entry.results.length > 0 &&
      entry.results.every((result) => result.userStopped));
}

/**
 * How an input waiting to open a turn (a command without its expansion, a
 * note of another `promptId`) is settled by the next entry (a prompt
 * excepted: its own rule decides, see `ownsPromptId`):
 *
 * - `opens`: the client queried on it (the model's reply, Claude Code's
 *   own API-error entry, an interrupt; not its resume filler `No response
 *   requested.`, written without a query);
 * - `stays`: the turn in progress went on (a result: it answers a call
 *   made before the input), or the next input came first (a command, a
 *   note of another `promptId`): it queried nothing;
 * - `compaction`: a compaction follows it (it opens a turn where it names
 *   another `promptId`: as before the rule knew queries);
 * - `waits`: more of the same input (its caveat, output, expansion).
 */
export type InputStep = "opens" | "stays" | "compaction" | "waits";

/** See {@link InputStep}. */
export function inputStep(input: Entry, next: Entry): InputStep {
  switch (next.kind) {
    case "assistant":
      // Claude Code's own filler (`No response requested.`) is written on
      // resume without a query; its API-error entry follows one.
      return next.synthetic === true && next.apiError !== true
        ? "waits"
        : "opens";
    case "interrupt":
      return "opens";
    case "results":
      return "stays";
    case "boundary":
      return "compaction";
    default:
      if (next.kind === "note" && next.source === "command") return "stays";
      // An entry naming another promptId (or one after an input naming
      // none) comes after the next input.
      return namesTurnPromptId(next) &&
          (!namesTurnPromptId(input) || next.promptId !== input.promptId)
        ? "stays"
        : "waits";
  }
}

/**
 * Whether `entry` names the promptId of the turn it belongs to. A
 * compaction's entries do not count: a compaction goes on in its turn; nor
 * does what ends the turn in progress ({@link endsTurnInProgress}), which
 * may carry the next prompt's.
 */
export function namesTurnPromptId(entry: Entry): boolean {
  return entry.promptId !== null && entry.kind !== "boundary" &&
    !(entry.kind === "note" && entry.source === "compaction") &&
    !endsTurnInProgress(entry);
}

/**
 * Whether promptIds mark turns in a file: in a main transcript. A
 * subagent's own file (`includeSidechains`) carries the parent's current
 * promptId on every user entry (the parent takes a new one at each task
 * notification or typed prompt), which says nothing of the subagent's.
 */
export function promptIdsMarkTurns(includeSidechains: boolean): boolean {
  return !includeSidechains;
}

/**
 * Whether `entry` names another promptId than `previous`, the one the
 * nearest entry before it named (null when none did since the turn began
 * or was compacted). The relation is between neighbours, so it reads the
 * same in both directions.
 */
export function carriesOtherPromptId(
  entry: Entry,
  previous: string | null,
): boolean {
  return previous !== null && namesTurnPromptId(entry) &&
    entry.promptId !== previous;
}

/**
 * Whether `entry`, written before `prompt`'s line, is stamped with the
 * prompt's own promptId: Claude Code wrote it for that prompt (on resume,
 * the result it gives a call the crash cut short comes first).
 */
export function ownsPromptId(entry: Entry, prompt: Entry): boolean {
  return prompt.promptId !== null && namesTurnPromptId(entry) &&
    entry.promptId === prompt.promptId;
}

/**
 * Whether `entry` was made after `prompt` (both say when): written before
 * the prompt line, it may still be the prompt's turn.
 */
export function madeAfter(entry: Entry, prompt: Entry): boolean {
  return entry.time !== undefined && prompt.time !== undefined &&
    entry.time > prompt.time;
}

/**
 * Whether the release that wrote `prompt` can put a prompt line after
 * entries of its turn. Seen on 2.1.47 and 2.1.145; 1.0.x instead rewrote
 * the times of assistant and result entries on resume, so its times cannot
 * say which lines came late. An unknown release is given the benefit of
 * the other checks.
 */
export function mayWriteLatePrompt(prompt: Entry): boolean {
  if (prompt.version === undefined) return true;
  const release = parseRelease(prompt.version);
  return release === null || release[0] >= 2;
}

/**
 * Whether `entry`, right before `prompt`'s line, is one of the prompt's
 * entries written ahead of it: made after the prompt, by the same release
 * (a resumed session's entries carry the release that rewrote them).
 */
export function isLateFor(entry: Entry, prompt: Entry): boolean {
  if (entry.kind === "prompt" || entry.kind === "boundary") return false;
  if (endsTurnInProgress(entry)) return false;
  if (!madeAfter(entry, prompt)) return false;
  return entry.version === undefined || prompt.version === undefined ||
    entry.version === prompt.version;
}

/**
 * Whether `entry`, found behind a run of late entries, closes the run: an
 * entry of the turn before, made no later than the prompt (or when, it
 * does not say). A prompt or compaction there means the turn before has
 * nothing of its own behind the prompt line, which no queue delay
 * explains: the times are not the evidence they seem.
 */
export function closesLateRun(entry: Entry, prompt: Entry): boolean {
  return entry.kind !== "prompt" && entry.kind !== "boundary" &&
    !madeAfter(entry, prompt);
}

/**
 * How many of the entries right before a prompt line belong to the
 * prompt's turn (see the module notes).
 *
 * @param prompt The prompt entry.
 * @param before The eligible entries before its line back to the previous
 * turn start, nearest last; only the last {@link LOOK_BEHIND_ENTRIES} + 1
 * are looked at.
 * @param reachesFileStart Nothing eligible lies before `before[0]`: the file
 * starts there, which closes a run as the turn before would.
 * @returns How many of `before`'s last entries are the prompt's.
 */
export function lateEntryCount(
  prompt: Entry,
  before: readonly Entry[],
  reachesFileStart: boolean,
): number {
  if (!mayWriteLatePrompt(prompt)) return 0;
  let run = 0;
  for (let i = before.length - 1; i >= 0; i--) {
    const entry = before[i] as Entry;
    if (isLateFor(entry, prompt)) {
      if (++run > LOOK_BEHIND_ENTRIES) return 0;
      continue;
    }
    return closesLateRun(entry, prompt) ? run : 0;
  }
  return reachesFileStart ? run : 0;
}

/**
 * Whether the backward reader, meeting a compaction, may stop there: the
 * model acted after it, so nothing before it can change the verdict (calls
 * before a compaction are out of the model's sight, and its later activity
 * answers every result before).
 *
 * @param after The turn's entries after the compaction.
 */
export function compactionSettlesTurn(after: readonly Entry[]): boolean {
  return modelActs(after);
}

/**
 * Whether the model acted in `entries`: its own text or call, not an entry
 * Claude Code wrote itself. What a file holds before its first turn start
 * is a turn only then (the rest of a turn begun in another file), not a
 * session's preamble of caveats and local commands.
 */
export function modelActs(entries: readonly Entry[]): boolean {
  return entries.some((entry) =>
    entry.kind === "assistant" && entry.synthetic !== true &&
    entry.apiError !== true &&
    (entry.texts.length > 0 || entry.toolUses.length > 0)
  );
}

/**
 * Whether the line that opened the turn is not on file yet, though the
 * turn's newest stamped entry is: that entry names a `promptId`, and
 * neither the turn's opener nor any entry of it is a prompt, command or
 * other note of that promptId. The file is then behind the turn, not the
 * turn over: real 2.1.145 (interactive, under load) wrote the model's call
 * and its result before the prompt line and the rest of the turn, which
 * landed seconds later.
 *
 * A turn read back to a compaction lacks its prompt by design (a reader
 * may stop there), and a file without stamps says nothing: both are
 * `false`. A turn whose start a reader's budget did not reach is `true`:
 * its callers wait a bounded time for it.
 *
 * @param turn The turn's entries in file order.
 * @param opener What opened it (see `SplitTurn.opener`), or null.
 */
export function openerPending(
  turn: readonly Entry[],
  opener: Entry | null,
): boolean {
  const stamped = turn.findLast(namesTurnPromptId);
  if (stamped === undefined) return false;
  const opens = (entry: Entry) =>
    entry.kind === "boundary" ||
    (entry.kind === "note" && entry.source === "compaction") ||
    ((entry.kind === "prompt" || entry.kind === "note") &&
      entry.promptId === stamped.promptId);
  return !(opener !== null && opens(opener)) && !turn.some(opens);
}

/**
 * True for a main-transcript `turn_duration` line (a raw parsed object):
 * Claude Code appends it when a turn is over, including turns that end on
 * a tool result, where no Stop hook fires. The watchdog's follower asks
 * for it on lines it reads raw.
 */
export function isTurnEndMarker(object: Record<string, unknown>): boolean {
  return object.type === "system" && object.subtype === "turn_duration" &&
    object.isSidechain !== true;
}
