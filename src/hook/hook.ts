/**
 * The Stop hook contract: payload text in, exit code and output out.
 *
 * Allow = exit 0 with nothing on stdout (or only a `systemMessage` telling
 * the user about a broken config, once per session). Block = exit 2 with the
 * report and recovery prompt on stderr, or, with `STALL_WATCH_OUTPUT=json` or
 * `context`, exit 0 with JSON on stdout (see `block_output.ts`).
 * On an event other than Stop and SubagentStop (a misregistration) it
 * always allows, and says so once per session in a `systemMessage`.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { describeBudget, detectStalls } from "../detection/detect.ts";
import type { EventRecord } from "../events/event_log.ts";
import { releaseOf } from "../claude_client/release.ts";
import { reportLine } from "../recovery/report_line.ts";
import { loadSettings } from "../settings/load_settings.ts";
import type { SettingProblem, Settings } from "../settings/settings.ts";
import type { QuarantinedEntry } from "../guardrails/state.ts";
import {
  hookEventOf,
  type HookInput,
  hookInputFrom,
  parseHookPayload,
  stringField,
} from "./hook_input.ts";
import { handles } from "./event_guard.ts";
import {
  allowOutcome,
  type HookOutcome,
  systemMessageLine,
} from "./hook_outcome.ts";
import {
  claimConfigNotice,
  claimMisregistrationNotice,
  misregistrationNotice,
  stateStoreOpener,
  type StoreOpener,
} from "./notices.ts";

/** The parts of the process boundary a hook run uses. */
export type HookIO = Pick<CliIO, "env" | "cwd" | "now" | "sleep">;

/**
 * Runs the Stop / SubagentStop hook on one payload.
 *
 * Requires `--allow-read`, `--allow-env`, and write access to `.claude` for
 * state and the optional event log.
 *
 * @throws {InputError} For unusable payloads and unreadable transcripts.
 */
export async function runHook(
  payloadText: string,
  io: HookIO,
): Promise<HookOutcome> {
  const { payload, tasksCut } = parseHookPayload(payloadText);
  const event = hookEventOf(payload);
  if (!handles("hook", event)) return await misregistered(payload, event, io);
  const input = hookInputFrom(payload, tasksCut);
  const { settings, problems } = await loadSettings(io.env, io.cwd);
  if (input.stopHookActive && settings.stopHookActive === "allow") {
    return allowOutcome(null);
  }
  const quarantined: QuarantinedEntry[] = [];
  const openStore = stateStoreOpener(
    io,
    settings,
    (entry) => quarantined.push(entry),
  );
  const outcome = await judgeStop(input, { io, settings, problems, openStore });
  return await withQuarantineReport(outcome, quarantined, {
    io,
    settings,
    sessionId: input.sessionId,
    hookEvent: input.hookEventName,
  });
}

/** Why the SubagentStop of Claude Code's own fork is allowed unjudged. */
export const CLAUDE_FORK_REASON =
  'Claude Code\'s own fork (agent_type ""), not a subagent of the session';

/** What judging a stop needs besides the payload. */
interface StopContext {
  io: HookIO;
  settings: Settings;
  problems: readonly SettingProblem[];
  openStore: StoreOpener;
}

/** Detects stalls in the turn and decides: allow, or the block path. */
async function judgeStop(
  input: HookInput,
  { io, settings, problems, openStore }: StopContext,
): Promise<HookOutcome> {
  const nowSeconds = io.now() / 1000;
  const claimNotice = () =>
    claimConfigNotice(openStore, input.sessionId, problems);
  // The file judged: the subagent's own for SubagentStop.
  const transcript = input.scanPath ?? input.transcriptPath;
  const eventOf = (
    name: EventRecord["event"],
    data: Record<string, unknown>,
  ) => ({
    event: name,
    sessionId: input.sessionId,
    ts: nowSeconds,
    data: { hook_event: input.hookEventName, transcript, ...data },
  });
  if (input.claudeFork) {
    // Nothing of the session's to judge, and its file is never written
    // (so no wait for it either).
    const logError = await log(io, settings, [
      eventOf("healthy_stop", { reason: CLAUDE_FORK_REASON }),
    ]);
    return allowOutcome(await claimNotice(), [logError]);
  }
  const detection = await detectStalls(input, {
    lagWaitMs: settings.lagWaitMs,
    sleep: io.sleep,
    now: io.now,
  });

  if (detection.exhausted !== null) {
    // Fail open: a verdict on part of the turn proves nothing either way.
    const { name, limit } = detection.exhausted;
    const logError = await log(io, settings, [eventOf("budget_exhausted", {
      budget: name,
      limit,
      reason: detection.reason,
    })]);
    return allowOutcome(await claimNotice(), [
      reportLine(
        `budget exhausted (${
          describeBudget(detection.exhausted)
        }) before the turn could be judged; stop allowed`,
      ),
      logError,
    ]);
  }
  if (detection.signatures.length === 0) {
    const logError = await log(io, settings, [
      eventOf("healthy_stop", { reason: detection.reason }),
    ]);
    return allowOutcome(await claimNotice(), [logError]);
  }

  // The block path loads only when there is a stall to act on (a plain
  // import(), which the hook's bundle keeps lazy: see stop_hook.ts).
  const { handleStalledStop } = await import("./block_path.ts");
  return await handleStalledStop({
    sessionId: input.sessionId,
    hookEvent: input.hookEventName,
    transcriptPath: transcript,
    signatures: detection.signatures,
    reason: detection.reason,
    waitedMs: detection.waitedMs,
    clientRelease: releaseOf(detection.scan?.entries ?? []),
  }, { io, settings, openStore, claimNotice, nowSeconds });
}

/**
 * Run for an event it is not for (see `event_guard.ts`): exit 0, and tell
 * the user once per session, with any config problems.
 */
async function misregistered(
  payload: Record<string, unknown>,
  event: string,
  io: HookIO,
): Promise<HookOutcome> {
  const { settings, problems } = await loadSettings(io.env, io.cwd);
  const sessionId = stringField(payload, "session_id") ?? "";
  const quarantined: QuarantinedEntry[] = [];
  const openStore = stateStoreOpener(
    io,
    settings,
    (entry) => quarantined.push(entry),
  );
  const lines: string[] = [];
  if (await claimMisregistrationNotice(openStore, sessionId, "hook", event)) {
    lines.push(misregistrationNotice("hook", event));
  }
  const config = await claimConfigNotice(openStore, sessionId, problems);
  if (config) lines.push(config);
  return await withQuarantineReport(
    { ...allowOutcome(null), stdout: systemMessageLine(lines) },
    quarantined,
    { io, settings, sessionId, hookEvent: event },
  );
}

/**
 * `outcome` with a line on stderr for each state or lock file the run moved
 * aside, and their `state_quarantined` events logged (the report's code
 * loads only then).
 */
async function withQuarantineReport(
  outcome: HookOutcome,
  entries: readonly QuarantinedEntry[],
  context: {
    io: HookIO;
    settings: Settings;
    sessionId: string;
    hookEvent: string;
  },
): Promise<HookOutcome> {
  if (entries.length === 0) return outcome;
  const { quarantineEvents, quarantineLine } = await import(
    "./quarantine_report.ts"
  );
  const logError = await log(
    context.io,
    context.settings,
    quarantineEvents(entries, {
      sessionId: context.sessionId,
      ts: context.io.now() / 1000,
      hookEvent: context.hookEvent,
    }),
  );
  const lines = entries.map((entry) => quarantineLine(entry) + "\n");
  return { ...outcome, stderr: outcome.stderr + lines.join("") + logError };
}

/** Writes events when the log is on (its code loads only then). */
async function log(
  io: HookIO,
  settings: Settings,
  events: readonly EventRecord[],
): Promise<string> {
  if (!settings.eventLogEnabled) return "";
  const { logEvents } = await import("./decision_io.ts");
  return await logEvents(io, settings, events);
}
