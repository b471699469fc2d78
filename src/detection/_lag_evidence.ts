/**
 * Whether the transcript on file can be the whole turn a Stop fired for, or
 * is still behind it: the only case worth waiting for.
 *
 * Claude Code writes transcript lines through a queue, and a Stop can fire
 * before the turn's lines reach the file. Seen in the real client under
 * load (2.1.145, four busy loops on two cores): a Stop whose transcript did
 * not exist yet, one with only the session's metadata lines, one with the
 * model's call but not its result, and many with the final reply missing.
 * Stop fires once the model's reply is complete and every call it made has
 * its result, so what is on file at a Stop shows when it is behind:
 *
 * - no file, or no model reply in the turn;
 * - the payload names the turn (`prompt_id`, 2.1.196+) and the file holds
 *   stamped entries, none of them this turn's;
 * - the newest turn on file already ended (its `turn_duration` line is
 *   written after its Stop hooks ran): the Stop is for a turn not on file;
 * - a call of the turn has no result, or the model's last message stopped
 *   for a call whose line is not there, unless the payload's
 *   `last_assistant_message` is the text of the newest model message on
 *   file (that message is the final reply Claude Code stopped on: the file
 *   is not behind it, and a result behind it would have been written first);
 * - a stall shows, and the turn's stamped entries name a `promptId` whose
 *   prompt line is not on file yet (2.1.145 under load wrote the call and
 *   its result seconds before the prompt line and the rest of the turn);
 * - the turn on file ends on model text, yet a payload that would carry the
 *   final reply's text (2.1.47+) has none: that text is not the final reply
 *   (2.1.47 writes `stop_reason: null` on every line, so only this shows a
 *   message whose call line is still on its way);
 * - a result looks unanswered and the payload cannot carry the final reply
 *   (see {@link mayLag}).
 *
 * Each can also be a real stall's shape, so the hook waits for the file to
 * catch up only within `lag_wait_ms`, then judges what it holds.
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";
import { isClaudeCodeText, normalisedEquals } from "./_follow_up_proof.ts";
import { releaseOf, supports } from "../claude_client/release.ts";
import type { StallKind } from "./classify.ts";
import { openerPending } from "../transcript/turn_rule.ts";

/** What the payload shows that bears on lag. */
export interface LagEvidence {
  /** The payload's `last_assistant_message`, `null` when absent. */
  lastAssistantMessage: string | null;
  /**
   * The payload carries a field only later versions send (`prompt_id`,
   * 2.1.196+; `background_tasks`, 2.1.145+).
   */
  payloadSendsLastMessage: boolean;
}

/** The transcript as a scan found it, for {@link behindReason}. */
export interface TurnOnFile {
  /** The turn's entries in file order. */
  entries: readonly Entry[];
  /** An end-of-turn line follows the turn's newest entry. */
  endedOnFile: boolean;
  /** What opened the turn (a prompt, a command, ...), or null when not read. */
  opener: Entry | null;
}

/** Why a file is taken to be behind its Stop; see the module comment. */
export type BehindReason =
  | "no_file"
  | "no_reply"
  | "other_prompt"
  | "turn_ended"
  | "call_unsettled"
  | "opener_unsent"
  | "text_unsent"
  | "reply_unsent";

/** The stall kinds a call line or result still on its way would explain. */
const UNSETTLED_KINDS: ReadonlySet<StallKind> = new Set([
  "pending_tool_use",
  "hung_mcp_call",
  "lost_tool_call",
]);

/**
 * Why the transcript looks behind the Stop, or `null` when what is on file
 * can be the whole turn.
 *
 * @param turn The scanned turn, or `null` when the file does not exist.
 * @param payload What the payload shows; `promptId` is its `prompt_id`.
 * @param stallKinds The kinds the classifier finds in `turn`.
 */
export function behindReason(
  turn: TurnOnFile | null,
  payload: LagEvidence & { promptId: string | null },
  stallKinds: readonly StallKind[],
): BehindReason | null {
  if (turn === null) return "no_file";
  if (
    payload.promptId !== null && isOtherTurn(turn.entries, payload.promptId)
  ) {
    return "other_prompt";
  }
  if (turn.endedOnFile) return "turn_ended";
  if (!hasReply(turn.entries)) return "no_reply";
  if (
    stallKinds.some((kind) => UNSETTLED_KINDS.has(kind)) &&
    !finalReplyOnFile(payload.lastAssistantMessage, turn.entries)
  ) {
    return "call_unsettled";
  }
  if (stallKinds.length > 0 && openerPending(turn.entries, turn.opener)) {
    return "opener_unsent";
  }
  if (
    payload.lastAssistantMessage === null && endsOnText(turn.entries) &&
    sendsLastMessage(payload, turn.entries)
  ) return "text_unsent";
  if (stallKinds.length > 0 && mayLag(payload, turn.entries)) {
    return "reply_unsent";
  }
  return null;
}

/**
 * True when entries carry prompt ids and none is `promptId`: the turn read
 * is an older one. (A file without stamps proves nothing either way.)
 */
function isOtherTurn(turn: readonly Entry[], promptId: string): boolean {
  let stamped = false;
  for (const entry of turn) {
    if (entry.promptId === promptId) return false;
    if (entry.promptId !== null) stamped = true;
  }
  return stamped;
}

/**
 * Whether `lastAssistantMessage` is the text of the newest model message on
 * file (its text blocks joined, whitespace runs collapsed). Claude Code
 * writes a turn's lines in order, so once the final reply is on file every
 * result before it is too. Claude Code's own texts (placeholders, API
 * errors) prove nothing.
 */
function finalReplyOnFile(
  lastAssistantMessage: string | null,
  turn: readonly Entry[],
): boolean {
  if (lastAssistantMessage === null) return false;
  if (isClaudeCodeText(lastAssistantMessage)) return false;
  // Newest line first, turned round once: an unshift per line would be
  // quadratic in a message of 50,000 lines.
  const lines: (readonly string[])[] = [];
  let messageId: string | null | undefined;
  for (let i = turn.length - 1; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant") {
      if (messageId === undefined) continue;
      break;
    }
    if (entry.synthetic || entry.apiError) {
      if (messageId === undefined) continue;
      break;
    }
    if (messageId === undefined) messageId = entry.messageId;
    else if (messageId === null || entry.messageId !== messageId) break;
    lines.push(entry.texts);
  }
  const texts = lines.reverse().flat();
  return texts.length > 0 && normalisedEquals(lastAssistantMessage, texts);
}

/**
 * Whether the model's newest activity in the turn is a message with text
 * and no call (Claude Code's own entries and notes aside).
 */
function endsOnText(turn: readonly Entry[]): boolean {
  for (let i = turn.length - 1; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind === "results" || entry.kind === "interrupt") return false;
    if (entry.kind !== "assistant" || entry.synthetic || entry.apiError) {
      continue;
    }
    if (entry.toolUses.length > 0) return false;
    if (entry.texts.length > 0) return true;
  }
  return false;
}

/** Whether the client sends `last_assistant_message` when there is text. */
function sendsLastMessage(
  evidence: LagEvidence,
  turn: readonly Entry[],
): boolean {
  return evidence.payloadSendsLastMessage ||
    supports(releaseOf(turn), "last_assistant_message") === true;
}

/**
 * Whether a lagging final reply can change the verdict of `turn`.
 *
 * Since 2.1.47 the payload carries the final reply's text in
 * `last_assistant_message`, and when it is absent the final reply had no
 * visible text (real 2.1.332 omits it then). A reply without text and
 * without a call (Stop fired, so it made none) is no follow-up however late
 * its line lands, so waiting cannot change the verdict. Only a Claude Code
 * older than 2.1.47, or one whose version nothing shows, leaves the payload
 * silent about a reply that may yet appear (the release's features are in
 * `claude_client/release.ts`).
 *
 * @param evidence What the payload shows.
 * @param turn The turn's entries in file order; the newest one that names
 * its `version` tells which Claude Code wrote the file.
 */
export function mayLag(
  evidence: LagEvidence,
  turn: readonly Entry[],
): boolean {
  if (evidence.lastAssistantMessage !== null) return false;
  if (evidence.payloadSendsLastMessage) return false;
  // An unknown release might be one without the field: wait.
  return supports(releaseOf(turn), "last_assistant_message") !== true;
}

/**
 * Whether the turn holds a model reply (any assistant entry, Claude Code's
 * own included). Stop fires only after one, so at a Stop a turn without
 * it is a transcript that has not caught up yet, on any release.
 */
export function hasReply(turn: readonly Entry[]): boolean {
  return turn.some((entry) => entry.kind === "assistant");
}
