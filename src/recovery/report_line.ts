/**
 * The report lines the doors write for Claude Code: each starts with one
 * prefix, so scripts and people can tell stall-watch's lines apart.
 *
 * @module
 */

/** One report line: `stall_watch: <text>`, without a newline. */
export function reportLine(text: string): string {
  return `stall_watch: ${text}`;
}
