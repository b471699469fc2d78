/**
 * Stall detection for the current turn of a live session: scan the tail,
 * classify, account for transcript lag, and number the lines to report.
 *
 * @module
 */

import { classifyTurn, type StallSignature } from "./classify.ts";
import { provesFollowUp } from "./follow_up_proof.ts";
import type { BackgroundTask } from "./background_tasks.ts";
import { syncReader } from "../transcript/line_reader.ts";
import {
  openRegularFile,
  scanCurrentTurn,
  type TurnScan,
} from "../transcript/tail_scan.ts";
import { importLazily } from "../shared/lazy_import.ts";

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
  /** Milliseconds spent waiting for a lagging transcript. */
  waitedMs: number;
  /** The turn ended on Claude Code's synthetic API-error entry. */
  endedOnApiError: boolean;
}

/** Tuning and clock for {@link detectStalls}. */
export interface DetectOptions {
  /** Total time to wait for a lagging transcript to grow; 0 disables. */
  lagWaitMs: number;
  /** Interval between size checks while waiting. */
  lagPollMs?: number;
  /** Bytes the tail scan may read; see `scanCurrentTurn`. */
  budgetBytes?: number;
  /** Sleeps; a parameter so tests can avoid real waiting. */
  sleep: (ms: number) => Promise<void>;
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
}

const DEFAULT_LAG_POLL_MS = 20;

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
    ...(options.budgetBytes === undefined
      ? {}
      : { budgetBytes: options.budgetBytes }),
  };
  let scan = await scanCurrentTurn(path, scanOptions);
  if (scan === null) return noEvidence(path, "the transcript does not exist");
  const context = { backgroundTasks: input.backgroundTasks };
  let verdict = classifyTurn(scan.entries, context);
  let waitedMs = 0;

  if (verdict.signatures.length > 0) {
    if (provesFollowUp(input.lastAssistantMessage, scan.entries)) {
      return {
        signatures: [],
        reason: "last_assistant_message shows a follow-up the transcript " +
          "does not have yet (transcript lag)",
        path,
        scan,
        waitedMs,
        endedOnApiError: verdict.endedOnApiError === true,
      };
    }
  }
  // Without last_assistant_message, give a lagging transcript a moment.
  const poll = options.lagPollMs ?? DEFAULT_LAG_POLL_MS;
  while (
    verdict.signatures.length > 0 && input.lastAssistantMessage === null &&
    waitedMs < options.lagWaitMs
  ) {
    const step = Math.min(poll, options.lagWaitMs - waitedMs);
    await options.sleep(step);
    waitedMs += step;
    const size = await sizeOf(path);
    // Gone while we waited: no evidence left (and no lines to point at).
    if (size === null) return noEvidence(path, "the transcript disappeared");
    if (size === scan.fileSize) continue;
    scan = await scanCurrentTurn(path, scanOptions);
    if (scan === null) return noEvidence(path, "the transcript disappeared");
    verdict = classifyTurn(scan.entries, context);
  }
  const endedOnApiError = verdict.endedOnApiError === true;
  if (verdict.signatures.length === 0) {
    return {
      signatures: [],
      reason: verdict.reason,
      path,
      scan,
      waitedMs,
      endedOnApiError,
    };
  }
  return {
    signatures: await withLineNumbers(path, verdict.signatures),
    reason: verdict.reason,
    path,
    scan,
    waitedMs,
    endedOnApiError,
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
  const file = await openRegularFile(path);
  if (!file) return signatures;
  try {
    const { lineNumbersAt } = await importLazily<
      typeof import("../transcript/line_count.ts")
    >(
      "../transcript/line_count.ts",
      import.meta.url,
    );
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
  };
}
