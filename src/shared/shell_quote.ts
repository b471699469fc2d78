/**
 * Quoting for POSIX `sh`: the one rule for every command line stall-watch
 * writes into a settings file or prints for the user to paste, so a path
 * such as `proj-$(cmd)` stays a word and never runs.
 *
 * @module
 */

/** Quotes a word for `sh` only when it needs it. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}
