/**
 * What a run hands back to its process, and how an allow is written.
 *
 * @module
 */

import { ExitCode } from "../shared/errors.ts";

/** What the process should do: its exit code and output. */
export interface Outcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The stdout `systemMessage` line showing `notices` to the user (not the model), or `""`. */
export function systemMessageLine(notices: readonly string[]): string {
  return notices.length === 0
    ? ""
    : JSON.stringify({ systemMessage: notices.join("\n") }) + "\n";
}

/** An allow: exit 0, `notice` on stdout for the user, non-empty `lines` on stderr. */
export function allowOutcome(
  notice: string | null,
  lines: readonly string[] = [],
): Outcome {
  return {
    exitCode: ExitCode.ok,
    stdout: systemMessageLine(notice === null ? [] : [notice]),
    stderr: lines.filter((l) => l !== "").map((l) =>
      l.endsWith("\n") ? l : l + "\n"
    ).join(""),
  };
}
