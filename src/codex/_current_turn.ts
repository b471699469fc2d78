/**
 * The current turn of a Codex rollout, read from its end for the Stop hook:
 * from one `turn_id`'s `task_started` on, within `tail_scan.ts`'s budgets.
 *
 * @module
 */

import { type Entry, entryWeight } from "../transcript/entry.ts";
import { clipMiddle, describe, TranscriptError } from "../shared/errors.ts";
import { readLinesBackward, syncReader } from "../transcript/line_reader.ts";
import {
  DEFAULT_SCAN_BUDGETS,
  openTranscript,
  SCAN_LINE_OPTIONS,
  type ScanBudgetName,
  type ScanBudgets,
} from "../transcript/tail_scan.ts";
import { rolloutLineRecords } from "./_rollout_lines.ts";
import { markerEntry, type RolloutRecord } from "./_rollout_records.ts";

/** Options of {@link scanCodexTurn}. */
export interface CodexScanOptions {
  /** The payload's `turn_id`; null: the newest turn. */
  turnId: string | null;
  budgets?: Partial<ScanBudgets>;
  /** Asked before each chunk: true ends the scan there. */
  stopWhen?: () => boolean;
  chunkBytes?: number;
}

/** The current turn as read from the end of a rollout (fields as `TurnScan`'s). */
export interface CodexTurnScan {
  /** Markers as `turn_end` / `interrupt` entries. */
  entries: Entry[];
  /** The turn id of the `task_started` found (else the one asked for). */
  turnId: string | null;
  reachedStart: boolean;
  startOffset: number | null;
  endOffset: number;
  /** Another turn's `task_started` came first, reading back (a turn the file lacks). */
  otherTurn: boolean;
  budget: ScanBudgetName | null;
  /** The turn's `task_complete` or `turn_aborted` is on file. */
  endedOnFile: boolean;
  fileSize: number;
  bytesScanned: number;
  stopped: boolean;
}

const MAX_PATH_CHARS = 200;

/**
 * Reads the current turn of the rollout at `path` (`null`: no file). Requires `--allow-read`.
 *
 * @throws {TranscriptError} When the path is not a regular file or cannot be read.
 */
export async function scanCodexTurn(
  path: string,
  options: CodexScanOptions,
): Promise<CodexTurnScan | null> {
  const file = openTranscript(path);
  if (!file) return null;
  try {
    const fileSize = file.statSync().size;
    const budgets = { ...DEFAULT_SCAN_BUDGETS, ...options.budgets };
    const collector = new TurnCollector(options.turnId);
    let bytesScanned = 0;
    let endOffset = -1;
    let lines = 0;
    let budget: ScanBudgetName | null = null;
    const reader = readLinesBackward(syncReader(file), fileSize, {
      ...SCAN_LINE_OPTIONS,
      ...(options.chunkBytes ? { chunkBytes: options.chunkBytes } : {}),
      budgetBytes: budgets.bytes,
      maxLineIds: budgets.entries,
      ...(options.stopWhen ? { stopWhen: options.stopWhen } : {}),
    });
    for await (const raw of reader) {
      bytesScanned = fileSize - raw.offset;
      if (endOffset < 0) endOffset = raw.offset + raw.length + 1;
      const records = rolloutLineRecords(raw);
      for (let i = records.length - 1; i >= 0 && !collector.done; i--) {
        collector.offer(records[i] as RolloutRecord);
      }
      if (collector.done) break;
      if (++lines >= budgets.lines) budget = "lines";
      else if (collector.weight >= budgets.entries) budget = "entries";
      if (budget !== null) break;
    }
    const ranOut = !collector.done && budget === null;
    const stopped = ranOut && options.stopWhen?.() === true;
    if (ranOut && !stopped && fileSize > budgets.bytes) {
      budget = "bytes";
      bytesScanned = budgets.bytes;
    }
    return {
      entries: collector.entries(),
      turnId: collector.turnId,
      reachedStart: collector.started,
      startOffset: collector.startOffset,
      endOffset: endOffset < 0 ? fileSize : endOffset,
      otherTurn: collector.otherTurn,
      budget,
      endedOnFile: collector.ended,
      fileSize,
      bytesScanned,
      stopped,
    };
  } catch (error) {
    throw new TranscriptError(
      `Cannot read rollout "${clipMiddle(path, MAX_PATH_CHARS)}": ${
        describe(error)
      }`,
    );
  } finally {
    file.close();
  }
}

/** Collects one turn's records, newest first, until its `task_started`. */
class TurnCollector {
  #newestFirst: Entry[] = [];
  weight = 0;
  done = false;
  started = false;
  startOffset: number | null = null;
  otherTurn = false;
  ended = false;
  turnId: string | null;

  constructor(turnId: string | null) {
    this.turnId = turnId;
  }

  offer(record: RolloutRecord): void {
    const stamp = record.kind === "entry"
      ? record.turnId
      : record.turnId || null;
    // Not mine: stamped with another turn's id.
    const mine = stamp === null || this.turnId === null ||
      stamp === this.turnId;
    if (record.kind === "turn_started") {
      this.done = true;
      if (mine) {
        this.started = true;
        this.startOffset = record.offset;
        if (this.turnId === null && record.turnId !== "") {
          this.turnId = record.turnId;
        }
      } else {
        this.otherTurn = true;
      }
      return;
    }
    if (!mine) return;
    if (record.kind !== "entry") this.ended = true;
    this.#keep(record.kind === "entry" ? record.entry : markerEntry(record));
  }

  #keep(entry: Entry): void {
    this.#newestFirst.push(entry);
    this.weight += entryWeight(entry);
  }

  entries(): Entry[] {
    return this.#newestFirst.slice().reverse();
  }
}
