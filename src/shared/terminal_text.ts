/**
 * The one rule for putting untrusted text on a terminal: control and
 * invisible characters are shown escaped, never emitted, and only
 * stall-watch's own writer emits a control sequence.
 *
 * Tool names, ids, session ids, file names and settings commands come from
 * transcripts and repositories that anyone may have written. Emitted raw, an
 * ESC starts a CSI or OSC sequence (move the cursor, rewrite the title, set
 * the clipboard), a CR overwrites the line, a newline forges a line and a
 * bidi override reorders what the reader sees; an invisible character (a
 * Unicode TAG, a zero-width joiner, a variation selector) hides text that a
 * model still reads. Escaped, each is inert text such as `\u001b`.
 *
 * stall-watch's own colours and progress line are written as tokens
 * ({@link ownSequence}) that hold a secret made at start-up, and only
 * {@link sanitizeTerminalStream}, the last step before a stream, turns a
 * token back into its sequence: text from anyone else, even a field that
 * missed its escaping, cannot spell one.
 *
 * @module
 */

/**
 * Characters never emitted as they are, by Unicode category: controls (C0,
 * DEL, C1), format characters (bidi marks and overrides, zero-width
 * characters, the soft hyphen, U+2060-2064, U+180E, U+FFF9-FFFB, the TAG
 * block U+E0000-E007F), private use, unassigned code points, lone
 * surrogates, the line and paragraph separators, and every other
 * default-ignorable code point (variation selectors, U+034F, fillers).
 */
const UNSAFE_CLASS =
  "\\p{Cc}\\p{Cf}\\p{Co}\\p{Cn}\\p{Cs}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}";

const UNSAFE = new RegExp(`[${UNSAFE_CLASS}]`, "gu");

/** The sequences stall-watch itself writes to a terminal. */
const OWN_SEQUENCES = [
  "\r\x1b[2K", // the progress line: back to the start, erase the line
  "\x1b[0m",
  "\x1b[1m",
  "\x1b[2m",
  "\x1b[22m",
  "\x1b[31m",
  "\x1b[32m",
  "\x1b[33m",
  "\x1b[39m",
] as const;

/** One of the sequences stall-watch writes itself. */
export type OwnSequence = typeof OWN_SEQUENCES[number];

/** Made once per process and never printed: what makes a token stall-watch's. */
const SECRET = [...crypto.getRandomValues(new Uint8Array(8))]
  .map((b) => b.toString(16).padStart(2, "0")).join("");

/** Private-use marks around a token: escaped wherever anyone else writes them. */
const TOKEN_OPEN = "\ue000";
const TOKEN_CLOSE = "\ue001";

/**
 * A token, a sequence stall-watch may write, or one unsafe character other
 * than newline and tab.
 */
const IN_STREAM = new RegExp(
  `${TOKEN_OPEN}([0-9a-f]{16})(\\d)${TOKEN_CLOSE}|` +
    `(?![\\n\\t])[${UNSAFE_CLASS}]`,
  "gu",
);

const SHORT: Readonly<Record<string, string>> = Object.freeze({
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
});

/** `\uXXXX` for each UTF-16 unit (a pair for a character beyond U+FFFF). */
function unicodeEscape(char: string): string {
  let out = "";
  for (let i = 0; i < char.length; i++) {
    out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  }
  return out;
}

/**
 * `text` with every control, bidi, invisible, private-use and unassigned
 * character shown escaped (`\n`, `\r`, `\t`, else `\uXXXX`), so it prints
 * as one inert, visible line. Apply it to each untrusted field before it
 * joins command output.
 */
export function escapeTerminal(text: string): string {
  return text.replace(UNSAFE, (char) => SHORT[char] ?? unicodeEscape(char));
}

/**
 * `sequence` as stall-watch's own: a token that
 * {@link sanitizeTerminalStream} writes as the sequence itself. Used by the
 * colours and the progress line only.
 */
export function ownSequence(sequence: OwnSequence): string {
  return `${TOKEN_OPEN}${SECRET}${
    OWN_SEQUENCES.indexOf(sequence)
  }${TOKEN_CLOSE}`;
}

/**
 * Output about to be written to stdout or stderr, with every character
 * {@link escapeTerminal} escapes shown as `\uXXXX`, except newlines and
 * tabs; stall-watch's own tokens ({@link ownSequence}) become their
 * sequences. The last line of defence: a field that reached the output
 * without `escapeTerminal` still cannot emit a control sequence, or any
 * character a reader cannot see. `\uXXXX` is also a valid escape inside a
 * JSON string, so JSON output stays the same JSON.
 */
export function sanitizeTerminalStream(text: string): string {
  return text.replace(
    IN_STREAM,
    (match, secret: string | undefined, index: string | undefined) =>
      secret === SECRET
        ? OWN_SEQUENCES[Number(index)] ?? escapeTerminal(match)
        : escapeTerminal(match),
  );
}
