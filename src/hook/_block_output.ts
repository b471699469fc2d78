/**
 * The Stop hook's answer to a turn with a stall: the guardrails decide
 * (`Run.decide`), and a block reaches Claude Code in the output mode the
 * settings and the client's release allow, or the stop is allowed with one
 * line naming the brake that held it back. Loaded lazily by `_hook.ts`,
 * only on a stall.
 *
 * The modes (measured with Claude Code 2.1.332, see docs/detection.md,
 * "Output modes"):
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
 *
 * @module
 */

import { ExitCode } from "../shared/errors.ts";
import type { OutputMode } from "../config/settings.ts";
import {
  featureSince,
  formatRelease,
  type Release,
  supports,
} from "../claude_client/release.ts";
import { allowOutcome, type Outcome } from "../decision/outcome.ts";
import type { Run, StallRequest } from "../decision/run_handler.ts";

/**
 * A block in the output mode, or an allow with the brake's line.
 *
 * @param hookEvent `Stop` or `SubagentStop`.
 * @param release The release that wrote the judged turn, when its entries
 * say: it picks the output mode.
 */
export async function stalledStopOutcome(
  stall: StallRequest,
  hookEvent: string,
  release: Release | null,
  run: Run,
): Promise<Outcome> {
  const output = chooseOutput(run.settings.output, release);
  const decision = await run.decide(
    output.fallback
      ? {
        ...stall,
        details: { ...stall.details, output_fallback: output.fallback },
      }
      : stall,
  );
  if (decision.action === "suppress") {
    return allowOutcome(await run.configNotice(), [decision.line]);
  }
  return blockOutcome(output.mode, {
    message: decision.message,
    prompt: decision.prompt,
    report: decision.report,
    hookEvent,
    // Exit 2 cannot carry JSON: in stderr mode the notice waits.
    notice: output.mode === "stderr" ? null : await run.configNotice(),
  });
}

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
interface BlockParts {
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

/** The exit code and output of a block in `mode`. */
function blockOutcome(
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
