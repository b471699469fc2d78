/**
 * The Stop hook's answer to a stall (loaded only then): the guardrails
 * decide; a block goes out in the output mode the settings and the client's
 * release allow (docs/detection.md, "Output modes"), or the stop is allowed
 * naming the brake.
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

/** The client whose Stop is answered: Claude Code, or OpenAI's Codex CLI. */
export type OutputClient = "claude_code" | "codex";

/**
 * A block in the mode `release` and `client` allow (Codex takes no
 * `context`), or an allow naming the brake.
 */
export async function stalledStopOutcome(
  stall: StallRequest,
  hookEvent: string,
  release: Release | null,
  run: Run,
  client: OutputClient = "claude_code",
): Promise<Outcome> {
  const output = chooseOutput(run.settings.output, release, client);
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
interface ChosenOutput {
  mode: OutputMode;
  /** Set when `context` fell back to `stderr`, for the event log. */
  fallback?: string;
}

/**
 * The mode for a block: the configured one, but `context` falls back to
 * `stderr` where the release takes no `additionalContext` on Stop (before
 * 2.1.163 it rejects the JSON, and the stall would pass). An unknown
 * release gets the configured mode. Codex fails a hook whose JSON has a key
 * it does not know: there `context` is `json`.
 */
export function chooseOutput(
  configured: OutputMode,
  release: Release | null,
  client: OutputClient = "claude_code",
): ChosenOutput {
  if (configured === "context" && client === "codex") {
    return { mode: "json", fallback: CODEX_CONTEXT_FALLBACK };
  }
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

/** Why a Codex block is JSON when `context` is configured. */
const CODEX_CONTEXT_FALLBACK = 'output "context" is Claude Code\'s ' +
  "(additionalContext on Stop), which Codex does not take; the block is " +
  'written as "json"';

/** What to write for a block. */
interface BlockParts {
  /** Report lines and prompt: the stderr form. */
  message: string;
  prompt: string;
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
