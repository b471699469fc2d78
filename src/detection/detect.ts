/**
 * Stall detection for a live session's current turn, transcript lag waited out.
 *
 * @module
 */

import {
  classifyTurn,
  type StallSignature,
  type TurnVerdict,
} from "./classify.ts";
import {
  type BehindReason,
  behindReason,
  provesFollowUp,
} from "./_lag_evidence.ts";
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
interface ExhaustedBudget {
  /** See the budgets table in docs/detection.md. */
  name: ScanBudgetName | "signatures" | "background_tasks" | "lag_wait";
  limit: number;
}

/** What detection found, with the facts behind it. */
export interface Detection {
  /** With 1-based line numbers, sorted by line. */
  signatures: StallSignature[];
  reason: string;
  /** `null` when the payload named no file. */
  path: string | null;
  scan: TurnScan | null;
  /** Spent waiting for a lagging transcript; 0 exactly when no wait was due. */
  waitedMs: number;
  /** What showed the file to be behind its Stop. */
  waitedFor?: BehindReason;
  /** The turn ended on Claude Code's synthetic API-error entry. */
  endedOnApiError: boolean;
  /** One no nudge can fix (the stop is allowed). */
  endedOnUnfixableError?: true;
  /** A budget kept the turn from being judged whole, and no stall shows: allowed. */
  exhausted: ExhaustedBudget | null;
}

interface DetectOptions {
  /** How long after the first scan a lagging transcript may grow (0: none). */
  lagWaitMs: number;
  /** Interval between size checks while waiting. */
  lagPollMs?: number;
  budgets?: Partial<ScanBudgets>;
  sleep: (ms: number) => Promise<void>;
  /** The lag wait's clock, in ms; without it only sleeping counts. */
  now?: () => number;
  /** Claude Code's by default. */
  reader?: TranscriptReader;
}

/** What detection needs of a door's payload (no hook contract here). */
export interface DetectInput {
  /** The file whose current turn is judged, if any. */
  scanPath: string | null;
  promptId: string | null;
  /** The scanned file is a subagent's (sidechain) transcript. */
  isSubagent: boolean;
  /** `null` when the payload has no such field. */
  lastAssistantMessage: string | null;
  backgroundTasks: BackgroundTask[];
  /** The payload listed more background tasks than the budget. */
  backgroundTasksOverBudget?: boolean;
  /** See `LagEvidence.payloadSendsLastMessage`. */
  payloadSendsLastMessage?: boolean;
  /** The subagent judged still runs (`ClassifyContext.callsRunning`). */
  subagentRunning?: boolean;
}

const DEFAULT_LAG_POLL_MS = 20;

/** At most this many stalls are nudged at once; more is no real session's: allowed. */
export const MAX_SIGNATURES = 100;

/**
 * Whether the payload's current turn ended in a silent stall (a lagging
 * transcript waited for, a bounded time). Requires `--allow-read`.
 *
 * @example
 * ```ts
 * const detection = await detectStalls(input, {
 *   lagWaitMs: 500,
 *   sleep: (ms) => new Promise((done) => setTimeout(done, ms)),
 *   reader: claudeCodeReader,
 * });
 * if (detection.signatures.length > 0) console.log(detection.reason);
 * ```
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
  const behind = ({ scan, verdict, proven }: Look) => {
    const kinds = verdict?.signatures.map((s) => s.kind) ?? [];
    return proven ? null : behindReason(scan, payload, kinds);
  };

  const waitStart = clock.now();
  const deadline = waitStart + options.lagWaitMs;
  const poll = options.lagPollMs ?? DEFAULT_LAG_POLL_MS;
  let now = await look();
  // A file behind the Stop is waited for (bounded: a real stall looks alike).
  const everOnFile = now.scan !== null;
  const firstReason = behind(now);
  const waited = firstReason !== null && clock.now() + now.ms < deadline;
  let seenSize = now.scan?.fileSize ?? null;
  // Where the appended lines were read up to: each poll goes on from there.
  let checkedTo = now.scan?.endOffset ?? 0;
  const appended = {
    includeSidechains: input.isSubagent,
    // A file that keeps growing by gigabytes cannot keep it reading.
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
      // Only metadata appended: the turn is not read again for it.
      const grew = await reader.appended(path, checkedTo, appended);
      if (grew !== null && !grew.changed) {
        checkedTo = grew.to;
        continue;
      }
    }
    if (damaged || clock.now() + now.ms < deadline) {
      // Let go of the last look first: two copies of a long turn at the peak.
      now = { scan: null, verdict: null, proven: false, ms: now.ms };
      now = await look();
      checkedTo = now.scan?.endOffset ?? checkedTo;
    }
    if (damaged) break;
  }
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
      exhausted: waited ? { name: "lag_wait", limit: options.lagWaitMs } : null,
    };
  }
  const judged = { path, scan, waitedMs, ...waitedFor, exhausted: null };
  if (proven) {
    return {
      ...judged,
      signatures: [],
      reason: "last_assistant_message shows a follow-up the transcript " +
        "does not have yet (transcript lag)",
      endedOnApiError: verdict.endedOnApiError === true,
    };
  }
  const exhausted = exhaustedBudget(verdict.signatures, scan, input, options);
  if (exhausted !== null) {
    return {
      ...judged,
      signatures: [],
      reason: "the " + describeBudget(exhausted) +
        " budget ran out before the turn could be judged",
      endedOnApiError: false,
      exhausted,
    };
  }
  return {
    ...judged,
    signatures: verdict.signatures.length === 0
      ? []
      : await withLineNumbers(path, verdict.signatures),
    reason: verdict.reason,
    endedOnApiError: verdict.endedOnApiError === true,
    // Only a turn without stalls ends on an error no nudge can fix.
    ...(verdict.endedOnUnfixableError ? { endedOnUnfixableError: true } : {}),
  };
}

/** One look at the file: the scan, its verdict, and the payload's proof. */
interface Look {
  scan: TurnScan | null;
  verdict: TurnVerdict | null;
  /** `last_assistant_message` proves a follow-up the file lacks. */
  proven: boolean;
  ms: number;
}

/** The budget that leaves the verdict unproven; a scan budget only when no stall shows (one found is real). */
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

/** A budget in words. */
export function describeBudget(budget: ExhaustedBudget): string {
  if (budget.name === "bytes") {
    return `${budget.limit / (1024 * 1024)} MiB read`;
  }
  if (budget.name === "lag_wait") return `lag wait of ${budget.limit} ms`;
  return `${budget.limit} ${BUDGET_UNITS[budget.name]}`;
}

/** The unit of each budget counted in things. */
const BUDGET_UNITS = {
  lines: "lines",
  entries: "entries",
  signatures: "stalls",
  background_tasks: "background tasks",
} as const;

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

/** Fills in signatures' 1-based line numbers from their offsets in `path`. Requires `--allow-read`. */
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
