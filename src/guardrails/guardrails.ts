/**
 * The brakes between a detected stall and a nudge: kill switch -> cooldown -> turn cap (a client
 * without its own cap: Codex) -> per-tool_use_id retry cap -> recovery. Pure.
 *
 * @example
 * ```ts
 * const gate = evaluateGates(signatures, state, { maxRetries: 3, cooldownSeconds: 0 }, now);
 * if (gate.gate === "recover") state = recordRecovery(state, gate.retries, now);
 * ```
 *
 * @module
 */

import type { StallSignature } from "../detection/classify.ts";
import { retriesOf, type SessionState } from "./session_state.ts";

/** Whether the kill switch is on, and what turned it on. */
export interface KillSwitchStatus {
  active: boolean;
  /** E.g. `env STALL_WATCH_DISABLED=1`, `file .claude/stall-watch.off`. */
  source: string;
}

/** Values that turn a kill-switch variable off; anything else turns it on. */
const FALSY = new Set(["", "0", "false", "no", "off"]);

/** The seed's truthiness for the kill-switch variable. */
export function isTruthy(value: string): boolean {
  return !FALSY.has(value.trim().toLowerCase());
}

/** Values of the kill-switch variable safe to show: they are no secret. */
const SHOWN = new Set([...FALSY, "1", "true", "yes", "on"]);

/** The kill-switch variable as messages name it: its value only when an on/off word. */
function envSource(name: string, value: string): string {
  const word = value.trim().toLowerCase();
  return SHOWN.has(word) && word !== ""
    ? `env ${name}=${word}`
    : `env ${name} (set)`;
}

/** The facts the kill switch depends on, gathered by the caller. */
export interface KillSwitchFacts {
  env: Readonly<Record<string, string>>;
  envName: string;
  /** The marker file's path, when one is configured. */
  file: string | null;
  fileExists: boolean;
  /** The config's `kill_switch: true`. */
  configured: boolean;
}

/** Decides the kill switch: the variable (when set at all), then the marker file, then config. */
export function killSwitchStatus(facts: KillSwitchFacts): KillSwitchStatus {
  const value = facts.env[facts.envName];
  if (value !== undefined) {
    return { active: isTruthy(value), source: envSource(facts.envName, value) };
  }
  if (facts.file !== null && facts.fileExists) {
    return { active: true, source: `file ${facts.file}` };
  }
  return facts.configured
    ? { active: true, source: "config kill_switch" }
    : { active: false, source: "" };
}

/** A signature the retry cap holds back, with its count. */
export interface CappedSignature {
  signature: StallSignature;
  retries: number;
}

/** The outcome of the gates. */
export type GateDecision =
  | {
    gate: "cooldown";
    cooldownSeconds: number;
    remainingSeconds: number;
    lastRecoveryAt: number;
  }
  | { gate: "retry_cap"; maxRetries: number; capped: CappedSignature[] }
  | {
    gate: "turn_cap";
    turnCap: TurnCap;
    capped: CappedSignature[];
  }
  | {
    gate: "recover";
    maxRetries: number;
    /** Signatures to nudge now; the rest are `capped`. */
    allowed: StallSignature[];
    capped: CappedSignature[];
    /** Retry counts after this recovery, per tool_use_id (and the turn's, with a turn cap). */
    retries: Record<string, number>;
  };

/**
 * At most `max` nudges in one turn: Codex re-runs a blocking Stop hook without end (Claude Code
 * stops after 8), and each new call that stalls would get a fresh retry budget.
 */
export interface TurnCap {
  /** The key the turn's count is kept under in the retries: `turn:<turn_id>`. */
  key: string;
  max: number;
}

/** The limits the gates enforce. */
export interface GateLimits {
  maxRetries: number;
  cooldownSeconds: number;
  /** A cap on the turn's nudges (see {@link TurnCap}); none by default. */
  turnCap?: TurnCap;
}

/** Runs the cooldown and cap gates on `signatures` (non-empty, by line). */
export function evaluateGates(
  signatures: readonly StallSignature[],
  state: SessionState,
  limits: GateLimits,
  nowSeconds: number,
): GateDecision {
  if (limits.cooldownSeconds > 0 && state.lastRecoveryAt > 0) {
    const elapsed = nowSeconds - state.lastRecoveryAt;
    if (elapsed >= 0 && elapsed < limits.cooldownSeconds) {
      return {
        gate: "cooldown",
        cooldownSeconds: limits.cooldownSeconds,
        remainingSeconds: round(limits.cooldownSeconds - elapsed),
        lastRecoveryAt: state.lastRecoveryAt,
      };
    }
  }
  const turnCap = limits.turnCap;
  if (turnCap !== undefined && retriesOf(state, turnCap.key) >= turnCap.max) {
    const capped = signatures.map((signature) => ({
      signature,
      retries: retriesOf(state, signature.toolUseId),
    }));
    return { gate: "turn_cap", turnCap, capped };
  }
  const allowed: StallSignature[] = [];
  const capped: CappedSignature[] = [];
  for (const signature of signatures) {
    const retries = retriesOf(state, signature.toolUseId);
    if (retries >= limits.maxRetries) capped.push({ signature, retries });
    else allowed.push(signature);
  }
  if (allowed.length === 0) {
    return { gate: "retry_cap", maxRetries: limits.maxRetries, capped };
  }
  // A Map, then fromEntries: an id such as `__proto__` must never meet a prototype.
  const counts = new Map<string, number>();
  for (const { toolUseId: id } of allowed) {
    if (!counts.has(id)) counts.set(id, retriesOf(state, id) + 1); // once per id per recovery
  }
  if (turnCap !== undefined) {
    counts.set(turnCap.key, retriesOf(state, turnCap.key) + 1);
  }
  const retries = Object.fromEntries(counts);
  const { maxRetries } = limits;
  return { gate: "recover", maxRetries, allowed, capped, retries };
}

/** The state after a recovery {@link evaluateGates} allowed. */
export function recordRecovery(
  state: SessionState,
  retries: Readonly<Record<string, number>>,
  nowSeconds: number,
): SessionState {
  return {
    ...state,
    retries: { ...state.retries, ...retries },
    lastRecoveryAt: nowSeconds,
  };
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
