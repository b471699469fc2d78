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
 * that is the text written before the stalled call.
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
  const known = new Set<string>();
  const all: string[] = [];
  const byMessage = new Map<string, string[]>();
  for (const entry of turn) {
    if (entry.kind !== "assistant") continue;
    for (const text of entry.texts) {
      known.add(normalise(text));
      all.push(text);
      const key = entry.messageId ?? `line:${entry.offset}`;
      byMessage.set(key, [...(byMessage.get(key) ?? []), text]);
    }
  }
  for (const texts of byMessage.values()) known.add(normalise(texts.join(" ")));
  known.add(normalise(all.join(" ")));
  return !known.has(claimed);
}

function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
