/**
 * The watchdog's waiting loop: cheap checks on a timer, a tail scan only
 * when the transcript changed size, until the policy says to finish or to
 * judge the turn.
 *
 * Idle cost per tick: one `stat` of the transcript and one read of the
 * session's small marker file.
 *
 * @module
 */

import type { Entry } from "../transcript/entry.ts";
import { scanCurrentTurn } from "../transcript/tail_scan.ts";
import { turnEndAfter } from "../transcript/turn_end_marker.ts";
import { type CallState, callState } from "./watch_state.ts";
import {
  nextWatchStep,
  type WatchLimits,
  type WatchOutcome,
} from "./watch_step.ts";

/** What the loop needs: the call, the limits, and its clock and probes. */
export interface WatchLoopOptions {
  transcriptPath: string;
  toolUseId: string;
  /** The payload's `prompt_id`, to delimit the turn like the Stop hook. */
  promptId: string | null;
  limits: WatchLimits;
  /** Milliseconds since the epoch. */
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Whether a newer watcher of the session took over. */
  superseded(): Promise<boolean>;
  /** Called once, after the first look at the transcript. */
  started?(state: CallState | null): Promise<void>;
}

/** How the loop ended. */
export type WatchLoopResult =
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
 * Watches the transcript until the watched call is followed up, superseded,
 * or its turn must be judged. Requires `--allow-read`.
 *
 * @throws {TranscriptError} When the transcript is not a readable file.
 */
export async function watchTranscript(
  options: WatchLoopOptions,
): Promise<WatchLoopResult> {
  const { transcriptPath: path, limits } = options;
  const start = options.now();
  let size: number | null | undefined; // undefined: never looked
  let lastChange = start;
  let turn: Entry[] = [];
  let state: CallState | null = null;
  let turnEnded = false;
  let seen = false;
  for (let tick = 0;; tick++) {
    const current = await sizeOf(path);
    if (current !== size) {
      lastChange = options.now();
      const scan = current === null ? null : await scanCurrentTurn(path, {
        promptId: options.promptId,
        includeSidechains: false,
      });
      // Everything below describes the file as this scan saw it.
      size = scan?.fileSize ?? null;
      turn = scan?.entries ?? [];
      state = scan ? callState(turn, options.toolUseId) : null;
      turnEnded = state?.kind === "answered" && scan !== null &&
        await turnEndAfter(path, state.resultOffset, scan.fileSize);
      if (state !== null && state.kind !== "absent") seen = true;
    }
    if (tick === 0) await options.started?.(state);
    const now = options.now();
    const step = nextWatchStep({
      state,
      turnEnded,
      seen,
      superseded: await options.superseded(),
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
        turn,
        elapsedMs: now - start,
        quietMs: now - lastChange,
      };
    }
    await options.sleep(limits.tickMs);
  }
}

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return null;
  }
}
