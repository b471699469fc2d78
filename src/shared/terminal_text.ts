/**
 * The one rule for untrusted text on a terminal: control and invisible
 * characters are shown escaped (`\u001b`), never emitted. Our own colours are
 * secret tokens that only {@link sanitizeTerminalStream} makes sequences.
 *
 * @module
 */

/** Never emitted as they are: controls, format (bidi, zero-width, TAG), private use, unassigned, lone surrogates, separators, default-ignorables. */
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

/** A token, or one unsafe character other than newline and tab. */
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

/** `text` as one inert, visible line: unsafe characters as `\n`, `\r`, `\t` or `\uXXXX`. */
export function escapeTerminal(text: string): string {
  return text.replace(UNSAFE, (char) => SHORT[char] ?? unicodeEscape(char));
}

/** `sequence` as a token {@link sanitizeTerminalStream} writes as itself (colours, progress). */
export function ownSequence(sequence: OwnSequence): string {
  return `${TOKEN_OPEN}${SECRET}${
    OWN_SEQUENCES.indexOf(sequence)
  }${TOKEN_CLOSE}`;
}

/** Output about to reach stdout or stderr: unsafe characters but newline and tab as `\uXXXX`, own tokens as their sequences. */
export function sanitizeTerminalStream(text: string): string {
  return text.replace(
    IN_STREAM,
    (match, secret: string | undefined, index: string | undefined) =>
      secret === SECRET
        ? OWN_SEQUENCES[Number(index)] ?? escapeTerminal(match)
        : escapeTerminal(match),
  );
}
