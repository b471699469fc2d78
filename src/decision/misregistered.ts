/**
 * A handler run for an event it is not for (see `handlers.ts`): exit 0 at
 * once, and tell the user once per session what is misregistered and how
 * to fix it. The Stop hook tells its config problems with it, as on every
 * stop it allows; the watchdog tells none (it never does).
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import type { StateRescue } from "../guardrails/state.ts";
import type { LoadedSettings } from "../settings/load_settings.ts";
import type { Handler } from "../claude_client/hook_events.ts";
import {
  claimConfigNotice,
  claimMisregistrationNotice,
  misregistrationNotice,
  stateStoreOpener,
} from "./notices.ts";
import { allowOutcome, type Outcome, systemMessageLine } from "./outcome.ts";
import { stringField } from "../claude_client/hook_payload.ts";
import { withQuarantineReport } from "./quarantine_report.ts";

/**
 * The outcome of `handler` run for `event`, which it is not for: an allow
 * with the notices due.
 *
 * @param loaded The effective settings and the config's problems.
 */
export async function misregistered(
  handler: Handler,
  event: string,
  payload: Record<string, unknown>,
  { settings, problems }: LoadedSettings,
  io: Pick<CliIO, "cwd" | "now" | "sleep">,
): Promise<Outcome> {
  const sessionId = stringField(payload, "session_id") ?? "";
  const quarantined: StateRescue[] = [];
  const openStore = stateStoreOpener(
    io,
    settings,
    (entry) => quarantined.push(entry),
  );
  const notices: string[] = [];
  if (await claimMisregistrationNotice(openStore, sessionId, handler, event)) {
    notices.push(misregistrationNotice(handler, event));
  }
  if (handler === "hook") {
    const config = await claimConfigNotice(openStore, sessionId, problems);
    if (config) notices.push(config);
  }
  return await withQuarantineReport(
    { ...allowOutcome(null), stdout: systemMessageLine(notices) },
    quarantined,
    { io, settings, subject: { sessionId, hookEventName: event } },
  );
}
