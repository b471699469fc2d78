/**
 * Stall detection for the current turn of a live session: scan the tail,
 * classify, account for transcript lag, and number the lines to report.
 *
 * @module
 */

import {
  classifyTurn,
  type StallSignature,
  type TurnVerdict,
} from "./classify.ts";
import { provesFollowUp } from "./_lag_evidence.ts";
import { type BehindReason, behindReason } from "./_lag_evidence.ts";
import {
  type BackgroundTask,
  MAX_BACKGROUND_TASKS,
} from "./background_tasks.ts";
import { syncReader } from "../transcript/line_reader.ts";
import {
  claudeCodeReader,
  DEFAULT_SCAN_BUDGETS,
  openTranscript,
  type ScanBudgetName,
  type ScanBudgets,
  type TranscriptReader,
  type TurnScan,
} from "../transcript/tail_scan.ts";

/** A budget that cut a decision short: the stop is allowed unjudged. */
export interface ExhaustedBudget {
  /** Which budget (see the budgets table in docs/detection.md). */
  name: ScanBudgetName | "signatures" | "background_tasks" | "lag_wait";
  /** Its limit, in its own unit. */
  limit: number;
}

/** What detection found, with the facts behind it. */
export interface Detection {
  /** Signatures with 1-based line numbers, sorted by line. */
  signatures: StallSignature[];
  /** Why the verdict is what it is, in words. */
  reason: string;
  /** The file judged, or `null` when the payload named none. */
  path: string | null;
  /** The scan behind the verdict, or `null` when there was no file. */
  scan: TurnScan | null;
  /**
   * Milliseconds spent waiting for a lagging transcript; 0 when no wait
   * was due (see `_lag_evidence.ts`).
   */
  waitedMs: number;
  /**
   * What showed the file to be behind its Stop when a wait was due (see
   * `_lag_evidence.ts`); absent when none was.
   */
  waitedFor?: BehindReason;
  /** The turn ended on Claude Code's synthetic API-error entry. */
  endedOnApiError: boolean;
  /** That API error is one no nudge can fix (the stop is allowed). */
  endedOnUnfixableError?: true;
  /**
   * Set when a budget kept detection from judging the whole turn and what
   * it did read proves no stall: the stop is allowed and the user told.
   */
  exhausted: ExhaustedBudget | null;
}

/** Tuning and clock for {@link detectStalls}. */
export interface DetectOptions {
  /**
   * How long after the first scan a lagging transcript may still grow;
   * rescans count against it. 0 disables.
   */
  lagWaitMs: number;
  /** Interval between size checks while waiting. */
  lagPollMs?: number;
  /** Budgets of the tail scan; see `scanCurrentTurn`. */
  budgets?: Partial<ScanBudgets>;
  /** Sleeps; a parameter so tests can avoid real waiting. */
  sleep: (ms: number) => Promise<void>;
  /**
   * Milliseconds on a clock the lag wait's deadline is kept by. Without it,
   * only sleeping counts (tests with a fake `sleep`).
   */
  now?: () => number;
  /** The client's transcript reader; Claude Code's by default. */
  reader?: TranscriptReader;
}

/**
 * What detection needs to know of the hook payload (the hook's parsed
 * payload satisfies it), so detection does not depend on the hook contract.
 */
export interface DetectInput {
  /** The file whose current turn is judged; `null` when there is none. */
  scanPath: string | null;
  promptId: string | null;
  /** True when the scanned file is a subagent's (sidechain) transcript. */
  isSubagent: boolean;
  /** `null` when the payload has no such field. */
  lastAssistantMessage: string | null;
  backgroundTasks: BackgroundTask[];
  /** True when the payload listed more background tasks than the budget. */
  backgroundTasksOverBudget?: boolean;
  /** See `LagEvidence.payloadSendsLastMessage`; absent = false. */
  payloadSendsLastMessage?: boolean;
  /**
   * The subagent judged is still running (see `ClassifyContext.callsRunning`);
   * absent = false.
   */
  subagentRunning?: boolean;
}

const DEFAULT_LAG_POLL_MS = 20;

/**
 * At most this many stalls are reported and nudged at once; a turn with
 * more is no real session's, and is allowed unjudged.
 */
export const MAX_SIGNATURES = 100;

/**
 * Decides whether the payload's current turn ended in a silent stall.
 *
 * Requires `--allow-read`.
 *
 * @throws {TranscriptError} When the transcript exists but cannot be read.
 */
export async function detectStalls(
  input: DetectInput,
  options: DetectOptions,
): Promise<Detection> {
  const path = input.scanPath;
  if (path === null) {
    return noEvidence(path, "the payload names no subagent transcript");
  }
  const scanOptions = {
    promptId: input.promptId,
    includeSidechains: input.isSubagent,
    ...(options.budgets === undefined ? {} : { budgets: options.budgets }),
  };
  const context = {
    backgroundTasks: input.backgroundTasks,
    callsRunning: input.subagentRunning === true,
    subagent: input.isSubagent,
  };
  const payload = {
    promptId: input.promptId,
    lastAssistantMessage: input.lastAssistantMessage,
    payloadSendsLastMessage: input.payloadSendsLastMessage === true,
  };
  const clock = lagClock(options);
  const reader = options.reader ?? claudeCodeReader;
  /** Scans and judges the file as it is now, and says if it looks behind. */
  const look = async (): Promise<Look> => {
    const start = clock.now();
    const scan = await reader.currentTurn(path, scanOptions);
    const ms = clock.now() - start;
    if (scan === null) return { scan, verdict: null, proven: false, ms };
    const verdict = classifyTurn(scan.entries, context);
    const proven = verdict.signatures.length > 0 &&
      provesFollowUp(input.lastAssistantMessage, scan.entries);
    return { scan, verdict, proven, ms };
  };
  const behind = ({ scan, verdict, proven }: Look) =>
    proven ? null : behindReason(
      scan,
      payload,
      verdict?.signatures.map((s) => s.kind) ?? [],
    );

  const waitStart = clock.now();
  const deadline = waitStart + options.lagWaitMs;
  const poll = options.lagPollMs ?? DEFAULT_LAG_POLL_MS;
  let now = await look();
  // Stop fires after the turn is over, so a file that cannot be the whole
  // turn is behind the Stop: wait for it within lag_wait_ms, looking again
  // when it grows (only when a look as long as the last fits before the
  // deadline, so a file that keeps growing cannot keep the hook reading),
  // then judge what is on file: the evidence can also be a real stall's
  // shape (a call whose result never came), or a release that writes its
  // lines differently. Only a file that never appeared is left unjudged.
  const everOnFile = now.scan !== null;
  const firstReason = behind(now);
  const waited = firstReason !== null && clock.now() + now.ms < deadline;
  let seenSize = now.scan?.fileSize ?? null;
  // Where the appended lines were read up to: each poll goes on from there.
  let checkedTo = now.scan?.endOffset ?? 0;
  const appended = {
    includeSidechains: input.isSubagent,
    // The look's own byte budget, and the wait's deadline: a file that
    // keeps growing, or one append of gigabytes, cannot keep it reading.
    maxBytes: { ...DEFAULT_SCAN_BUDGETS, ...options.budgets }.bytes,
    stopWhen: () => clock.now() >= deadline,
  };
  while (behind(now) !== null && clock.now() + now.ms < deadline) {
    await clock.sleep(Math.min(poll, deadline - clock.now()));
    const size = await sizeOf(path);
    if (size === seenSize) continue;
    const before = now.scan?.fileSize ?? null;
    // A file that shrinks or vanishes is not catching up: judge what is left.
    const damaged = before !== null && (size === null || size < before);
    seenSize = size;
    if (!damaged && now.scan !== null) {
      // Only metadata appended (progress lines, snapshots): nothing to look
      // again for, and a long turn is not read again for it.
      const grew = await reader.appended(path, checkedTo, appended);
      if (grew !== null && !grew.changed) {
        checkedTo = grew.to;
        continue;
      }
    }
    if (damaged || clock.now() + now.ms < deadline) {
      // Let go of the last look's entries first: a long turn read twice
      // over would hold two copies at the peak.
      now = { scan: null, verdict: null, proven: false, ms: now.ms };
      now = await look();
      checkedTo = now.scan?.endOffset ?? checkedTo;
    }
    if (damaged) break;
  }
  // 0 exactly when no wait was due (the event log tells the two apart).
  const waitedMs = waited ? Math.round(clock.now() - waitStart) : 0;
  const waitedFor = waited && firstReason !== null
    ? { waitedFor: firstReason }
    : {};
  const { scan, verdict, proven } = now;
  if (scan === null || verdict === null) {
    if (everOnFile) return noEvidence(path, "the transcript disappeared");
    return {
      ...noEvidence(path, "the transcript does not exist"),
      waitedMs,
      ...waitedFor,
      // It never appeared within the wait: say so, as for any budget.
      exhausted: waited ? lagWaitBudget(options) : null,
    };
  }
  if (proven) {
    return {
      signatures: [],
      reason: "last_assistant_message shows a follow-up the transcript " +
        "does not have yet (transcript lag)",
      path,
      scan,
      waitedMs,
      ...waitedFor,
      endedOnApiError: verdict.endedOnApiError === true,
      exhausted: null,
    };
  }
  const exhausted = exhaustedBudget(verdict.signatures, scan, input, options);
  if (exhausted !== null) {
    return {
      signatures: [],
      reason: `the ${
        describeBudget(exhausted)
      } budget ran out before the turn could be judged`,
      path,
      scan,
      waitedMs,
      ...waitedFor,
      endedOnApiError: false,
      exhausted,
    };
  }
  const endedOnApiError = verdict.endedOnApiError === true;
  if (verdict.signatures.length === 0) {
    return {
      signatures: [],
      reason: verdict.reason,
      path,
      scan,
      waitedMs,
      ...waitedFor,
      endedOnApiError,
      ...(verdict.endedOnUnfixableError ? { endedOnUnfixableError: true } : {}),
      exhausted: null,
    };
  }
  return {
    signatures: await withLineNumbers(path, verdict.signatures),
    reason: verdict.reason,
    path,
    scan,
    waitedMs,
    ...waitedFor,
    endedOnApiError,
    exhausted: null,
  };
}

/** One look at the file: the scan, its verdict, and the payload's proof. */
interface Look {
  scan: TurnScan | null;
  verdict: TurnVerdict | null;
  /** `last_assistant_message` proves a follow-up the file lacks. */
  proven: boolean;
  /** How long the look took. */
  ms: number;
}

/** The lag wait as a spent budget: the file never caught up with the Stop. */
function lagWaitBudget(options: DetectOptions): ExhaustedBudget {
  return { name: "lag_wait", limit: options.lagWaitMs };
}

/**
 * Which budget, if any, leaves the verdict unproven. A stall found in the
 * newest part of a long turn is real (results follow their calls), so a
 * scan budget matters only when no stall was found there.
 */
function exhaustedBudget(
  signatures: readonly StallSignature[],
  scan: TurnScan,
  input: DetectInput,
  options: DetectOptions,
): ExhaustedBudget | null {
  if (signatures.length === 0) {
    if (scan.budget === null) return null;
    const limits = { ...DEFAULT_SCAN_BUDGETS, ...options.budgets };
    return { name: scan.budget, limit: limits[scan.budget] };
  }
  if (signatures.length > MAX_SIGNATURES) {
    return { name: "signatures", limit: MAX_SIGNATURES };
  }
  // Too many tasks to link: any of the calls might be one of them.
  if (input.backgroundTasksOverBudget === true) {
    return { name: "background_tasks", limit: MAX_BACKGROUND_TASKS };
  }
  return null;
}

/** A budget in words, for the reason and the stderr line. */
export function describeBudget(budget: ExhaustedBudget): string {
  switch (budget.name) {
    case "bytes":
      return `${budget.limit / (1024 * 1024)} MiB read`;
    case "lines":
      return `${budget.limit} lines`;
    case "entries":
      return `${budget.limit} entries`;
    case "signatures":
      return `${budget.limit} stalls`;
    case "background_tasks":
      return `${budget.limit} background tasks`;
    case "lag_wait":
      return `lag wait of ${budget.limit} ms`;
  }
}

/** The lag wait's clock: the caller's, or one that only sleeping moves. */
function lagClock(options: DetectOptions) {
  let slept = 0;
  return {
    now: options.now ?? (() => slept),
    sleep: async (ms: number) => {
      await options.sleep(ms);
      slept += ms;
    },
  };
}

/**
 * Fills in 1-based line numbers (one pass over the file up to the last
 * signature). Requires `--allow-read`.
 *
 * @param path The transcript the signatures' offsets refer to.
 * @param signatures Signatures whose `offset` is known.
 */
export async function withLineNumbers(
  path: string,
  signatures: StallSignature[],
): Promise<StallSignature[]> {
  const file = openTranscript(path);
  if (!file) return signatures;
  try {
    // Loaded lazily: only on a stall, whose lines the report numbers.
    const { lineNumbersAt } = await import("../transcript/line_count.ts");
    const numbers = await lineNumbersAt(
      syncReader(file),
      signatures.map((s) => s.offset),
    );
    return signatures.map((s) => ({
      ...s,
      line: numbers.get(s.offset) ?? s.line,
    }));
  } finally {
    file.close();
  }
}

async function sizeOf(path: string): Promise<number | null> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return null;
  }
}

function noEvidence(path: string | null, reason: string): Detection {
  return {
    signatures: [],
    reason,
    path,
    scan: null,
    waitedMs: 0,
    endedOnApiError: false,
    exhausted: null,
  };
}
