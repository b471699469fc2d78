/**
 * The one rule for putting untrusted text on a terminal: control characters
 * are shown escaped, never emitted.
 *
 * Tool names, ids, session ids, file names and settings commands come from
 * transcripts and repositories that anyone may have written. Emitted raw, an
 * ESC starts a CSI or OSC sequence (move the cursor, rewrite the title, set
 * the clipboard), a CR overwrites the line, a newline forges a line and a
 * bidi override reorders what the reader sees. Escaped, each is inert text
 * such as `\u001b`.
 *
 * @module
 */

/**
 * Characters never emitted as they are: C0 controls, DEL, C1 controls, the
 * bidi embeddings, overrides, isolates and marks, zero-width characters, the
 * byte order mark and the Unicode line and paragraph separators.
 */
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

/**
 * The same characters minus newline and tab, or one of the exact sequences
 * stall-watch itself writes to a terminal (the colours of `term_style` and
 * `doctor`, the progress line's carriage return + erase line), which pass.
 */
const UNSAFE_IN_STREAM =
  // deno-lint-ignore no-control-regex
  /(\r\x1b\[2K|\x1b\[(?:0|1|2|22|31|32|33|39)m)|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g;

const SHORT: Readonly<Record<string, string>> = Object.freeze({
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
});

function unicodeEscape(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}

/**
 * `text` with every control, bidi and invisible formatting character shown
 * escaped (`\n`, `\r`, `\t`, else `\uXXXX`), so it prints as one inert line.
 * Apply it to each untrusted field before it joins command output.
 */
export function escapeTerminal(text: string): string {
  return text.replace(UNSAFE, (char) => SHORT[char] ?? unicodeEscape(char));
}

/**
 * Output about to be written to stdout or stderr, with every character
 * {@link escapeTerminal} escapes shown as `\uXXXX`, except newlines, tabs
 * and stall-watch's own colour and progress sequences. The last line of
 * defence: a field that reached the output without `escapeTerminal` still
 * cannot emit a control sequence. `\uXXXX` is also a valid escape inside a
 * JSON string, so JSON output stays the same JSON.
 */
export function sanitizeTerminalStream(text: string): string {
  return text.replace(
    UNSAFE_IN_STREAM,
    (char, own: string | undefined) => own ?? unicodeEscape(char),
  );
}
