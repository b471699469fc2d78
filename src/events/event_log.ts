/**
 * The event sink: one JSON line per decision in the client's folder, each in
 * one `write` (concurrent hooks never interleave), rotated at a size limit
 * (one previous file kept).
 *
 * @module
 */

import { basename, dirname } from "../shared/paths.ts";
import type { ConfinedDir } from "../confined/confine.ts";
import {
  appendConfined,
  confinedFile,
  ensureOwnedDir,
  lstatOrNull,
  renameConfined,
} from "../confined/confined_file.ts";
import { withFileLock } from "../confined/file_lock.ts";

/** The events logged (docs/settings.md lists what each means). */
export type EventName =
  | "stall_detected"
  | "kill_switch_active"
  | "cooldown_skipped"
  | "retry_cap_hit"
  | "recovery_dispatched"
  | "healthy_stop"
  | "announced_stop"
  | "budget_exhausted"
  | "state_unavailable"
  | "state_quarantined"
  | "state_relocated"
  | "watch_started"
  | "watch_finished";

/** One event before serialisation. */
export interface EventRecord {
  event: EventName;
  sessionId: string;
  /** Seconds since the epoch. */
  ts: number;
  /** Event-specific data (signatures, counters, remaining cooldown...). */
  data: Readonly<Record<string, unknown>>;
}

/** Longest event line written, whatever `event_log.max_bytes` allows. */
export const MAX_EVENT_LINE_BYTES = 64 * 1024;

/** Ever smaller cuts, tried in turn until a line fits. */
const CUTS = [
  { items: 100, chars: 4000 },
  { items: 10, chars: 200 },
  { items: 0, chars: 40 },
];

/**
 * One JSON line, keys sorted at every level; past `maxBytes` (UTF-8, with the
 * newline) lists keep their first items, strings their start, and `"truncated": true`.
 */
export function formatEvent(
  record: EventRecord,
  maxBytes: number = MAX_EVENT_LINE_BYTES,
): string {
  const flat: Record<string, unknown> = {
    ...record.data,
    event: record.event,
    session_id: record.sessionId,
    ts: record.ts,
  };
  let line = JSON.stringify(sortKeys(flat, null)) + "\n";
  for (const cut of CUTS) {
    if (utf8Length(line, maxBytes) <= maxBytes) return line;
    line = JSON.stringify(sortKeys({ ...flat, truncated: true }, cut)) + "\n";
  }
  return line;
}

function sortKeys(
  value: unknown,
  cut: { items: number; chars: number } | null,
): unknown {
  if (typeof value === "string") {
    return cut && value.length > cut.chars
      ? `${value.slice(0, cut.chars)}…`
      : value;
  }
  if (Array.isArray(value)) {
    const kept = cut ? value.slice(0, cut.items) : value;
    return kept.map((item) => sortKeys(item, cut));
  }
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key], cut);
  }
  return sorted;
}

function utf8Length(text: string, limit: number): number {
  // Exact only when needed: most lines are far below any limit.
  return text.length * 3 <= limit ? text.length : encoder.encode(text).length;
}

/** Where the log lies (`path` relative to `cwd`, inside `clientDir`: `.claude` by default), and its size to rotate at. */
interface EventLogOptions {
  cwd: string;
  path: string;
  clientDir?: string;
  maxBytes: number;
  sleep: (ms: number) => Promise<void>;
}

const encoder = new TextEncoder();

/**
 * Whether a file's start is stall-watch's event log (empty, or a first line
 * that is one of its events): a log path naming another file (planted, or a
 * hard link) is refused, not written.
 */
function isEventLogText(head: string): boolean {
  if (head === "") return true;
  const end = head.indexOf("\n");
  // A first line longer than the head read: judge by its opening.
  if (end < 0) return head.length >= 64 * 1024 && head.startsWith('{"');
  try {
    const data = JSON.parse(head.slice(0, end));
    return typeof data === "object" && data !== null &&
      typeof data.event === "string" && typeof data.ts === "number" &&
      "session_id" in data;
  } catch {
    return false;
  }
}

/**
 * Appends events to the log. Requires write access to the log's folder.
 *
 * @throws {ConfinementError} When the path escapes the client's folder, or
 * the file is a symlink, FIFO, hard link or not stall-watch's log.
 */
export async function appendEvents(
  records: readonly EventRecord[],
  options: EventLogOptions,
): Promise<void> {
  if (records.length === 0) return;
  const dir = ensureOwnedDir(
    options.cwd,
    dirname(options.path),
    "event log folder",
    options.clientDir,
  );
  const name = basename(options.path);
  // One line never outgrows the log it goes to.
  const maxLine = Math.min(options.maxBytes, MAX_EVENT_LINE_BYTES);
  for (const record of records) {
    const bytes = encoder.encode(formatEvent(record, maxLine));
    await rotateIfFull(dir, name, bytes.length, options);
    appendConfined(dir, name, bytes, "event log", isEventLogText);
  }
}

async function rotateIfFull(
  dir: ConfinedDir,
  name: string,
  incoming: number,
  options: EventLogOptions,
): Promise<void> {
  const path = confinedFile(dir, name);
  if (fileSize(path) + incoming <= options.maxBytes) return;
  // Rotate under a lock so two hooks do not rotate twice in a row.
  await withFileLock(
    dir,
    `${name}.lock`,
    { timeoutMs: 2000, sleep: options.sleep },
    () => {
      if (fileSize(path) + incoming > options.maxBytes) {
        renameConfined(dir, name, `${name}.1`, "event log", isEventLogText);
      }
    },
  );
}

function fileSize(path: string): number {
  return lstatOrNull(path)?.size ?? 0;
}
