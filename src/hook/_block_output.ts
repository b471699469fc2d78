/**
 * How a block reaches Claude Code, per output mode (measured with Claude
 * Code 2.1.332, see docs/detection.md, "Output modes"):
 *
 * - `stderr`: exit 2, report lines and prompt on stderr. The model reads all
 *   of it; the user sees "Stop hook reported a problem".
 * - `json`: exit 0, `{"decision":"block","reason":<prompt>}`. The model reads
 *   the prompt; the user still sees "Stop hook reported a problem".
 * - `context`: exit 0, `hookSpecificOutput.additionalContext` = prompt. The
 *   turn continues the same way, and the user sees "Stop hook says: ..."
 *   with no problem label (2.1.163+).
 *
 * In both JSON modes the report lines go to the user in `systemMessage`.
 * `context` falls back to `stderr` on a release without it
 * ({@link chooseOutput}).
 *
 * @module
 */

import { ExitCode } from "../shared/errors.ts";
import type { OutputMode } from "../settings/settings.ts";
import {
  featureSince,
  formatRelease,
  type Release,
  supports,
} from "../claude_client/release.ts";
import type { Outcome } from "../decision/outcome.ts";

/** The output mode a block uses, and why it is not the configured one. */
export interface ChosenOutput {
  mode: OutputMode;
  /** Set when `context` fell back to `stderr`, for the event log. */
  fallback?: string;
}

/**
 * The mode for a block: the configured one, except that `context` falls back
 * to `stderr` where the release that wrote the transcript takes no
 * `additionalContext` on Stop (before 2.1.163 it rejects the JSON, and the
 * stall would pass unnudged). An unknown release gets the configured mode.
 */
export function chooseOutput(
  configured: OutputMode,
  release: Release | null,
): ChosenOutput {
  if (
    configured !== "context" ||
    supports(release, "stop_additional_context") !== false
  ) return { mode: configured };
  return {
    mode: "stderr",
    fallback: `output "context" needs Claude Code ${
      formatRelease(featureSince("stop_additional_context"))
    } or later; the transcript was written by ${
      formatRelease(release as Release)
    }`,
  };
}

/** What to write for a block. */
export interface BlockParts {
  /** Report lines and prompt: the stderr form. */
  message: string;
  /** The prompt alone. */
  prompt: string;
  /** The report lines alone. */
  report: string;
  /** `Stop` or `SubagentStop`. */
  hookEvent: string;
  /** A config notice for the user, if one is due. */
  notice: string | null;
}

/**
 * The exit code and output of a block in `mode`.
 *
 * Exit 2 must not be combined with JSON on stdout, so in `stderr` mode a
 * config notice waits for the next allowed stop.
 */
export function blockOutcome(
  mode: OutputMode,
  parts: BlockParts,
): Outcome {
  if (mode === "stderr") {
    return { exitCode: ExitCode.block, stdout: "", stderr: parts.message };
  }
  const systemMessage = parts.notice === null
    ? parts.report
    : `${parts.report}\n${parts.notice}`;
  const json = mode === "json"
    ? { decision: "block", reason: parts.prompt, systemMessage }
    : {
      hookSpecificOutput: {
        hookEventName: parts.hookEvent === "SubagentStop"
          ? "SubagentStop"
          : "Stop",
        additionalContext: parts.prompt,
      },
      systemMessage,
    };
  return {
    exitCode: ExitCode.ok,
    stdout: JSON.stringify(json) + "\n",
    stderr: "",
  };
}
