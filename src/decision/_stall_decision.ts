/**
 * From detected stalls to a decision, for every door: the guardrails against
 * the session's state (one retry budget per tool_use_id), nudge or hold back,
 * with the texts and events that explain it.
 *
 * @module
 */

import { signatureData, type StallSignature } from "../detection/classify.ts";
import { describe } from "../shared/errors.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { quoteForPrompt } from "../recovery/prompt_text.ts";
import type { EventName, EventRecord } from "../events/event_log.ts";
import { eventRecord, type EventSubject } from "./_run_log.ts";
import { killSwitchOf } from "./kill_switch.ts";
import {
  type CappedSignature,
  evaluateGates,
  type GateDecision,
  recordRecovery,
  type TurnCap,
} from "../guardrails/guardrails.ts";
import {
  buildBlockMessage,
  buildFittedPrompt,
  buildReportLines,
  type PromptWording,
} from "../recovery/recovery.ts";
import type { Settings } from "../config/settings.ts";
import type { StateStore } from "../guardrails/state.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { reportLine } from "../recovery/report_line.ts";

/** A stall a door detected and wants to act on. */
export interface StallRequest {
  transcriptPath: string;
  /** Non-empty, sorted by line. */
  signatures: readonly StallSignature[];
  /** Which rule fired. */
  reason: string;
  /** Extra facts for `stall_detected`. */
  details?: Readonly<Record<string, unknown>>;
  /** `"idle"` when the nudge wakes an idle session (the watchdog); default `"stop"`. */
  wording?: PromptWording;
  /** A retry cap below the settings' (an announced stop: once a turn). */
  retryCap?: number;
  /** A cap on the nudges of the turn, whatever its calls (Codex's Stop). */
  turnCap?: TurnCap;
}

/** What deciding needs besides the request. */
interface DecisionContext {
  subject: EventSubject;
  io: Pick<CliIO, "env" | "cwd">;
  /** The client's folder (`.claude`, `.codex`). */
  clientDir: string;
  settings: Settings;
  store: StateStore;
  nowSeconds: number;
}

/** The decision: nudge now, or hold back with one line saying which brake fired. */
export type StallDecision =
  | {
    action: "recover";
    signatures: StallSignature[];
    /** Report and recovery prompt: the stderr of an exit-2 block. */
    message: string;
    /** The prompt and the report lines alone, for the JSON output modes. */
    prompt: string;
    report: string;
    events: EventRecord[];
  }
  | {
    action: "suppress";
    line: string;
    events: EventRecord[];
  };

/** Kill switch -> cooldown -> caps for a stall; without usable state no nudge (it could loop). */
export async function decideOnStall(
  request: StallRequest,
  context: DecisionContext,
): Promise<StallDecision> {
  const { subject, nowSeconds } = context;
  const settings = request.retryCap === undefined ? context.settings : {
    ...context.settings,
    maxRetries: Math.min(context.settings.maxRetries, request.retryCap),
  };
  const event = (name: EventName, data: Record<string, unknown>) =>
    eventRecord(name, subject, nowSeconds, data);
  const events = [event("stall_detected", {
    transcript: request.transcriptPath,
    reason: request.reason,
    signatures: request.signatures.map(signatureData),
    ...request.details,
  })];
  const suppress = (brake: EventRecord, line: string): StallDecision => {
    events.push(brake);
    return { action: "suppress", line: reportLine(line), events };
  };
  const killSwitch = killSwitchOf(settings, context.io);
  if (killSwitch.active) {
    return suppress(
      event("kill_switch_active", { source: killSwitch.source }),
      `kill switch active (${
        escapeTerminal(killSwitch.source)
      }); recovery skipped`,
    );
  }

  let decision: GateDecision;
  try {
    decision = await context.store.update(subject.sessionId, ({ state }) => {
      const gates = evaluateGates(
        request.signatures,
        state,
        request.turnCap ? { ...settings, turnCap: request.turnCap } : settings,
        nowSeconds,
      );
      const next = gates.gate === "recover"
        ? recordRecovery(state, gates.retries, nowSeconds)
        : null;
      return { state: next, result: gates };
    });
  } catch (error) {
    // Fail open, and log why.
    const reason = describe(error);
    return suppress(
      event("state_unavailable", { reason }),
      `cannot use session state (${reason}); ` +
        "allowing the stop rather than nudging without a retry budget",
    );
  }
  // A lock that would not unlock was released by closing its file: the event says so.
  const [unlockError] = context.store.takeUnlockErrors();
  const gateEvent = (name: EventName, data: Record<string, unknown>) =>
    event(
      name,
      unlockError ? { ...data, lock_release_error: unlockError } : data,
    );

  if (decision.gate === "cooldown") {
    return suppress(
      gateEvent("cooldown_skipped", {
        cooldown_seconds: decision.cooldownSeconds,
        remaining_seconds: decision.remainingSeconds,
        last_recovery_at: decision.lastRecoveryAt,
      }),
      `cooldown active (${decision.remainingSeconds}s of ` +
        `${decision.cooldownSeconds}s left); recovery skipped`,
    );
  }
  if (decision.gate === "turn_cap") {
    const { key, max } = decision.turnCap;
    return suppress(
      gateEvent("retry_cap_hit", {
        max_retries: max,
        scope: "turn",
        turn: key,
        capped: cappedData(decision.capped),
      }),
      `turn cap reached (${max}/${max} nudges in ${
        quoteForPrompt(key)
      }); recovery skipped`,
    );
  }
  if (decision.gate === "retry_cap") {
    const ids = decision.capped.map((c) =>
      c.signature.toolUseId
        ? quoteForPrompt(c.signature.toolUseId)
        : "<unknown>"
    );
    return suppress(
      gateEvent("retry_cap_hit", {
        max_retries: decision.maxRetries,
        capped: cappedData(decision.capped),
      }),
      `retry cap reached (${decision.maxRetries}/${decision.maxRetries}) ` +
        `for ${ids.join(", ")}; recovery skipped`,
    );
  }
  context.store.pruneDaily(nowSeconds * 1000);
  events.push(gateEvent("recovery_dispatched", {
    max_retries: decision.maxRetries,
    retries: decision.retries,
    signatures: decision.allowed.map(signatureData),
    capped: cappedData(decision.capped),
  }));
  const wording = { wording: request.wording ?? "stop" } as const;
  const text = settings.recovery;
  return {
    action: "recover",
    signatures: decision.allowed,
    message: buildBlockMessage(
      decision.allowed,
      request.transcriptPath,
      text,
      wording,
    ),
    prompt: buildFittedPrompt(decision.allowed, text, wording),
    report: buildReportLines(decision.allowed, request.transcriptPath).join(
      "\n",
    ),
    events,
  };
}

function cappedData(capped: readonly CappedSignature[]) {
  return capped.map((c) => ({
    ...signatureData(c.signature),
    retries: c.retries,
  }));
}
