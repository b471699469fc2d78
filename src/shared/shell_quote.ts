/**
 * Quoting for POSIX `sh`, for every command line stall-watch writes or
 * prints: `proj-$(cmd)` stays a word and never runs.
 *
 * @module
 */

/** Quotes a word for `sh` only when it needs it. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
