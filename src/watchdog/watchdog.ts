/**
 * The watcher's door (`stall-watch watch`, docs/watchdog.md): an
 * `asyncRewake` PostToolUse hook that watches a result and, when the model
 * never answers it, exits 2 to wake the session with the recovery prompt.
 *
 * @module
 */

import { classifyTurn } from "../detection/classify.ts";
import { withLineNumbers } from "../detection/detect.ts";
import { describe, ExitCode } from "../shared/errors.ts";
import type { EventName } from "../events/event_log.ts";
import { launchedBackgroundTasks } from "../detection/background_tasks.ts";
import { apiTimeoutMs } from "../claude_client/timers.ts";
import { CLAUDE_DIR } from "../confined/confine.ts";
import { reportLine } from "../recovery/report_line.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { killSwitchOf } from "../decision/kill_switch.ts";
import type { Outcome } from "../decision/outcome.ts";
import {
  type Door,
  type HandlerIO,
  type Run,
  runHandler,
} from "../decision/run_handler.ts";
import {
  readWatchPayload,
  unattendedRun,
  type WatchInput,
} from "./_watch_input.ts";
import { watchTranscript } from "./_watch_loop.ts";
import { claimWatch, isSuperseded, type WatchClaim } from "./_watch_marker.ts";
import { watchLimits } from "./_watch_step.ts";

/** Added to the nudge when the request for the model's answer failed (not the tool). */
export const API_ERROR_NOTE = reportLine(
  "the request for your answer to that tool result failed with an API " +
    "error, not the tool: the tool ran and its result is in the " +
    "conversation, so that call needs no retry: carry on from its result.",
) + "\n";

const watchDoor: Door<WatchInput> = {
  handler: "watch",
  clientDir: CLAUDE_DIR,
  read: readWatchPayload,
  judge: watch,
};

/**
 * Watches one call's result until answered, superseded, out of time, or the
 * turn ends unanswered. Requires `--allow-read`, `--allow-env`, write access to `.claude`.
 *
 * @throws {InputError} For unusable payloads and unreadable transcripts.
 */
export function runWatch(payloadText: string, io: HandlerIO): Promise<Outcome> {
  return runHandler(watchDoor, payloadText, io);
}

/** Follows the call, then judges the turn; logs `watch_finished` as it ends. */
async function watch(input: WatchInput, run: Run): Promise<Outcome> {
  const { io, settings } = run;
  const event = (name: EventName, data: Record<string, unknown>) =>
    run.event(name, { tool_use_id: input.toolUseId, ...data });
  const finish = (
    outcome: string,
    reason: string,
    line = "",
    data: Record<string, unknown> = {},
    exitCode: number = ExitCode.ok,
  ): Outcome => {
    run.log(event("watch_finished", {
      outcome,
      reason,
      exit_code: exitCode,
      ...data,
    }));
    const stderr = line === "" || line.endsWith("\n") ? line : `${line}\n`;
    return { exitCode, stdout: "", stderr };
  };
  if (input.agentId !== null) {
    // Its stalls are SubagentStop's, and it must not supersede the main watcher.
    return finish("subagent", "the call ran inside a subagent");
  }
  const unattended = unattendedRun(io.env);
  if (unattended !== null) {
    return finish(
      "unattended",
      `a -p or SDK run (${unattended}) cannot be woken`,
    );
  }
  if (input.interrupted) {
    return finish("interrupted", "the user interrupted the call");
  }
  const killSwitch = killSwitchOf(settings, io);
  if (killSwitch.active) {
    return finish(
      "kill_switch",
      `kill switch active (${killSwitch.source})`,
      reportLine(
        `kill switch active (${
          escapeTerminal(killSwitch.source)
        }); watch skipped`,
      ),
    );
  }
  let claim: WatchClaim;
  try {
    claim = claimWatch(
      io.cwd,
      settings.stateDir,
      input.sessionId,
      input.toolUseId,
      io.now(),
    );
  } catch (error) {
    // Without the marker there is no state either: nudging would be unbounded.
    return finish(
      "no_state",
      describe(error),
      reportLine(
        `cannot use the state folder (${describe(error)}); watch skipped`,
      ),
    );
  }
  const watched = await watchTranscript({
    transcriptPath: input.transcriptPath,
    toolUseId: input.toolUseId,
    promptId: input.promptId,
    limits: watchLimits(settings, apiTimeoutMs(io.env)),
    now: io.now,
    sleep: io.sleep,
    superseded: () => isSuperseded(claim),
    started: (state) => {
      run.log(event("watch_started", {
        tool_name: input.toolName,
        transcript: input.transcriptPath,
        idle_seconds: settings.idleSeconds,
        max_seconds: settings.watchMaxSeconds,
        call_state: state?.kind ?? "no_transcript",
      }));
      return run.flush();
    },
  });
  const elapsed = { elapsed_seconds: watched.elapsedMs / 1000 };
  if (watched.action === "finish") {
    return finish(watched.outcome, watched.reason, "", elapsed);
  }
  const verdict = classifyTurn(watched.turn, {
    backgroundTasks: launchedBackgroundTasks(watched.turn),
  });
  if (verdict.signatures.length === 0) {
    return finish("healthy", verdict.reason, "", elapsed);
  }
  const apiError = verdict.endedOnApiError === true;
  const trigger = (apiError ? "an API error ended the turn, then " : "") +
    (watched.trigger === "turn_end"
      ? "the turn ended"
      : `the transcript was quiet for ${watched.quietMs / 1000}s`);
  const decision = await run.decide({
    transcriptPath: input.transcriptPath,
    signatures: await withLineNumbers(
      input.transcriptPath,
      verdict.signatures,
    ),
    reason: `${verdict.reason} (${trigger})`,
    wording: "idle",
    details: {
      trigger: watched.trigger,
      watched_tool_use_id: input.toolUseId,
      quiet_seconds: watched.quietMs / 1000,
      ...(apiError ? { api_error: true } : {}),
      ...elapsed,
    },
  });
  if (decision.action === "suppress") {
    return finish("suppressed", decision.line, decision.line, elapsed);
  }
  // asyncRewake shows stderr to the model: the report and recovery prompt.
  return finish(
    "nudged",
    verdict.reason,
    apiError ? decision.message + API_ERROR_NOTE : decision.message,
    elapsed,
    ExitCode.block,
  );
}
