/**
 * Cuts an over-long array out of a payload's JSON text before it is parsed:
 * a million background tasks cost a scan, not a million objects.
 *
 * @module
 */

/** Texts shorter than this are parsed as they are: nothing in them is big. */
const MIN_TEXT_CHARS = 1024 * 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The text with over-long arrays replaced by `[]`, and whether any was. */
interface CutResult {
  text: string;
  cut: boolean;
}

/** An open `[` or `{` during the scan; `watched`: the value of `"<key>"`. */
interface Container {
  open: number;
  watched: boolean;
  /** Commas directly inside it. */
  commas: number;
  /** Nothing but white space inside it so far. */
  empty: boolean;
}

/**
 * Replaces the value of every real `"<key>": [...]` key with more than
 * `maxItems` items by `[]`, in one pass over a stack of open brackets (a
 * rescan of nested arrays took a 2.4 MB payload over 30 s). Invalid JSON is
 * returned as it is, for the parser to reject.
 */
export function cutOversizedArrays(
  text: string,
  key: string,
  maxItems: number,
): CutResult {
  if (text.length < MIN_TEXT_CHARS) return { text, cut: false };
  const needle = `"${key}"`;
  const open: Container[] = [];
  /** `[open, close]` of each array to cut, outermost only, in text order. */
  const cuts: [number, number][] = [];
  let watchedAt = -1; // the `[` after a matched key, once found
  let previous = -1; // the last character that is not white space
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isSpace(code)) continue;
    const top = open.at(-1);
    if (code === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0) return { text, cut: false }; // never closes: not JSON
      if (
        end - i + 1 === needle.length && text.startsWith(needle, i) &&
        (previous === OPEN_BRACE || previous === COMMA)
      ) {
        watchedAt = arrayAfterColon(text, end + 1);
      }
      if (top) top.empty = false;
      i = end;
    } else if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      if (top) top.empty = false;
      open.push({ open: i, watched: i === watchedAt, commas: 0, empty: true });
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      const closed = open.pop();
      if (!closed) return { text, cut: false }; // closes what never opened
      const items = closed.empty ? 0 : closed.commas + 1;
      if (closed.watched && items > maxItems) {
        // The arrays cut so far inside this one go with it.
        while ((cuts.at(-1)?.[0] ?? -1) > closed.open) cuts.pop();
        cuts.push([closed.open, i]);
      }
    } else if (code === COMMA) {
      if (top) top.commas++;
    } else if (top) {
      top.empty = false;
    }
    previous = code;
  }
  if (open.length > 0) return { text, cut: false }; // never closes: not JSON
  if (cuts.length === 0) return { text, cut: false };
  const kept: string[] = [];
  let from = 0; // start of the text not yet copied to `kept`
  for (const [start, close] of cuts) {
    kept.push(text.slice(from, start), "[]");
    from = close + 1;
  }
  kept.push(text.slice(from));
  return { text: kept.join(""), cut: true };
}

/** The index of the `[` after `: `, or -1. */
function arrayAfterColon(text: string, from: number): number {
  let i = from;
  while (isSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== 0x3a /* : */) return -1;
  i++;
  while (isSpace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === OPEN_BRACKET ? i : -1;
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
