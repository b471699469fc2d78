/**
 * The Stop hook's door: Claude Code's Stop / SubagentStop payload in; allow
 * (exit 0), or block (`_block_output.ts`). The run around it is the room's.
 *
 * @module
 */

import { CLAUDE_DIR } from "../confined/confine.ts";
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
import {
  claudeCodeReader,
  type TranscriptReader,
} from "../transcript/tail_scan.ts";
import type { EventName } from "../events/event_log.ts";
import { allowOutcome, type Outcome } from "../decision/outcome.ts";
import {
  type Door,
  type HandlerIO,
  type Run,
  runHandler,
  type StallRequest,
} from "../decision/run_handler.ts";
import { type HookInput, readStopPayload } from "./_hook_input.ts";
import type { OutputClient } from "./_block_output.ts";

/** What differs between the clients whose Stop the hook judges. */
export interface StopClient {
  reader: TranscriptReader;
  /** Whose Stop it is: it picks the output mode. */
  name: OutputClient;
  /** Cap the nudges of one turn (by `promptId`): Codex re-runs a blocking Stop hook without end. */
  capsTurns: boolean;
}

const CLAUDE_CODE: StopClient = {
  reader: claudeCodeReader,
  name: "claude_code",
  capsTurns: false,
};

const stopDoor: Door<HookInput> = {
  handler: "hook",
  clientDir: CLAUDE_DIR,
  read: readStopPayload,
  judge: (input, run) => judgeStop(input, run, CLAUDE_CODE),
};

/**
 * Runs the Stop / SubagentStop hook on one payload. Requires `--allow-read`, `--allow-env`, write access to `.claude`.
 *
 * @throws {InputError} For unusable payloads and unreadable transcripts.
 */
export function runHook(payloadText: string, io: HandlerIO): Promise<Outcome> {
  return runHandler(stopDoor, payloadText, io);
}

/** Why the SubagentStop of Claude Code's own fork is allowed unjudged. */
const CLAUDE_FORK_REASON =
  'Claude Code\'s own fork (agent_type ""), not a subagent of the session';

/** Detects stalls in the turn and decides, for both clients' Stops. */
export async function judgeStop(
  input: HookInput,
  run: Run,
  client: StopClient,
): Promise<Outcome> {
  const { io, settings } = run;
  if (input.stopHookActive && settings.stopHookActive === "allow") {
    return allowOutcome(null);
  }
  // The file judged: the subagent's own for SubagentStop.
  const transcript = input.scanPath ?? input.transcriptPath;
  const log = (name: EventName, data: Record<string, unknown>) =>
    run.log(run.event(name, { transcript, ...data }));
  if (input.claudeFork) {
    // Nothing of the session's to judge, and its file is never written.
    log("healthy_stop", { reason: CLAUDE_FORK_REASON });
    return allowOutcome(await run.configNotice());
  }
  const detection = await detectStalls(input, {
    lagWaitMs: settings.lagWaitMs,
    sleep: io.sleep,
    now: io.now,
    reader: client.reader,
  });

  if (detection.exhausted !== null) {
    // Fail open: a verdict on part of the turn proves nothing.
    const { name, limit } = detection.exhausted;
    log("budget_exhausted", { budget: name, limit, reason: detection.reason });
    return allowOutcome(await run.configNotice(), [
      reportLine(
        `budget exhausted (${
          describeBudget(detection.exhausted)
        }) before the turn could be judged; stop allowed`,
      ),
    ]);
  }
  const stall: StallRequest = {
    transcriptPath: transcript,
    signatures: detection.signatures,
    reason: detection.reason,
    details: waitDetails(detection),
  };
  if (client.capsTurns && input.promptId !== null) {
    stall.turnCap = {
      key: `turn:${input.promptId}`,
      max: settings.maxRetries,
    };
  }
  if (detection.signatures.length === 0) {
    // Shadow mode with the log off: nobody reads the verdict, so the costly
    // judge (every language's phrase tables) is not run.
    const judged = settings.announcedNoCall === "block" ||
      settings.eventLogEnabled;
    const announced = judged ? announcedStopOf(input, detection) : null;
    if (announced === null) {
      log("healthy_stop", { reason: detection.reason });
      return allowOutcome(await run.configNotice());
    }
    // The turn's last words announced an action it ended without.
    const turnKey = input.promptId ??
      `offset:${detection.scan?.startOffset ?? announced.offset}`;
    const [found] = await withLineNumbers(transcript, [
      announcedSignature(announced, turnKey),
    ]) as [StallSignature];
    if (settings.announcedNoCall !== "block") {
      log("announced_stop", {
        reason: found.rule,
        announcement: found.announcement,
        line: found.line,
        mode: settings.announcedNoCall,
      });
      return allowOutcome(await run.configNotice());
    }
    // Once a turn: the signature's id is the turn's.
    stall.signatures = [found];
    stall.reason = found.rule;
    stall.retryCap = 1;
  }
  // Loaded lazily: only on a stall (no guardrails, texts or output modes else).
  const { stalledStopOutcome } = await import("./_block_output.ts");
  return await stalledStopOutcome(
    stall,
    input.hookEventName,
    client.name === "claude_code"
      ? releaseOf(detection.scan?.entries ?? [])
      : null,
    run,
    client.name,
  );
}

/** The announcement a healthy main-thread Stop's turn, read whole, ended on, or null. */
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

/** The lag wait's event details: how long, and what showed the file behind. */
function waitDetails(detection: Detection): Record<string, unknown> {
  return detection.waitedFor === undefined
    ? { waited_ms: detection.waitedMs }
    : { waited_ms: detection.waitedMs, waited_for: detection.waitedFor };
}
