/**
 * Transcript lag: Stop can fire before the final assistant lines reach the
 * file. The payload's `last_assistant_message` is written synchronously, so a
 * non-empty one that says something the turn had not already said on disk
 * proves the model did follow up.
 *
 * @module
 */

import {
  API_ERROR_PREFIX,
  type Entry,
  isPlaceholderText,
} from "../transcript/entry.ts";

/**
 * Whether `lastAssistantMessage` proves a follow-up the transcript lacks.
 *
 * It proves nothing when it is blank or equal to text already in the turn
 * (a block's text, a message's joined texts, or the turn's joined texts):
 * that is the text written before the stalled call. Nor when it is Claude
 * Code's own text, a placeholder (`(no content)`, `No response
 * requested.`) or its `API Error: ...` (releases before 2.1.78 fire Stop
 * after an API error). Texts are compared
 * with whitespace runs collapsed, without building normalised copies, so
 * the cost is linear in the turn's text and the claim, with no extra memory.
 *
 * @param lastAssistantMessage The payload field, when present.
 * @param turn The current turn's entries in file order.
 */
export function provesFollowUp(
  lastAssistantMessage: string | null,
  turn: readonly Entry[],
): boolean {
  if (lastAssistantMessage === null) return false;
  if (isClaudeCodeText(lastAssistantMessage)) return false;
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

/**
 * Whether a payload's `last_assistant_message` is Claude Code's own text
 * (a placeholder or an `API Error: ...`), not the model's words.
 */
export function isClaudeCodeText(text: string): boolean {
  return isPlaceholderText(text) ||
    text.trimStart().startsWith(`${API_ERROR_PREFIX}:`);
}

/** Collapses whitespace runs to one space and trims. */
export function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** `normalise(text).length`, without building the normalised copy. */
export function normalisedLength(text: string): number {
  const cursor = new NormalisedCursor(text);
  let length = 0;
  while (cursor.next() >= 0) length++;
  return length;
}

/**
 * Whether `normalise(claim) === normalise(texts.join(" "))`, without
 * building either. Stops at the first difference.
 */
export function normalisedEquals(
  claim: string,
  texts: readonly string[],
): boolean {
  const expected = new NormalisedCursor(claim);
  let started = false; // a non-space was seen (leading spaces are trimmed)
  let space = false; // a whitespace run is pending since the last match
  for (let t = 0; t < texts.length; t++) {
    if (t > 0 && started) space = true; // the joining " "
    const text = texts[t] as string;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (isSpace(code)) {
        space = started;
        continue;
      }
      if (space) {
        if (expected.next() !== 0x20) return false;
        space = false;
      }
      if (expected.next() !== code) return false;
      started = true;
    }
  }
  // A trailing run is trimmed away.
  return expected.next() < 0;
}

/** Reads `normalise(text)` one code unit at a time. */
class NormalisedCursor {
  #text: string;
  #at = 0;
  #started = false;

  constructor(text: string) {
    this.#text = text;
  }

  /** The next code unit, or -1 at the end. */
  next(): number {
    const text = this.#text;
    let at = this.#at;
    let space = false;
    while (at < text.length && isSpace(text.charCodeAt(at))) {
      at++;
      space = true;
    }
    this.#at = at;
    if (at >= text.length) return -1;
    if (space && this.#started) return 0x20; // the run, before its next char
    this.#started = true;
    this.#at = at + 1;
    return text.charCodeAt(at);
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
