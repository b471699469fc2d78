/**
 * The one rule for where a turn starts and ends, each release quirk gated by
 * its evidence; every turn reader decides through it (`turn.ts`). It follows
 * Claude Code's grammar, read from the client's source: docs/detection.md,
 * "Where a turn starts and ends" and its table "The transcript's grammar".
 *
 * @module
 */

import type { Entry, NoteEntry } from "./entry.ts";
import { parseRelease } from "../claude_client/release.ts";

/**
 * How many entries behind a turn's prompt line are looked at: 2.1.145 wrote
 * the line after the model's first reply, 2.1.47 after the call and its
 * result; beyond a few entries they are another turn's.
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
 * Whether a slash command opens a turn: the next eligible entry (undefined:
 * none yet) is its expansion (an `isMeta` note of the same `promptId`); a
 * local command writes output there.
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
 * Whether a slash command's line may open a turn: no caveat stands right
 * before it (Claude Code writes one exactly when the command queries nothing,
 * every release 1.0.x to 2.1.332), and the user typed it: no model's call
 * wrote it (naming the call, `sourceToolUseID` from about 2.0.50, or right
 * after a launching tool's result; it goes on in the model's turn).
 */
export function commandCanOpen(
  command: NoteEntry,
  before: Entry | null | undefined,
): boolean {
  const caveat = before?.kind === "note" && before.source === "caveat";
  if (caveat || command.launchedBy !== undefined) return false;
  return !(before?.kind === "results" &&
    before.results.some((result) => result.launch === true));
}

/**
 * Whether `entry`, of another promptId than the entry before, may open a turn
 * once the client queries on it: a note, not a caveat or a command that may not.
 */
export function mayBeInput(
  entry: Entry,
  before: Entry | null | undefined,
): boolean {
  if (entry.kind !== "note" || entry.source === "caveat") return false;
  return entry.source !== "command" || commandCanOpen(entry, before);
}

/**
 * Whether `entry` ends the turn in progress whatever `promptId` it carries (a
 * prompt typed to interrupt stamps its own): an interrupt, or all results stopped.
 */
export function endsTurnInProgress(entry: Entry): boolean {
  return entry.kind === "interrupt" ||
    (entry.kind === "results" && entry.results.length > 0 &&
      entry.results.every((result) => result.userStopped));
}

/**
 * How the next entry (not a prompt: see `ownsPromptId`) settles an input
 * waiting to open a turn (a command without its expansion, a note of another
 * `promptId`): `opens` (the client queried on it), `stays` (a result, or the
 * next input came first), `compaction` (it opens where it names another
 * `promptId`), `waits` (more of the same input).
 */
export type InputStep = "opens" | "stays" | "compaction" | "waits";

/** How `next` settles `input` (see {@link InputStep}). */
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
 * Whether `entry` names the promptId of the turn it belongs to: not a
 * compaction's entries (it goes on in its turn), nor what ends the turn in
 * progress (it may carry the next prompt's).
 */
export function namesTurnPromptId(entry: Entry): boolean {
  return entry.promptId !== null && entry.kind !== "boundary" &&
    !(entry.kind === "note" && entry.source === "compaction") &&
    !endsTurnInProgress(entry);
}

/** Whether promptIds mark turns: not in a subagent's own file, whose entries carry the parent's. */
export function promptIdsMarkTurns(includeSidechains: boolean): boolean {
  return !includeSidechains;
}

/**
 * Whether `entry` names another promptId than `previous`, the nearest one
 * named before it (null: none since the turn began or was compacted); read
 * alike both ways.
 */
export function carriesOtherPromptId(
  entry: Entry,
  previous: string | null,
): boolean {
  return previous !== null && namesTurnPromptId(entry) &&
    entry.promptId !== previous;
}

/**
 * Whether `entry`, written before `prompt`'s line, carries the prompt's own
 * promptId (on resume, a crashed call's result comes first).
 */
export function ownsPromptId(entry: Entry, prompt: Entry): boolean {
  return prompt.promptId !== null && namesTurnPromptId(entry) &&
    entry.promptId === prompt.promptId;
}

function madeAfter(entry: Entry, prompt: Entry): boolean {
  return entry.time !== undefined && prompt.time !== undefined &&
    entry.time > prompt.time;
}

/**
 * Whether the release that wrote `prompt` can put a prompt line after
 * entries of its turn (2.x; 1.0.x rewrote answers' times on resume, so its
 * times say nothing). An unknown release is given the benefit.
 */
export function mayWriteLatePrompt(prompt: Entry): boolean {
  if (prompt.version === undefined) return true;
  const release = parseRelease(prompt.version);
  return release === null || release[0] >= 2;
}

/**
 * Whether `entry`, right before `prompt`'s line, is the prompt's, written
 * ahead of it: made after it, by the same release.
 */
export function isLateFor(entry: Entry, prompt: Entry): boolean {
  if (entry.kind === "prompt" || entry.kind === "boundary") return false;
  if (endsTurnInProgress(entry)) return false;
  if (!madeAfter(entry, prompt)) return false;
  return entry.version === undefined || prompt.version === undefined ||
    entry.version === prompt.version;
}

/**
 * Whether `entry`, behind a run of late entries, closes the run: the turn
 * before's, made no later than the prompt. A prompt or compaction there is
 * no queue delay: the times are not the evidence they seem.
 */
function closesLateRun(entry: Entry, prompt: Entry): boolean {
  return entry.kind !== "prompt" && entry.kind !== "boundary" &&
    !madeAfter(entry, prompt);
}

/**
 * How many of the entries right before a prompt line are the prompt's:
 * `before` back to the previous turn start, nearest last (the last
 * {@link LOOK_BEHIND_ENTRIES} + 1 are looked at); `reachesFileStart`: the
 * file starts before `before[0]`, which closes a run as a turn would.
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
 * Whether the turn's opening line is not on file yet, though its newest
 * stamped entry is (real 2.1.145 under load wrote a call and its result
 * before the prompt line). Read back to a compaction, or unstamped: `false`;
 * start out of a reader's budget: `true` (callers wait a bounded time).
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
 * Whether a raw line is a main transcript's `turn_duration`: Claude Code
 * appends it when a turn is over, also one ending on a tool result, where no
 * Stop hook fires (the watcher reads it).
 */
export function isTurnEndMarker(object: Record<string, unknown>): boolean {
  return object.type === "system" && object.subtype === "turn_duration" &&
    object.isSidechain !== true;
}
