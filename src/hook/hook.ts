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
import { ExitCode } from "../shared/errors.ts";
import {
  hookEventOf,
  hookInputFrom,
  parseHookPayload,
  stringField,
} from "./hook_input.ts";
import {
  claimMisregistrationNotice,
  handles,
  misregistrationNotice,
} from "./event_guard.ts";
import { formatProblems, loadSettings } from "../settings/load_settings.ts";
import type { SettingProblem, Settings } from "../settings/settings.ts";
import type { StateStore } from "../guardrails/state.ts";
import { importLazily } from "../shared/lazy_import.ts";

/** What the process should do: its exit code and output. */
export interface HookOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

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
    return { exitCode: ExitCode.ok, stdout: "", stderr: "" };
  }
  const detection = await detectStalls(input, {
    lagWaitMs: settings.lagWaitMs,
    sleep: io.sleep,
    now: io.now,
  });
  const nowSeconds = io.now() / 1000;
  const notices = new Notices(
    () => openStateStore(io, settings),
    input.sessionId,
    problems,
  );
  const transcript = detection.path ?? input.transcriptPath;

  if (detection.exhausted !== null) {
    // Fail open: a verdict on part of the turn proves nothing either way.
    const { name, limit } = detection.exhausted;
    const logError = await log(io, settings, [{
      event: "budget_exhausted",
      sessionId: input.sessionId,
      ts: nowSeconds,
      data: {
        hook_event: input.hookEventName,
        transcript,
        budget: name,
        limit,
        reason: detection.reason,
      },
    }]);
    return await allow(
      notices,
      `stall_watch: budget exhausted (${
        describeBudget(detection.exhausted)
      }) before the turn could be judged; stop allowed`,
      logError,
    );
  }
  if (detection.signatures.length === 0) {
    const logError = await log(io, settings, [{
      event: "healthy_stop",
      sessionId: input.sessionId,
      ts: nowSeconds,
      data: {
        hook_event: input.hookEventName,
        transcript,
        reason: detection.reason,
      },
    }]);
    return await allow(notices, logError);
  }

  // The block path's modules load only when there is a stall to act on.
  const { dispatchStall } = await importLazily<typeof import("./dispatch.ts")>(
    "./dispatch.ts",
    import.meta.url,
  );
  const { killSwitchOf } = await importLazily<
    typeof import("./dispatch_io.ts")
  >(
    "./dispatch_io.ts",
    import.meta.url,
  );
  const result = await dispatchStall({
    sessionId: input.sessionId,
    hookEvent: input.hookEventName,
    transcriptPath: transcript,
    signatures: detection.signatures,
    reason: detection.reason,
    details: { waited_ms: detection.waitedMs },
  }, {
    settings,
    killSwitch: await killSwitchOf(settings, io),
    store: await openStateStore(io, settings),
    nowSeconds,
  });
  const logError = await log(io, settings, result.events);
  if (result.action === "suppress") {
    return await allow(notices, result.line, logError);
  }
  const { blockOutcome } = await importLazily<
    typeof import("./block_output.ts")
  >(
    "./block_output.ts",
    import.meta.url,
  );
  const outcome = blockOutcome(settings.output, {
    message: result.message,
    prompt: result.prompt,
    report: result.report,
    hookEvent: input.hookEventName,
    notice: settings.output === "stderr" ? null : await notices.claim(),
  });
  return { ...outcome, stderr: outcome.stderr + logError };
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
  const store = () => openStateStore(io, settings);
  const lines: string[] = [];
  if (await claimMisregistrationNotice(store, sessionId, "hook", event)) {
    lines.push(misregistrationNotice("hook", event));
  }
  const config = await new Notices(store, sessionId, problems).claim();
  if (config) lines.push(config);
  return {
    exitCode: ExitCode.ok,
    stdout: lines.length > 0
      ? JSON.stringify({ systemMessage: lines.join("\n") }) + "\n"
      : "",
    stderr: "",
  };
}

/** Tells the user about config problems once per session, via `systemMessage`. */
class Notices {
  #store: () => Promise<StateStore>;
  #sessionId: string;
  #problems: readonly SettingProblem[];

  constructor(
    store: () => Promise<StateStore>,
    sessionId: string,
    problems: readonly SettingProblem[],
  ) {
    this.#store = store;
    this.#sessionId = sessionId;
    this.#problems = problems;
  }

  /** The notice to show now, or `null` when there is none or it was shown. */
  async claim(): Promise<string | null> {
    if (this.#problems.length === 0) return null;
    const { problemsFingerprint } = await importLazily<
      typeof import("./dispatch.ts")
    >(
      "./dispatch.ts",
      import.meta.url,
    );
    const fingerprint = problemsFingerprint(this.#problems);
    const text = "stall-watch config problem (defaults used instead): " +
      formatProblems(this.#problems).join("; ");
    try {
      const fresh = await (await this.#store()).update(
        this.#sessionId,
        ({ state }) =>
          state.configNotice === fingerprint
            ? { state: null, result: false }
            : { state: { ...state, configNotice: fingerprint }, result: true },
      );
      return fresh ? text : null;
    } catch {
      return text; // cannot remember it was shown: better shown twice than never
    }
  }
}

async function allow(
  notices: Notices,
  ...lines: string[]
): Promise<HookOutcome> {
  const notice = await notices.claim();
  const stderr = lines.filter((l) => l !== "").map((l) =>
    l.endsWith("\n") ? l : l + "\n"
  );
  return {
    exitCode: ExitCode.ok,
    stdout: notice ? JSON.stringify({ systemMessage: notice }) + "\n" : "",
    stderr: stderr.join(""),
  };
}

async function openStateStore(
  io: HookIO,
  settings: Settings,
): Promise<StateStore> {
  const { StateStore } = await importLazily<
    typeof import("../guardrails/state.ts")
  >(
    "../guardrails/state.ts",
    import.meta.url,
  );
  return new StateStore({
    cwd: io.cwd,
    stateDir: settings.stateDir,
    sleep: io.sleep,
  });
}

/** Writes events when the log is on (its code loads only then). */
async function log(
  io: HookIO,
  settings: Settings,
  events: readonly EventRecord[],
): Promise<string> {
  if (!settings.eventLogEnabled) return "";
  const { logEvents } = await importLazily<typeof import("./dispatch_io.ts")>(
    "./dispatch_io.ts",
    import.meta.url,
  );
  return await logEvents(io, settings, events);
}
