/**
 * The end of a model message read as markdown: the model's own prose apart
 * from code, quotations and tables (someone else's words).
 *
 * @module
 */

/** Most characters of a text that are read (its end). */
export const MAX_CLOSING_CHARS = 16 * 1024;

/** What a non-blank line is; `other`: a thematic break or a line of markup only. */
type LineKind =
  | "prose"
  | "item"
  | "heading"
  | "code"
  | "quote"
  | "table"
  | "other";

/** One non-blank line of the closing text. */
export interface ClosingLine {
  kind: LineKind;
  /** The words without markdown, as written; `""` for code, quotations, tables, markup. */
  plain: string;
  /** `plain` with inline code and quotations masked (`x`s): never the model's words. */
  masked: string;
  /** Wholly emphasised or code: a name or a label. */
  emphasised: boolean;
  raw: string;
}

interface ClosingText {
  /** Non-blank, in order. */
  lines: ClosingLine[];
  /** A cut window with an odd number of fences or an orphan HTML close: no line is surely prose. */
  ambiguous: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const LIST_ITEM = /^\s*(?:[-*+•]|\d{1,3}[.)])\s+/;
const HEADING = /^ {0,3}#{1,6}(?:\s+|$)/;
const QUOTE = /^ {0,3}>/;
const TABLE = /^\s*\|/;
const RULE = /^ {0,3}(?:[-*_]\s*){3,}$/;
const MARKUP_ONLY = /^\s*<\/?[A-Za-z][^>]*>\s*$/;

/** An HTML block of someone else's words opened on a line of its own, to its close. */
const HTML_BLOCK =
  /^\s*<(pre|blockquote|code|samp|script|textarea)\b[^>]*>\s*$/i;

const HTML_BLOCK_END =
  /^\s*<\/(?:pre|blockquote|code|samp|script|textarea)\s*>\s*$/i;

/** Reads the end of `text` (a message's blocks joined by newlines). */
export function readClosing(text: string): ClosingText {
  const cut = text.length > MAX_CLOSING_CHARS;
  let window = cut ? text.slice(text.length - MAX_CLOSING_CHARS) : text;
  // A cut leaves a partial first line: it is not read.
  if (cut) window = window.slice(window.indexOf("\n") + 1);
  const lines: ClosingLine[] = [];
  let fence: string | null = null;
  let fences = 0;
  let html: RegExp | null = null;
  // A block closed in a cut window that never opened in it began before it.
  let orphanClose = false;
  let blank = true;
  let previous: LineKind | null = null;
  for (const raw of window.split("\n")) {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const marker = FENCE.exec(line)?.[1];
    let kind: LineKind = "code";
    if (fence !== null) {
      fences += marker !== undefined ? 1 : 0;
      if (
        marker !== undefined && marker[0] === fence[0] &&
        marker.length >= fence.length && line.trim() === marker
      ) {
        fence = null;
      }
    } else if (marker !== undefined) {
      fences++;
      fence = marker;
    } else if (html !== null) {
      if (html.test(line)) html = null;
    } else if (line.trim() === "") {
      blank = true;
      continue;
    } else {
      if (HTML_BLOCK_END.test(line)) orphanClose = true;
      const opened = HTML_BLOCK.exec(line)?.[1];
      if (opened !== undefined) html = new RegExp(`</${opened}\\s*>`, "i");
      else kind = kindOf(line, blank, previous);
    }
    lines.push(
      kind === "prose" || kind === "item" || kind === "heading"
        ? wordsOf(line, kind)
        : { ...NO_WORDS, kind },
    );
    blank = false;
    previous = kind;
  }
  return { lines, ambiguous: cut && (fences % 2 === 1 || orphanClose) };
}

function kindOf(
  line: string,
  afterBlank: boolean,
  previous: LineKind | null,
): LineKind {
  if (QUOTE.test(line)) return "quote";
  if (TABLE.test(line)) return "table";
  if (RULE.test(line) || MARKUP_ONLY.test(line)) return "other";
  if (HEADING.test(line)) return "heading";
  if (LIST_ITEM.test(line)) return "item";
  const indent = /^(?: {4}|\t)/.test(line);
  // Indented: an item going on, or after a blank line or code, a code block.
  if (indent && (previous === "item")) return "item";
  if (indent && (afterBlank || previous === "code" || previous === null)) {
    return "code";
  }
  return "prose";
}

/** A line of someone else's words or markup: none of the model's. */
const NO_WORDS = { plain: "", masked: "", emphasised: false, raw: "" };

/** A line wholly emphasised or code, bar a closing mark. */
const EMPHASISED = /^\s*(?:\*\*[^*]+\*\*|__[^_]+__|`[^`]+`)[\s:：.。]*$/;

/** An inline code span, of runs of at most three backticks (longer: quadratic retries). */
const INLINE_CODE = /(`{1,3})([^`]*)\1/g;

/** A prose line, item or heading: its words, plain and masked. */
function wordsOf(line: string, kind: LineKind): ClosingLine {
  const opened = line
    .replace(/^\s*(?:[-*+•]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?/, "")
    .replace(/^ {0,3}#{1,6}\s*/, "");
  const body = withoutClosingHashes(opened);
  const emphasised = EMPHASISED.test(body);
  let plain = "";
  let masked = "";
  // Inline code keeps its words and loses its backticks; it is masked.
  let at = 0;
  for (const span of body.matchAll(INLINE_CODE)) {
    const before = undecorated(body.slice(at, span.index), at === 0);
    plain += before;
    masked += before;
    const code = span[2] as string;
    plain += code;
    masked += "x".repeat(code.length);
    at = (span.index ?? 0) + span[0].length;
  }
  const rest = undecorated(body.slice(at), at === 0);
  plain += rest;
  masked += rest;
  const leading = plain.length - plain.trimStart().length;
  const trimmedEnd = plain.trimEnd().length;
  return {
    kind,
    plain: plain.slice(leading, trimmedEnd),
    masked: maskQuotations(masked).slice(leading, trimmedEnd),
    emphasised,
    raw: line,
  };
}

/** `text` without a heading's closing `#`s ("## Title ##"); by hand, as `/\s+#+\s*$/` is quadratic. */
export function withoutClosingHashes(text: string): string {
  const end = text.trimEnd();
  let at = end.length;
  while (at > 0 && end[at - 1] === "#") at--;
  if (at === end.length || at === 0 || !/\s/.test(end[at - 1] as string)) {
    return text;
  }
  return end.slice(0, at).trimEnd();
}

/** Text without emphasis markers and, first in a line, leading pictographs and arrows. */
function undecorated(text: string, first: boolean): string {
  const words = text
    .replace(/[*~]+/g, "")
    .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, "");
  return first ? words.replace(LEADING_MARKS, "") : words;
}

const LEADING_MARKS =
  /^[\s\p{Extended_Pictographic}\u2190-\u21ff\u2700-\u27bf\ufe0f]+/u;

/** Quotation marks, each opening one with the mark that closes it. */
const QUOTATIONS: ReadonlyMap<string, string> = new Map([
  ['"', '"'],
  ["\u201c", "\u201d"], // “ ”
  ["\u201e", "\u201c"], // „ “
  ["\u00ab", "\u00bb"], // « »
  ["\u2018", "\u2019"], // ‘ ’
  ["\u300c", "\u300d"], // 「 」
  ["\u300e", "\u300f"], // 『 』
  ["\uff02", "\uff02"], // ＂ ＂
  ["\u2039", "\u203a"], // ‹ ›
  ["\u301d", "\u301e"], // 〝 〞
  ["\u201a", "\u2018"], // ‚ ‘
]);

/** `text` with the inside of every closed quotation masked: a quote is not the model's sentence. */
function maskQuotations(text: string): string {
  let out = "";
  let i = 0;
  // A closing mark is looked for to the end at most once: linear.
  const absent = new Set<string>();
  while (i < text.length) {
    const close = QUOTATIONS.get(text[i] as string);
    const end = close === undefined || absent.has(close)
      ? -1
      : text.indexOf(close, i + 1);
    if (close !== undefined && end < 0) absent.add(close);
    // An apostrophe-like ‘ with no closing mark is left alone.
    if (end < 0) {
      out += text[i];
      i++;
      continue;
    }
    out += (text[i] as string) + "x".repeat(end - i - 1) + (close as string);
    i = end + 1;
  }
  return out;
}
