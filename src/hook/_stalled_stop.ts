/**
 * The Stop hook's decision on a turn that has a stall: the guardrails decide
 * (`stall_decision.ts`), and the block is written in the output mode the
 * settings and the client's release allow (`_block_output.ts`), or the stop
 * is allowed with one line naming the brake that held it back; with the
 * events that say why, for the hook to log.
 *
 * Loaded lazily by `hook/_hook.ts`, in one import, only on a stall: a
 * healthy stop never loads the guardrails, the recovery texts or the output
 * modes.
 *
 * @module
 */

import type { Settings } from "../settings/settings.ts";
import type { Release } from "../claude_client/release.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { killSwitchOf } from "../decision/kill_switch.ts";
import type { StoreOpener } from "../decision/notices.ts";
import { allowOutcome, type Verdict } from "../decision/outcome.ts";
import {
  decideOnStall,
  type StallRequest,
} from "../decision/stall_decision.ts";
import { blockOutcome, chooseOutput } from "./_block_output.ts";

/** What deciding a stalled stop needs besides the stall. */
export interface StalledStopContext {
  io: Pick<CliIO, "env" | "cwd">;
  settings: Settings;
  openStore: StoreOpener;
  /** The config notice due now, if any (claimed only when it can be shown). */
  claimNotice: () => Promise<string | null>;
  /** Seconds since the epoch. */
  nowSeconds: number;
}

/**
 * Decides on a stalled stop: a block in the output mode, or an allow with
 * the brake's line, and the events that say why.
 *
 * @param release The release that wrote the judged turn, when its entries
 * say: it picks the output mode.
 */
export async function decideStalledStop(
  stall: StallRequest,
  release: Release | null,
  context: StalledStopContext,
): Promise<Verdict> {
  const { io, settings } = context;
  const output = chooseOutput(settings.output, release);
  const request = output.fallback
    ? {
      ...stall,
      details: { ...stall.details, output_fallback: output.fallback },
    }
    : stall;
  const result = await decideOnStall(request, {
    settings,
    killSwitch: killSwitchOf(settings, io),
    store: await context.openStore(),
    nowSeconds: context.nowSeconds,
  });
  const { events } = result;
  if (result.action === "suppress") {
    return {
      outcome: allowOutcome(await context.claimNotice(), [result.line]),
      events,
    };
  }
  const outcome = blockOutcome(output.mode, {
    message: result.message,
    prompt: result.prompt,
    report: result.report,
    hookEvent: stall.hookEventName,
    // Exit 2 cannot carry JSON: in stderr mode the notice waits.
    notice: output.mode === "stderr" ? null : await context.claimNotice(),
  });
  return { outcome, events };
}
