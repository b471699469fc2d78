/**
 * The watchdog's waiting loop: per tick a `stat`, a marker read and a look at
 * what was appended, until the policy says to finish or judge.
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";
import {
  formatRelease,
  type Release,
  releaseOf,
  supports,
} from "../claude_client/release.ts";
import {
  type FollowedMarks,
  MAX_TURN_ENTRIES,
  TurnFollower,
} from "./_turn_follower.ts";
import { type CallState, callState } from "./_watch_state.ts";
import {
  nextWatchStep,
  SUPERSEDED,
  type WatchLimits,
  type WatchOutcome,
} from "./_watch_step.ts";

/** What the loop needs: the call, the limits, and its clock and probes. */
interface WatchLoopOptions {
  transcriptPath: string;
  toolUseId: string;
  promptId: string | null;
  limits: WatchLimits;
  now(): number;
  sleep(ms: number): Promise<void>;
  superseded(): boolean;
  /** Called once, after the first look. */
  started?(state: CallState | null): Promise<void>;
}

type WatchLoopResult =
  | {
    action: "finish";
    outcome: WatchOutcome;
    reason: string;
    elapsedMs: number;
  }
  | {
    action: "judge";
    trigger: "turn_end" | "idle";
    turn: Entry[];
    elapsedMs: number;
    /** Time since the transcript last changed size. */
    quietMs: number;
  };

/**
 * Watches until the call is followed up, superseded, or its turn must be judged. Requires `--allow-read`.
 *
 * @throws {TranscriptError} When the transcript is not a readable file.
 */
export async function watchTranscript(
  options: WatchLoopOptions,
): Promise<WatchLoopResult> {
  const { limits } = options;
  const start = options.now();
  const pastDeadline = () => options.now() - start >= limits.maxMs;
  const follower = new TurnFollower(options.transcriptPath, options);
  let lastChange = start;
  let seen = false;
  for (let tick = 0;; tick++) {
    if (await follower.look(pastDeadline)) lastChange = options.now();
    if (follower.overflow) {
      // Fail open: a turn this long is not judged on part of its entries.
      return {
        action: "finish",
        outcome: "too_large",
        reason: `the turn has more than ${MAX_TURN_ENTRIES} entries`,
        elapsedMs: options.now() - start,
      };
    }
    const turn = follower.entries;
    const state: CallState | null = !follower.exists
      ? null
      : follower.newTurn
      ? { kind: "absent" }
      : callState(turn, options.toolUseId, follower.opener);
    if (state !== null && state.kind !== "absent") seen = true;
    if (tick === 0) await options.started?.(state);
    const marks = follower.marks;
    const resultAt = state?.kind === "answered" ? state.resultOffset : -1;
    const now = options.now();
    const step = nextWatchStep({
      state,
      unwakeableRelease: unwakeable(turn),
      turnEnded: resultAt >= 0 && marks.turnEnd > resultAt,
      requestOpen: resultAt >= 0 && requestOpen(marks, turn, resultAt),
      seen,
      superseded: options.superseded(),
      elapsedMs: now - start,
      quietMs: now - lastChange,
      limits,
    });
    if (step.action === "finish") {
      return { ...step, elapsedMs: now - start };
    }
    if (step.action === "judge") {
      return {
        action: "judge",
        trigger: step.trigger,
        turn: [...turn],
        elapsedMs: now - start,
        quietMs: now - lastChange,
      };
    }
    // Between two looks the marker is read more often: a superseded watcher leaves at once.
    for (let slept = 0; slept < limits.tickMs; slept += limits.pollMs) {
      await options.sleep(Math.min(limits.pollMs, limits.tickMs - slept));
      if (options.superseded()) {
        return { ...SUPERSEDED, elapsedMs: options.now() - start };
      }
    }
  }
}

/** The turn's release when known and unable to deliver a wake-up, else null. */
function unwakeable(turn: readonly Entry[]): string | null {
  const release = releaseOf(turn);
  return supports(release, "async_rewake") === false
    ? formatRelease(release as Release)
    : null;
}

/**
 * Whether a model request started after the result and nothing came of it
 * yet. Its `api-request` line bypasses the write queue and can land ahead of
 * the result (2.1.332, one run in three): then the lines' times decide.
 */
export function requestOpen(
  marks: Readonly<FollowedMarks>,
  turn: readonly Entry[],
  resultOffset: number,
): boolean {
  if (marks.request <= Math.max(marks.turnEnd, marks.stopSummary)) {
    return false;
  }
  if (marks.request > resultOffset) {
    return marks.request > (turn.at(-1)?.offset ?? -1);
  }
  const sent = marks.requestTime;
  const from = turn.findIndex((e) => e.offset === resultOffset);
  if (sent === null || from < 0) return false;
  return turn.slice(from).every((e) => e.time !== undefined && e.time <= sent);
}
