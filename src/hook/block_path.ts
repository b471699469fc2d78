/**
 * The Stop hook's path for a turn that has a stall: the guardrails decide
 * (`stall_decision.ts`), the decision is logged, and the block is written in
 * the configured output mode (`block_output.ts`), or the stop is allowed
 * with one line naming the brake that held it back.
 *
 * Loaded lazily by `hook.ts`, in one import, only when there is a stall to
 * act on: a healthy stop never loads the guardrails, the recovery texts or
 * the output modes.
 *
 * @module
 */

import type { StallSignature } from "../detection/classify.ts";
import type { Settings } from "../settings/settings.ts";
import type { Release } from "../claude_client/release.ts";
import { blockOutcome, chooseOutput } from "./block_output.ts";
import { type DecisionIO, killSwitchOf, logEvents } from "./decision_io.ts";
import { allowOutcome, type HookOutcome } from "./hook_outcome.ts";
import type { StoreOpener } from "./notices.ts";
import { decideOnStall } from "./stall_decision.ts";

/** The stalled turn the hook detected. */
export interface StalledStop {
  sessionId: string;
  /** `Stop` or `SubagentStop`. */
  hookEvent: string;
  /** The transcript judged. */
  transcriptPath: string;
  /** Non-empty, sorted by line. */
  signatures: readonly StallSignature[];
  /** Which rule fired. */
  reason: string;
  /** How long detection waited for a lagging transcript. */
  waitedMs: number;
  /** The release that wrote the judged turn, when its entries say. */
  clientRelease: Release | null;
}

/** What the block path needs besides the stall. */
export interface BlockContext {
  io: DecisionIO;
  settings: Settings;
  openStore: StoreOpener;
  /** The config notice due now, if any (claimed only when it can be shown). */
  claimNotice: () => Promise<string | null>;
  /** Seconds since the epoch. */
  nowSeconds: number;
}

/**
 * Decides on a stalled stop and writes the outcome: a block in the output
 * mode, or an allow with the brake's line.
 */
export async function handleStalledStop(
  stop: StalledStop,
  context: BlockContext,
): Promise<HookOutcome> {
  const { io, settings } = context;
  const output = chooseOutput(settings.output, stop.clientRelease);
  const result = await decideOnStall({
    sessionId: stop.sessionId,
    hookEvent: stop.hookEvent,
    transcriptPath: stop.transcriptPath,
    signatures: stop.signatures,
    reason: stop.reason,
    details: {
      waited_ms: stop.waitedMs,
      ...(output.fallback ? { output_fallback: output.fallback } : {}),
    },
  }, {
    settings,
    killSwitch: killSwitchOf(settings, io),
    store: await context.openStore(),
    nowSeconds: context.nowSeconds,
  });
  const logError = await logEvents(io, settings, result.events);
  if (result.action === "suppress") {
    return allowOutcome(await context.claimNotice(), [result.line, logError]);
  }
  const outcome = blockOutcome(output.mode, {
    message: result.message,
    prompt: result.prompt,
    report: result.report,
    hookEvent: stop.hookEvent,
    // Exit 2 cannot carry JSON: in stderr mode the notice waits.
    notice: output.mode === "stderr" ? null : await context.claimNotice(),
  });
  return { ...outcome, stderr: outcome.stderr + logError };
}
