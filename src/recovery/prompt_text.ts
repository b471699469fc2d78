/**
 * The one rule for untrusted names (tool name, id, path) in the model's text:
 * plain, or an escaped one-line JSON string cut in its middle.
 *
 * @module
 */

import { escapeTerminal } from "../shared/terminal_text.ts";

/** Names that need no quotes: what real tool names, ids and paths use. */
const PLAIN = /^[A-Za-z0-9_.,:@/\\~+=-]+$/;

/** The longest a name, id or path may be in the prompt, quotes and escapes included. */
export const MAX_FIELD_CHARS = 200;

/** `text` as it may appear in the prompt: unchanged when plain, else quoted and escaped; at most `maxChars`. */
export function quoteForPrompt(
  text: string,
  maxChars: number = MAX_FIELD_CHARS,
): string {
  const whole = quoted(text);
  if (whole.length <= maxChars) return whole;
  // The most of both ends that fits once quoted (escapes grow): a binary search.
  let low = 0;
  let high = Math.min(text.length, maxChars);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (quoted(clipped(text, mid)).length <= maxChars) low = mid;
    else high = mid - 1;
  }
  return quoted(clipped(text, low));
}

/** `text` quoted when not plain (see {@link quoteForPrompt}), uncapped. */
function quoted(text: string): string {
  if (PLAIN.test(text)) return text;
  // JSON.stringify escapes C0, quotes and backslashes; the terminal rule adds
  // DEL, C1, bidi and invisible characters, in a form JSON also reads.
  return escapeTerminal(JSON.stringify(text));
}

/** `keep` characters of `text`: its start and end around `…`. */
function clipped(text: string, keep: number): string {
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
}
