/**
 * The report lines the hook and the watchdog write for Claude Code (which
 * shows them to the model and the user): each starts with one prefix, so
 * scripts and people can tell stall-watch's lines from everything else.
 *
 * @module
 */

/** The prefix of every report line. */
export const REPORT_PREFIX = "stall_watch:";

/** One report line: `stall_watch: <text>`, without a newline. */
export function reportLine(text: string): string {
  return `${REPORT_PREFIX} ${text}`;
}
