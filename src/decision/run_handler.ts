/**
 * The run every handler shares, written once (docs/development.md, "The code
 * map"); a door hands it only what differs: how to read its payload, how to
 * judge the turn and render the decision.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import type { EventName, EventRecord } from "../events/event_log.ts";
import type { StateStore } from "../guardrails/state.ts";
import { loadSettings } from "../config/load_settings.ts";
import type { Settings } from "../config/settings.ts";
import {
  eventOf,
  type Handler,
  handles,
} from "../claude_client/hook_events.ts";
import { stringField } from "../claude_client/hook_payload.ts";
import {
  claimConfigNotice,
  claimMisregistrationNotice,
  type StoreOpener,
} from "./_notices.ts";
import { RunLog } from "./_run_log.ts";
import type { StallDecision, StallRequest } from "./_stall_decision.ts";
import { allowOutcome, type Outcome, systemMessageLine } from "./outcome.ts";

export type { StallDecision, StallRequest };

/** The parts of the process boundary a run uses. */
export type HandlerIO = Pick<CliIO, "env" | "cwd" | "now" | "sleep">;

/** A payload as its door read it. */
export interface DoorPayload<Input> {
  /** The top-level object: the run reads `session_id` and `hook_event_name`. */
  payload: Record<string, unknown>;
  /**
   * The door's input, read only once the event is the door's.
   *
   * @throws {InputError} On a missing or unusable required field.
   */
  input(): Input;
}

/** What one handler does differently; {@link runHandler} does the rest. */
export interface Door<Input> {
  handler: Handler;
  /** Its client's folder (`.claude`): the state and the log lie below it by default. */
  clientDir: string;
  /** @throws {InputError} On empty input, invalid JSON or a non-object. */
  read(text: string): DoorPayload<Input>;
  judge(input: Input, run: Run): Promise<Outcome>;
}

/** What a door's judge is handed: the settings, and the run's services. */
export interface Run {
  io: HandlerIO;
  settings: Settings;
  /** An event of this run, stamped now. */
  event(name: EventName, data: Record<string, unknown>): EventRecord;
  /** Adds events, written when the run ends or at `flush()`. */
  log(...events: readonly EventRecord[]): void;
  flush(): Promise<void>;
  /** The config problems' notice unless none or told this session: claim it only where shown. */
  configNotice(): Promise<string | null>;
  /** The guardrails on a stall: nudge now, or hold back with one line why (events logged). */
  decide(request: StallRequest): Promise<StallDecision>;
}

/**
 * Runs `door` on one payload. Requires `--allow-read`, `--allow-env`, and
 * write access to the client's folder for state and the event log.
 *
 * @example A run of a door that allows every stop
 * ```ts
 * import { allowOutcome } from "./outcome.ts";
 * import { parsePayloadObject } from "../claude_client/hook_payload.ts";
 *
 * const outcome = await runHandler({
 *   handler: "hook",
 *   clientDir: ".claude",
 *   read: (text) => ({ payload: parsePayloadObject(text), input: () => null }),
 *   judge: () => Promise.resolve(allowOutcome(null)),
 * }, '{"session_id":"s1"}', {
 *   env: {},
 *   cwd: Deno.cwd(),
 *   now: Date.now,
 *   sleep: (ms) => new Promise((wake) => setTimeout(wake, ms)),
 * });
 * // outcome: { exitCode: 0, stdout: "", stderr: "" }
 * ```
 *
 * @throws {InputError} For an unusable payload (and whatever the door
 * throws, e.g. `TranscriptError` for an unreadable transcript).
 */
export async function runHandler<Input>(
  door: Door<Input>,
  payloadText: string,
  io: HandlerIO,
): Promise<Outcome> {
  const { payload, input } = door.read(payloadText);
  const { settings, problems } = await loadSettings(io.env, io.cwd, {
    clientDir: door.clientDir,
  });
  const sessionId = stringField(payload, "session_id") ?? "";
  const event = eventOf(payload, door.handler);
  const log = new RunLog(
    io,
    settings,
    { sessionId, hookEventName: event },
    door.clientDir,
  );
  let store: Promise<StateStore> | null = null;
  const openStore: StoreOpener = () =>
    // Loaded lazily: only when a notice or a decision needs state.
    store ??= import("../guardrails/state.ts").then(({ StateStore }) =>
      new StateStore({
        cwd: io.cwd,
        stateDir: settings.stateDir,
        clientDir: door.clientDir,
        sleep: io.sleep,
        onRescue: (rescue) => log.rescued(rescue),
      })
    );
  const configNotice = () => claimConfigNotice(openStore, sessionId, problems);
  if (!handles(door.handler, event)) {
    // Never judged: under PreToolUse every call is unanswered by nature.
    const notices = [
      await claimMisregistrationNotice(
        openStore,
        sessionId,
        door.handler,
        event,
      ),
      // The watcher tells no config problems, here as on every run.
      door.handler === "watch" ? null : await configNotice(),
    ].filter((notice) => notice !== null);
    return await log.finish({
      ...allowOutcome(null),
      stdout: systemMessageLine(notices),
    });
  }
  const run: Run = {
    io,
    settings,
    event: (name, data) => log.event(name, data),
    log: (...events) => log.log(...events),
    flush: () => log.flush(),
    configNotice,
    decide: async (request) => {
      // Loaded lazily: only on a stall (the guardrails, the recovery texts).
      const { decideOnStall } = await import("./_stall_decision.ts");
      const decision = await decideOnStall(request, {
        subject: { sessionId, hookEventName: event },
        io,
        clientDir: door.clientDir,
        settings,
        store: await openStore(),
        nowSeconds: io.now() / 1000,
      });
      log.log(...decision.events);
      return decision;
    },
  };
  return await log.finish(await door.judge(input(), run));
}
