/**
 * The one rule for where a turn starts and ends, with the release quirks it
 * needs, each applied only where its evidence holds. The audit's forward
 * splitter, the hook's backward reader and the watcher's follower all
 * decide through these functions (`turn.ts` holds the first two; the
 * watcher feeds its appended lines to the same splitter).
 *
 * What opens a turn, read in file order:
 *
 * - a human prompt, always: prompts that share one `promptId` (VS Code
 *   stamped many with one) are still separate turns;
 * - a slash command the user typed, when its expanded prompt follows it:
 *   the model works on it as on a prompt (a local command such as `/model`
 *   writes its output instead, and opens nothing);
 * - an entry stamped with another `promptId` than the turn's (a wake-up
 *   with its own `promptId`). When its own prompt line follows within
 *   reach, the prompt is the turn's opener and the entry its first: Claude
 *   Code wrote it ahead of the line (on resume, the result it gives a call
 *   the crash cut short). After a compaction promptIds are compared afresh,
 *   with the first one named after it.
 *
 * What does not: a compaction (`compact_boundary` and its summary) goes on
 * in the turn it happens in; the model carries on after the summary. Since
 * the model sees only the summary afterwards, a call left open before it
 * can no longer be answered (the classifier's concern); and once the model
 * acted after a compaction, nothing before it can change the turn's
 * verdict, which lets the backward reader stop there
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

/** A slash command the user typed: it opens a turn when its expansion follows. */
export function isCommand(entry: Entry): entry is NoteEntry {
  return entry.kind === "note" && entry.source === "command";
}

/**
 * Whether a slash command opens a turn: the entry right after it is its
 * expanded prompt (an `isMeta` note), which the model answers. A local
 * command writes its output there instead.
 *
 * @param next The next eligible entry after the command, or `undefined`
 * when none is on file yet.
 */
export function commandOpensTurn(next: Entry | undefined): boolean {
  return next !== undefined && next.kind === "note" && next.source === "meta";
}

/**
 * Whether `entry` names the promptId of the turn it belongs to. A
 * compaction's entries do not count: a compaction goes on in its turn.
 */
export function namesTurnPromptId(entry: Entry): boolean {
  return entry.promptId !== null && entry.kind !== "boundary" &&
    !(entry.kind === "note" && entry.source === "compaction");
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
