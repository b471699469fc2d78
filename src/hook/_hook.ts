/**
 * The Stop hook contract: payload text in, exit code and output out.
 *
 * Allow = exit 0 with nothing on stdout (or only a `systemMessage` telling
 * the user about a broken config, once per session). Block = exit 2 with the
 * report and recovery prompt on stderr, or, with `STALL_WATCH_OUTPUT=json` or
 * `context`, exit 0 with JSON on stdout (see `_block_output.ts`).
 * On an event other than Stop and SubagentStop (a misregistration) it
 * always allows, and says so once per session in a `systemMessage`.
 *
 * Read top-down: the payload, the settings, detection, the decision
 * (`decision/`), then its effects: the events logged, the outcome returned.
 * The decision's parts load only when a stop needs them: each `import()`
 * below says when.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import {
  announcedSignature,
  type AnnouncedStop,
  announcedStopAtEnd,
} from "../detection/announcement.ts";
import type { StallSignature } from "../detection/classify.ts";
import {
  describeBudget,
  type Detection,
  detectStalls,
  withLineNumbers,
} from "../detection/detect.ts";
import { releaseOf } from "../claude_client/release.ts";
import { reportLine } from "../recovery/report_line.ts";
import { loadSettings } from "../settings/load_settings.ts";
import type { SettingProblem, Settings } from "../settings/settings.ts";
import type { StateRescue } from "../guardrails/state.ts";
import type { EventName } from "../events/event_log.ts";
import { eventRecord } from "../decision/event_record.ts";
import { eventOf, handles } from "../claude_client/hook_events.ts";
import { logEvents } from "../decision/log_events.ts";
import {
  claimConfigNotice,
  stateStoreOpener,
  type StoreOpener,
} from "../decision/notices.ts";
import {
  allowOutcome,
  type Outcome,
  type Verdict,
} from "../decision/outcome.ts";
import {
  type HookInput,
  hookInputFrom,
  parseHookPayload,
} from "./_hook_input.ts";

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
): Promise<Outcome> {
  const { payload, tasksCut } = parseHookPayload(payloadText);
  const loaded = await loadSettings(io.env, io.cwd);
  const event = eventOf(payload, "hook");
  if (!handles("hook", event)) {
    // Loaded lazily: only for an event the hook is not for.
    const { misregistered } = await import("../decision/misregistered.ts");
    return await misregistered("hook", event, payload, loaded, io);
  }
  const input = hookInputFrom(payload, tasksCut);
  const { settings, problems } = loaded;
  if (input.stopHookActive && settings.stopHookActive === "allow") {
    return allowOutcome(null);
  }
  const quarantined: StateRescue[] = [];
  const openStore = stateStoreOpener(
    io,
    settings,
    (entry) => quarantined.push(entry),
  );
  const { outcome: decided, events } = await judgeStop(input, {
    io,
    settings,
    problems,
    openStore,
  });
  // A log that cannot be written adds a line; it never changes a decision.
  const logError = await logEvents(io, settings, events);
  const outcome = { ...decided, stderr: decided.stderr + logError };
  if (quarantined.length === 0) return outcome;
  // Loaded lazily: only when a state or lock file was moved aside.
  const { withQuarantineReport } = await import(
    "../decision/quarantine_report.ts"
  );
  return await withQuarantineReport(outcome, quarantined, {
    io,
    settings,
    subject: input,
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

/** Detects stalls in the turn and decides: allow, or what a stall calls for. */
async function judgeStop(
  input: HookInput,
  { io, settings, problems, openStore }: StopContext,
): Promise<Verdict> {
  const nowSeconds = io.now() / 1000;
  const claimNotice = () =>
    claimConfigNotice(openStore, input.sessionId, problems);
  // The file judged: the subagent's own for SubagentStop.
  const transcript = input.scanPath ?? input.transcriptPath;
  const event = (name: EventName, data: Record<string, unknown>) =>
    eventRecord(name, input, nowSeconds, { transcript, ...data });
  if (input.claudeFork) {
    // Nothing of the session's to judge, and its file is never written
    // (so no wait for it either).
    return {
      outcome: allowOutcome(await claimNotice()),
      events: [event("healthy_stop", { reason: CLAUDE_FORK_REASON })],
    };
  }
  const detection = await detectStalls(input, {
    lagWaitMs: settings.lagWaitMs,
    sleep: io.sleep,
    now: io.now,
  });

  if (detection.exhausted !== null) {
    // Fail open: a verdict on part of the turn proves nothing either way.
    const { name, limit } = detection.exhausted;
    return {
      outcome: allowOutcome(await claimNotice(), [
        reportLine(
          `budget exhausted (${
            describeBudget(detection.exhausted)
          }) before the turn could be judged; stop allowed`,
        ),
      ]),
      events: [
        event("budget_exhausted", {
          budget: name,
          limit,
          reason: detection.reason,
        }),
      ],
    };
  }
  if (detection.signatures.length === 0) {
    const announced = announcedStopOf(input, detection);
    if (announced === null) {
      return {
        outcome: allowOutcome(await claimNotice()),
        events: [event("healthy_stop", { reason: detection.reason })],
      };
    }
    // The turn's last words announced an action it ended without.
    const turnKey = input.promptId ??
      `offset:${detection.scan?.startOffset ?? announced.offset}`;
    const blocking = settings.announcedNoCall === "block";
    const [numbered] = blocking || settings.eventLogEnabled
      ? await withLineNumbers(transcript, [
        announcedSignature(announced, turnKey),
      ])
      : [announcedSignature(announced, turnKey)];
    const found = numbered as StallSignature;
    if (!blocking) {
      return {
        outcome: allowOutcome(await claimNotice()),
        events: [event("announced_stop", {
          reason: found.rule,
          announcement: found.announcement,
          line: found.line,
          mode: settings.announcedNoCall,
        })],
      };
    }
    // Loaded lazily: only when an announced stop is blocked, as for any
    // stall (below).
    const { decideStalledStop } = await import("./_stalled_stop.ts");
    return await decideStalledStop(
      {
        sessionId: input.sessionId,
        hookEventName: input.hookEventName,
        transcriptPath: transcript,
        signatures: [found],
        reason: found.rule,
        details: waitDetails(detection),
      },
      releaseOf(detection.scan?.entries ?? []),
      {
        io,
        // Once a turn: the signature's id is the turn's.
        settings: { ...settings, maxRetries: Math.min(settings.maxRetries, 1) },
        openStore,
        claimNotice,
        nowSeconds,
      },
    );
  }

  // Loaded lazily: only on a stall (a healthy stop never loads the
  // guardrails, the recovery texts or the output modes).
  const { decideStalledStop } = await import("./_stalled_stop.ts");
  return await decideStalledStop(
    {
      sessionId: input.sessionId,
      hookEventName: input.hookEventName,
      transcriptPath: transcript,
      signatures: detection.signatures,
      reason: detection.reason,
      details: waitDetails(detection),
    },
    releaseOf(detection.scan?.entries ?? []),
    {
      io,
      settings,
      openStore,
      claimNotice,
      nowSeconds,
    },
  );
}

/**
 * The announcement a healthy Stop's turn ended on (`announcement.ts`), or
 * null. Only the main thread's Stop is judged, only on a turn read whole.
 */
function announcedStopOf(
  input: HookInput,
  detection: Detection,
): AnnouncedStop | null {
  const scan = detection.scan;
  if (input.isSubagent || scan === null || scan.budget !== null) return null;
  return announcedStopAtEnd(
    scan.entries,
    { backgroundTasks: input.backgroundTasks },
    input.lastAssistantMessage,
    scan.fileSize,
  );
}

/**
 * The event details of a decision's lag wait: how long, and what showed the
 * transcript to be behind its Stop when a wait was due.
 */
function waitDetails(detection: Detection): Record<string, unknown> {
  return detection.waitedFor === undefined
    ? { waited_ms: detection.waitedMs }
    : { waited_ms: detection.waitedMs, waited_for: detection.waitedFor };
}
