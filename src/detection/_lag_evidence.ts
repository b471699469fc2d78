/**
 * Whether the transcript is still behind the Stop (Claude Code writes through a
 * queue; docs/detection.md), and whether the payload proves a follow-up.
 *
 * @module
 */

import {
  API_ERROR_PREFIX,
  type Entry,
  isPlaceholderText,
} from "../transcript/entry.ts";
import { releaseOf, supports } from "../claude_client/release.ts";
import type { StallKind } from "./classify.ts";
import { openerPending } from "../transcript/turn_rule.ts";

/** What the payload shows that bears on lag. */
export interface LagEvidence {
  lastAssistantMessage: string | null;
  /** The payload carries a field only later releases send (`prompt_id`, `background_tasks`). */
  payloadSendsLastMessage: boolean;
}

/** The transcript as a scan found it (see `TurnScan`). */
interface TurnOnFile {
  entries: readonly Entry[];
  endedOnFile: boolean;
  opener: Entry | null;
}

/** Why a file is taken to be behind its Stop. */
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

/** Why the transcript (`null`: no file) looks behind the Stop, or `null`; `stallKinds`: what it shows. */
export function behindReason(
  turn: TurnOnFile | null,
  payload: LagEvidence & { promptId: string | null },
  stallKinds: readonly StallKind[],
): BehindReason | null {
  if (turn === null) return "no_file";
  if (isOtherTurn(turn.entries, payload.promptId)) return "other_prompt";
  if (turn.endedOnFile) return "turn_ended";
  // Stop fires only after a model reply: without one the file is behind.
  if (!turn.entries.some((e) => e.kind === "assistant")) return "no_reply";
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

/** Whether entries carry prompt ids, none `promptId`: the turn read is an older one. */
function isOtherTurn(turn: readonly Entry[], promptId: string | null): boolean {
  if (promptId === null) return false;
  let stamped = false;
  for (const entry of turn) {
    if (entry.promptId === promptId) return false;
    if (entry.promptId !== null) stamped = true;
  }
  return stamped;
}

/** Whether `lastAssistantMessage` is the newest model message's text on file (so every result before is). */
function finalReplyOnFile(
  lastAssistantMessage: string | null,
  turn: readonly Entry[],
): boolean {
  if (!isModelText(lastAssistantMessage)) return false;
  const lines: (readonly string[])[] = [];
  let messageId: string | null | undefined;
  for (let i = turn.length - 1; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant" || entry.synthetic || entry.apiError) {
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

/** Whether the model's newest activity is a message with text and no call. */
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

function sendsLastMessage(
  evidence: LagEvidence,
  turn: readonly Entry[],
): boolean {
  return evidence.payloadSendsLastMessage ||
    supports(releaseOf(turn), "last_assistant_message") === true;
}

/** Whether a late reply can change the verdict: before 2.1.47 (or unknown) the payload is silent on it. */
export function mayLag(
  evidence: LagEvidence,
  turn: readonly Entry[],
): boolean {
  return evidence.lastAssistantMessage === null &&
    !sendsLastMessage(evidence, turn);
}

/**
 * Whether the payload's `last_assistant_message` (written synchronously)
 * proves a follow-up the transcript lacks: not blank, not text already in the
 * turn, not Claude Code's own (before 2.1.78 Stop fires after `API Error`).
 */
export function provesFollowUp(
  lastAssistantMessage: string | null,
  turn: readonly Entry[],
): boolean {
  if (!isModelText(lastAssistantMessage)) return false;
  // The claim is never normalised into a copy: it may be megabytes long.
  const claimLength = normalisedLength(lastAssistantMessage);
  if (claimLength === 0) return false;
  const same = (texts: readonly string[]) =>
    normalisedEquals(lastAssistantMessage, texts);
  const all: string[] = [];
  const byMessage = new Map<string, { texts: string[]; chars: number }>();
  for (const entry of turn) {
    if (entry.kind !== "assistant") continue;
    for (const text of entry.texts) {
      // Normalising never lengthens a text: a shorter one cannot match.
      if (text.length >= claimLength && same([text])) return false;
      all.push(text);
      const key = entry.messageId ?? `line:${entry.offset}`;
      const message = byMessage.get(key);
      if (message) {
        message.texts.push(text);
        message.chars += text.length + 1;
      } else byMessage.set(key, { texts: [text], chars: text.length });
    }
  }
  for (const { texts, chars } of byMessage.values()) {
    if (texts.length > 1 && chars >= claimLength && same(texts)) return false;
  }
  return !same(all);
}

/** Whether a payload's `last_assistant_message` is there and not Claude Code's own text. */
function isModelText(text: string | null): text is string {
  return text !== null && !isPlaceholderText(text) &&
    !text.trimStart().startsWith(`${API_ERROR_PREFIX}:`);
}

/** The length of `text` with whitespace runs collapsed and trimmed, without the copy. */
export function normalisedLength(text: string): number {
  const cursor = new NormalisedCursor([text]);
  let length = 0;
  while (cursor.next() >= 0) length++;
  return length;
}

/** Whether `claim` equals `texts.join(" ")`, whitespace runs collapsed and trimmed, without copies. */
export function normalisedEquals(
  claim: string,
  texts: readonly string[],
): boolean {
  const expected = new NormalisedCursor([claim]);
  const actual = new NormalisedCursor(texts);
  for (;;) {
    const code = expected.next();
    if (actual.next() !== code) return false;
    if (code < 0) return true;
  }
}

/** Reads `texts.join(" ")`, whitespace runs collapsed and trimmed, one code unit at a time. */
class NormalisedCursor {
  #texts: readonly string[];
  #text = 0;
  #at = 0;
  #started = false;

  constructor(texts: readonly string[]) {
    this.#texts = texts;
  }

  /** The next code unit, or -1 at the end. */
  next(): number {
    let space = false;
    for (let text = this.#texts[this.#text]; text !== undefined;) {
      if (this.#at >= text.length) {
        text = this.#texts[++this.#text];
        this.#at = 0;
        space ||= text !== undefined; // the joining " "
        continue;
      }
      const code = text.charCodeAt(this.#at);
      if (isSpace(code)) {
        this.#at++;
        space = true;
      } else if (space && this.#started) {
        return 0x20; // the run, before its next char
      } else {
        this.#started = true;
        this.#at++;
        return code;
      }
    }
    return -1;
  }
}

/** The code units `\s` matches. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return code === 0xa0 || code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) || code === 0x2028 ||
    code === 0x2029 || code === 0x202f || code === 0x205f ||
    code === 0x3000 || code === 0xfeff;
}
