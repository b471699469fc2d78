/**
 * The Stop hook's answer to a stall (loaded only then): a block in the output
 * mode the settings and release allow (docs/detection.md, "Output modes"), or
 * an allow naming the brake.
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

/** A block in the mode `release` and `client` allow, or an allow naming the brake. */
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

/** The output mode a block uses, and why it is not the configured one (for the log). */
interface ChosenOutput {
  mode: OutputMode;
  fallback?: string;
}

/**
 * The configured mode, but `context` is `stderr` on a release known to take
 * no Stop `additionalContext` (before 2.1.163 the stall would pass), and
 * `json` on Codex (it fails a hook whose JSON has a key it does not know).
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

/** What to write for a block; `message` is the stderr form. */
interface BlockParts {
  message: string;
  prompt: string;
  report: string;
  hookEvent: string;
  notice: string | null;
}

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
