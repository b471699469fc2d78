/**
 * The report lines' one prefix, telling stall-watch's lines apart.
 *
 * @module
 */

/** One report line: `stall_watch: <text>`, without a newline. */
export function reportLine(text: string): string {
  return `stall_watch: ${text}`;
}
