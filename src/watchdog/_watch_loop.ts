/**
 * The watchdog's waiting loop: per tick one `stat` and one read of the
 * session's marker, a look at the appended bytes only when the transcript
 * grew (`_turn_follower.ts`), until the policy says to finish or judge. The
 * deadline is checked inside each read too.
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
  /** The payload's `prompt_id`, to delimit the turn like the Stop hook. */
  promptId: string | null;
  limits: WatchLimits;
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Whether a newer watcher of the session took over. */
  superseded(): boolean;
  /** Called once, after the first look at the transcript. */
  started?(state: CallState | null): Promise<void>;
}

/** How the loop ended. */
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
    /** The current turn at the moment of judgement. */
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
    // Between two looks at the transcript, the marker is read more often:
    // a superseded watcher (parallel calls start one each) leaves at once.
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
 * yet: Claude Code writes an `api-request` line when it sends one, then the
 * reply (an assistant line, its API-error entry, a retry note, the turn's
 * end). The line bypasses the write queue, so it can land ahead of the result
 * (2.1.332, one run in three): ahead, the times on the lines decide.
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
  // The line landed ahead of the result: go by the times.
  const sent = marks.requestTime;
  const from = turn.findIndex((e) => e.offset === resultOffset);
  if (sent === null || from < 0) return false;
  return turn.slice(from).every((e) => e.time !== undefined && e.time <= sent);
}
