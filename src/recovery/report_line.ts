/**
 * The report lines the doors write for Claude Code: each starts with one
 * prefix, so scripts and people can tell stall-watch's lines apart.
 *
 * @module
 */

/** The prefix of every report line. */
const REPORT_PREFIX = "stall_watch:";

/** One report line: `stall_watch: <text>`, without a newline. */
export function reportLine(text: string): string {
  return `${REPORT_PREFIX} ${text}`;
}
