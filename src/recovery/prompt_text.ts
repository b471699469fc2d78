/**
 * The one rule for putting untrusted names into the text the model reads: a
 * tool name, id or path is shown as it is when plain, else quoted as a JSON
 * string on one line (a tool name may hold a newline and a fake bullet),
 * with characters a reader cannot see escaped too, and cut in its middle
 * past {@link MAX_FIELD_CHARS}, so the prompt's own instructions always fit.
 *
 * @module
 */

import { escapeTerminal } from "../shared/terminal_text.ts";

/** Names that need no quotes: what real tool names, ids and paths use. */
const PLAIN = /^[A-Za-z0-9_.,:@/\\~+=-]+$/;

/** The longest a name, id or path may be in the prompt, quotes and escapes included. */
export const MAX_FIELD_CHARS = 200;

/**
 * `text` as it may appear in the prompt: unchanged when plain, else a
 * double-quoted JSON string whose newlines, quotes and control, bidi and
 * invisible characters are escaped; at most `maxChars` long.
 */
export function quoteForPrompt(
  text: string,
  maxChars: number = MAX_FIELD_CHARS,
): string {
  const whole = quoted(text);
  if (whole.length <= maxChars) return whole;
  // The most of both ends that fits once quoted: escapes make the quoted
  // length grow with the characters kept, so a binary search finds it.
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
  // JSON.stringify escapes C0 controls, quotes and backslashes; the terminal
  // rule adds DEL, C1, bidi, format and invisible characters, in a form
  // JSON also reads.
  return escapeTerminal(JSON.stringify(text));
}

/** `keep` characters of `text`: its start and end around `…`. */
function clipped(text: string, keep: number): string {
  const head = Math.ceil(keep / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (keep - head))}`;
}
