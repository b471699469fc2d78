/**
 * The Stop hook's answer to a turn that has a stall: the guardrails decide
 * (`Run.decide`), and the block is written in the output mode the settings
 * and the client's release allow (`_block_output.ts`), or the stop is
 * allowed with one line naming the brake that held it back.
 *
 * Loaded lazily by `_hook.ts`, only on a stall: a healthy stop never loads
 * the guardrails, the recovery texts or the output modes.
 *
 * @module
 */

import type { Release } from "../claude_client/release.ts";
import { allowOutcome, type Outcome } from "../decision/outcome.ts";
import type { Run, StallRequest } from "../decision/run_handler.ts";
import { blockOutcome, chooseOutput } from "./_block_output.ts";

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
