/**
 * The watchdog's policy: from where the call stands and how long the
 * transcript was quiet, wait, give up silently, or judge the turn.
 *
 * @module
 */

import type { Settings } from "../config/settings.ts";
import type { CallState } from "./_watch_state.ts";
import { featureSince, formatRelease } from "../claude_client/release.ts";
import { CLAUDE_TIMERS } from "../claude_client/timers.ts";

const ASYNC_REWAKE_SINCE = formatRelease(featureSince("async_rewake"));

/** How long the watchdog waits for what. */
export interface WatchLimits {
  /** Quiet time after an unanswered result that counts as a stall. */
  idleMs: number;
  maxMs: number;
  /** Give up this soon when the call never shows; quiet that counts for nothing before the prompt. */
  graceMs: number;
  /** Between two looks at the transcript. */
  tickMs: number;
  /** Between two reads of the session's marker (at most `tickMs`). */
  pollMs: number;
  /** How long a model request may run before its silence counts (`API_TIMEOUT_MS`). */
  requestMs: number;
}

/** Superseded watchers leave within this. */
const MARKER_POLL_MS = 100;

/** How long a call may take to appear (Claude Code writes `tool_use` before the tool runs). */
const CALL_GRACE_MS = 10_000;

/** The limits for the effective settings. */
export function watchLimits(
  settings: Pick<Settings, "idleSeconds" | "watchMaxSeconds">,
  requestMs: number = CLAUDE_TIMERS.apiTimeout * 1000,
): WatchLimits {
  const idleMs = settings.idleSeconds * 1000;
  // Ten checks per idle window, at most one a second: cheap and prompt.
  const tickMs = Math.min(1000, Math.max(20, Math.round(idleMs / 10)));
  return {
    idleMs,
    maxMs: settings.watchMaxSeconds * 1000,
    graceMs: CALL_GRACE_MS,
    tickMs,
    pollMs: Math.min(tickMs, MARKER_POLL_MS),
    requestMs,
  };
}

/** Why a watcher stopped without judging. */
export type WatchOutcome =
  | "superseded"
  | "followed_up"
  | "interrupted"
  | "hook_stopped"
  | "new_turn"
  | "not_found"
  | "deadline"
  | "too_large"
  | "client_unsupported";

type WatchStep =
  | { action: "wait" }
  | { action: "finish"; outcome: WatchOutcome; reason: string }
  /** The turn is over (marker) or quiet too long: classify it now. */
  | { action: "judge"; trigger: "turn_end" | "idle" };

/** What the watcher knows at one tick. */
export interface WatchFacts {
  /** `null` while the transcript does not exist. */
  state: CallState | null;
  turnEnded: boolean;
  /** A model request started after the result and has not come back yet. */
  requestOpen: boolean;
  /** The call or its result has been in the current turn at some tick. */
  seen: boolean;
  superseded: boolean;
  /** The transcript's release when it cannot deliver a wake-up, else null. */
  unwakeableRelease?: string | null;
  elapsedMs: number;
  quietMs: number;
  limits: WatchLimits;
}

/** The next step: a newer watcher or a follow-up ends the watch first; a turn end or idle window is judged before the deadline. */
export function nextWatchStep(facts: WatchFacts): WatchStep {
  const { state, limits } = facts;
  if (facts.superseded) return SUPERSEDED;
  if (facts.unwakeableRelease) {
    // Its exit 2 would reach no one and spend the call's retry budget; and
    // before 2.1.15 the watcher would hold up the session (hooks ran in line).
    return finish(
      "client_unsupported",
      `Claude Code ${facts.unwakeableRelease} cannot deliver a watcher's ` +
        `wake-up (asyncRewake needs ${ASYNC_REWAKE_SINCE})`,
    );
  }
  if (state?.kind === "absent" && facts.seen) {
    return finish(
      "new_turn",
      "a new prompt or a compaction started a new turn",
    );
  }
  if (state?.kind === "followed_up") {
    return finish("followed_up", "the model followed up after the result");
  }
  if (state?.kind === "interrupted") {
    return finish("interrupted", "the user interrupted the turn");
  }
  if (state?.kind === "hook_stopped") {
    // Waking it would override that hook's policy.
    return finish(
      "hook_stopped",
      `${state.hookName || "another hook"} ended the turn on purpose ` +
        "(continue: false)",
    );
  }
  if (state?.kind === "answered") {
    if (facts.turnEnded) return { action: "judge", trigger: "turn_end" };
    // A slow model is no stall (quiet counts beyond its request timeout),
    // nor a turn whose prompt line is still on its way (2.1.145 under load).
    let quietLimit = limits.idleMs;
    if (facts.requestOpen) quietLimit = Math.max(quietLimit, limits.requestMs);
    if (state.openerPending) quietLimit = Math.max(quietLimit, limits.graceMs);
    if (!state.callsPending && facts.quietMs >= quietLimit) {
      return { action: "judge", trigger: "idle" };
    }
  }
  if (facts.elapsedMs >= limits.maxMs) {
    return finish("deadline", "the watch deadline passed");
  }
  if (!facts.seen && facts.elapsedMs >= limits.graceMs) {
    return finish(
      "not_found",
      "the call never appeared in the transcript's current turn",
    );
  }
  return { action: "wait" };
}

/** The step of a watcher whose session has a newer watcher. */
export const SUPERSEDED = Object.freeze(
  {
    action: "finish",
    outcome: "superseded",
    reason: "a newer tool call of this session is watched",
  } as const,
);

function finish(outcome: WatchOutcome, reason: string): WatchStep {
  return { action: "finish", outcome, reason };
}
