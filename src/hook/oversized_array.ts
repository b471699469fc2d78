/**
 * Cuts an over-long array out of a payload's JSON text before it is parsed,
 * so a Stop payload listing a million background tasks costs a scan of its
 * text instead of a million objects in memory.
 *
 * @module
 */

/** Texts shorter than this are parsed as they are: nothing in them is big. */
const MIN_TEXT_CHARS = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** The text with over-long arrays replaced by `[]`, and whether any was. */
export interface CutResult {
  text: string;
  cut: boolean;
}

/**
 * Replaces the value of every `"<key>": [...]` with more than `maxItems`
 * items by `[]`.
 *
 * Only a real key is matched: an unescaped `"<key>"` after `{` or `,` and
 * before `:` and `[` (inside a JSON string its quotes would be escaped). A
 * text that is not valid JSON is returned as it is, for the parser to
 * reject.
 *
 * @param text The payload's JSON text.
 * @param key An object key without quotes or escapes.
 */
export function cutOversizedArrays(
  text: string,
  key: string,
  maxItems: number,
): CutResult {
  if (text.length < MIN_TEXT_CHARS) return { text, cut: false };
  const needle = `"${key}"`;
  const kept: string[] = [];
  let from = 0; // start of the text not yet copied to `kept`
  let at = text.indexOf(needle);
  while (at >= 0) {
    let next = at + needle.length;
    const open = startsKey(text, at) ? arrayAfterColon(text, next) : -1;
    if (open >= 0) {
      const end = arrayEnd(text, open, maxItems);
      if (end === -1) return { text, cut: false }; // unterminated: not JSON
      if (end.items > maxItems) {
        kept.push(text.slice(from, open), "[]");
        from = end.close + 1;
        next = from;
      }
    }
    at = text.indexOf(needle, next);
  }
  if (kept.length === 0) return { text, cut: false };
  kept.push(text.slice(from));
  return { text: kept.join(""), cut: true };
}

/** Whether the quote at `at` opens a key: `{` or `,` before it. */
function startsKey(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
  const before = text.charCodeAt(i);
  return before === 0x7b /* { */ || before === COMMA;
}

/** The index of the `[` after `: `, or -1. */
function arrayAfterColon(text: string, from: number): number {
  let i = from;
  while (isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x3a /* : */) return -1;
  i++;
  while (isSpace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === 0x5b /* [ */ ? i : -1;
}

/**
 * Where the array opened at `open` closes, and how many items it has
 * (counted up to `maxItems + 1`). `-1` when it never closes.
 */
function arrayEnd(
  text: string,
  open: number,
  maxItems: number,
): { close: number; items: number } | -1 {
  let depth = 0;
  let commas = 0;
  let empty = true;
  for (let i = open; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
      empty = false;
    } else if (code === 0x5b || code === 0x7b) {
      if (depth++ > 0) empty = false;
    } else if (code === 0x5d || code === 0x7d) {
      if (--depth === 0) {
        const items = empty ? 0 : Math.min(commas + 1, maxItems + 1);
        return { close: i, items };
      }
    } else if (code === COMMA) {
      if (depth === 1) commas++;
    } else if (!isSpace(code)) {
      empty = false;
    }
  }
  return -1;
}

/** The index of the quote that closes the string opened at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at >= 0) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}
