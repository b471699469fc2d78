/**
 * The PostToolUse watchdog contract (`stall-watch watch`): payload text in,
 * exit code and stderr out.
 *
 * Claude Code fires no Stop hook when a turn ends right after a tool result,
 * so a Stop hook never sees the classic silent stall. Registered as an
 * `asyncRewake` PostToolUse hook, this runs in the background after each
 * tool call and, when the model never answers the result, exits 2: Claude
 * Code then wakes the idle session and shows stderr (the recovery prompt) to
 * the model. Every other ending is exit 0.
 *
 * Read top-down: the payload, the settings, the brakes that end a watch at
 * once, following the transcript (`_watch_loop.ts`), then judging the turn
 * and the decision the Stop hook takes too (`decision/`).
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { classifyTurn } from "../detection/classify.ts";
import { withLineNumbers } from "../detection/detect.ts";
import { describe, ExitCode } from "../shared/errors.ts";
import type { EventName, EventRecord } from "../events/event_log.ts";
import { launchedBackgroundTasks } from "../detection/background_launch.ts";
import { loadSettings } from "../settings/load_settings.ts";
import type { Settings } from "../settings/settings.ts";
import type { StateRescue } from "../guardrails/state.ts";
import { apiTimeoutMs } from "../claude_client/timers.ts";
import { reportLine } from "../recovery/report_line.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { eventRecord } from "../decision/event_record.ts";
import { eventOf, handles } from "../claude_client/hook_events.ts";
import { killSwitchOf } from "../decision/kill_switch.ts";
import { logEvents } from "../decision/log_events.ts";
import { misregistered } from "../decision/misregistered.ts";
import { stateStoreOpener } from "../decision/notices.ts";
import type { Outcome } from "../decision/outcome.ts";
import { parsePayloadObject } from "../claude_client/hook_payload.ts";
import {
  quarantineEvents,
  quarantineLine,
} from "../decision/quarantine_report.ts";
import { decideOnStall } from "../decision/stall_decision.ts";
import {
  unattendedRun,
  type WatchInput,
  watchInputFrom,
} from "./_watch_input.ts";
import { watchTranscript } from "./_watch_loop.ts";
import { claimWatch, isSuperseded, type WatchClaim } from "./_watch_marker.ts";
import { watchLimits } from "./_watch_step.ts";

/**
 * Added to the nudge when Claude Code's request for the model's answer
 * failed: the model then sees an `API Error` line after the result and
 * might take its own tool call for the failure.
 */
export const API_ERROR_NOTE = reportLine(
  "the request for your answer to that tool result failed with an API " +
    "error, not the tool: the tool ran and its result is in the " +
    "conversation, so that call needs no retry: carry on from its result.",
) + "\n";

/** The parts of the process boundary a watch uses. */
export type WatchIO = Pick<CliIO, "env" | "cwd" | "now" | "sleep">;

/**
 * Watches one tool call's result until the model answers it, a newer call
 * takes over, the deadline passes, or the turn ends unanswered (then the
 * guardrails decide whether to nudge). Exit 0, or 2 to wake Claude with
 * stderr; stdout only tells the user it runs under the wrong event.
 * Requires `--allow-read`, `--allow-env` and write access to `.claude`.
 *
 * @throws {InputError} For unusable payloads and unreadable transcripts.
 */
export async function runWatch(
  payloadText: string,
  io: WatchIO,
): Promise<Outcome> {
  const payload = parsePayloadObject(payloadText);
  const loaded = await loadSettings(io.env, io.cwd);
  const event = eventOf(payload, "watch");
  if (!handles("watch", event)) {
    return await misregistered("watch", event, payload, loaded, io);
  }
  const input = watchInputFrom(payload);
  const { settings } = loaded;
  const log = new WatchLog(io, settings, input);
  if (input.agentId !== null) {
    // The call ran in a subagent: its file is not the one watched here, and
    // its stalls are SubagentStop's. It must not supersede the main watcher.
    return await log.finish("subagent", "the call ran inside a subagent");
  }
  const unattended = unattendedRun(io.env);
  if (unattended !== null) {
    return await log.finish(
      "unattended",
      `a -p or SDK run (${unattended}) cannot be woken`,
    );
  }
  if (input.interrupted) {
    return await log.finish("interrupted", "the user interrupted the call");
  }
  const killSwitch = killSwitchOf(settings, io);
  if (killSwitch.active) {
    return await log.finish(
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
    return await log.finish(
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
    started: (state) =>
      log.add("watch_started", {
        tool_name: input.toolName,
        transcript: input.transcriptPath,
        idle_seconds: settings.idleSeconds,
        max_seconds: settings.watchMaxSeconds,
        call_state: state?.kind ?? "no_transcript",
      }),
  });
  if (watched.action === "finish") {
    return await log.finish(watched.outcome, watched.reason, "", {
      elapsed_seconds: watched.elapsedMs / 1000,
    });
  }

  const elapsed = { elapsed_seconds: watched.elapsedMs / 1000 };
  const verdict = classifyTurn(watched.turn, {
    backgroundTasks: launchedBackgroundTasks(watched.turn),
  });
  if (verdict.signatures.length === 0) {
    return await log.finish("healthy", verdict.reason, "", elapsed);
  }
  const apiError = verdict.endedOnApiError === true;
  const trigger = (apiError ? "an API error ended the turn, then " : "") +
    (watched.trigger === "turn_end"
      ? "the turn ended"
      : `the transcript was quiet for ${watched.quietMs / 1000}s`);
  const openStore = stateStoreOpener(
    io,
    settings,
    (entry) => log.quarantined(entry),
  );
  const result = await decideOnStall({
    sessionId: input.sessionId,
    hookEventName: input.hookEventName,
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
  }, {
    settings,
    killSwitch: killSwitchOf(settings, io),
    store: await openStore(),
    nowSeconds: io.now() / 1000,
  });
  await log.add(result.events);
  if (result.action === "suppress") {
    return await log.finish("suppressed", result.line, result.line, elapsed);
  }
  // asyncRewake shows stderr to the model: the report and recovery prompt.
  return await log.finish(
    "nudged",
    verdict.reason,
    apiError ? result.message + API_ERROR_NOTE : result.message,
    elapsed,
    ExitCode.block,
  );
}

/** Collects the watch's events and writes them once, with the final result. */
class WatchLog {
  #io: WatchIO;
  #settings: Settings;
  #input: WatchInput;
  /** Events not logged yet. */
  #events: EventRecord[] = [];
  /** Lines for stderr about files moved aside. */
  #notes = "";
  #problems = "";

  constructor(io: WatchIO, settings: Settings, input: WatchInput) {
    this.#io = io;
    this.#settings = settings;
    this.#input = input;
  }

  /**
   * Logs a state or lock file the watch moved aside, and says so on stderr
   * with the final result.
   */
  quarantined(entry: StateRescue): void {
    this.#events.push(
      ...quarantineEvents([entry], this.#input, this.#io.now() / 1000),
    );
    this.#notes += quarantineLine(entry) + "\n";
  }

  /** Writes events now (so a long watch shows up in the log while it runs). */
  async add(
    events: EventName | readonly EventRecord[],
    data: Record<string, unknown> = {},
  ): Promise<void> {
    const records = typeof events === "string"
      ? [this.#event(events, data)]
      : events;
    // Events of files moved aside meanwhile go out first, in order.
    const pending = this.#events.splice(0);
    this.#problems += await logEvents(this.#io, this.#settings, [
      ...pending,
      ...records,
    ]);
  }

  /** Logs `watch_finished` and builds the process result. */
  async finish(
    outcome: string,
    reason: string,
    line = "",
    data: Record<string, unknown> = {},
    exitCode: number = ExitCode.ok,
  ): Promise<Outcome> {
    await this.add("watch_finished", {
      outcome,
      reason,
      exit_code: exitCode,
      ...data,
    });
    const text = line === "" || line.endsWith("\n") ? line : `${line}\n`;
    return {
      exitCode,
      stdout: "",
      stderr: text + this.#notes + this.#problems,
    };
  }

  #event(name: EventName, data: Record<string, unknown>): EventRecord {
    return eventRecord(name, this.#input, this.#io.now() / 1000, {
      tool_use_id: this.#input.toolUseId,
      ...data,
    });
  }
}
