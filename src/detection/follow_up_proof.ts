/**
 * Transcript lag: Stop can fire before the final assistant lines reach the
 * file. The payload's `last_assistant_message` is written synchronously, so a
 * non-empty one that says something the turn had not already said on disk
 * proves the model did follow up.
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";

/**
 * Whether `lastAssistantMessage` proves a follow-up the transcript lacks.
 *
 * It proves nothing when it is blank or equal to text already in the turn
 * (a block's text, a message's joined texts, or the turn's joined texts):
 * that is the text written before the stalled call. Texts are compared
 * with whitespace runs collapsed, without building the normalised copies,
 * so the cost is linear in the turn's text and needs no extra memory.
 *
 * @param lastAssistantMessage The payload field, when present.
 * @param turn The current turn's entries in file order.
 */
export function provesFollowUp(
  lastAssistantMessage: string | null,
  turn: readonly Entry[],
): boolean {
  if (lastAssistantMessage === null) return false;
  const claimed = normalise(lastAssistantMessage);
  if (claimed === "") return false;
  const all: string[] = [];
  const byMessage = new Map<string, string[]>();
  for (const entry of turn) {
    if (entry.kind !== "assistant") continue;
    for (const text of entry.texts) {
      if (normalisedEquals(claimed, [text])) return false;
      all.push(text);
      const key = entry.messageId ?? `line:${entry.offset}`;
      const texts = byMessage.get(key);
      if (texts) texts.push(text);
      else byMessage.set(key, [text]);
    }
  }
  for (const texts of byMessage.values()) {
    if (texts.length > 1 && normalisedEquals(claimed, texts)) return false;
  }
  return !normalisedEquals(claimed, all);
}

/** Collapses whitespace runs to one space and trims. */
export function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Whether `normalise(texts.join(" ")) === claimed`, for a `claimed` that is
 * already normalised. Stops at the first difference.
 */
export function normalisedEquals(
  claimed: string,
  texts: readonly string[],
): boolean {
  let at = 0; // next code unit of `claimed` to match
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
        if (claimed.charCodeAt(at) !== 0x20) return false;
        at++;
        space = false;
      }
      if (claimed.charCodeAt(at) !== code) return false;
      at++;
      started = true;
    }
  }
  // A trailing run is trimmed away.
  return at === claimed.length;
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
