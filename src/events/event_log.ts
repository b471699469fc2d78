/**
 * The event sink: one JSON object per hook decision, appended to a JSONL
 * file inside `.claude`.
 *
 * Each line goes out in one `write` on a file opened for appending, so
 * concurrent hooks never interleave inside a line. The file rotates at a
 * size limit (one previous file kept), so it cannot fill the disk.
 *
 * @module
 */

import { basename, dirname, joinPath, NATIVE } from "../shared/paths.ts";
import { assertFileConfined, ensureConfinedDir } from "../confined/confine.ts";
import { withFileLock } from "../confined/file_lock.ts";

/** The seed's six decision events, plus the watchdog's own. */
export type EventName =
  | "stall_detected"
  | "kill_switch_active"
  | "cooldown_skipped"
  | "retry_cap_hit"
  | "recovery_dispatched"
  | "healthy_stop"
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

/**
 * Serialises an event as one JSON line with keys sorted at every level, so
 * lines diff and grep well.
 */
export function formatEvent(record: EventRecord): string {
  const flat: Record<string, unknown> = {
    ...record.data,
    event: record.event,
    session_id: record.sessionId,
    ts: record.ts,
  };
  return JSON.stringify(sortKeys(flat)) + "\n";
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return sorted;
}

/** Where and how big the log may be. */
export interface EventLogOptions {
  cwd: string;
  /** The log path, relative to `cwd` (must be inside `.claude`). */
  path: string;
  /** Rotate when the file would grow past this many bytes. */
  maxBytes: number;
  sleep: (ms: number) => Promise<void>;
}

const encoder = new TextEncoder();

/**
 * Appends events to the log. Requires write access to the log's folder.
 *
 * @throws {ConfinementError} When the path escapes `.claude`.
 */
export async function appendEvents(
  records: readonly EventRecord[],
  options: EventLogOptions,
): Promise<void> {
  if (records.length === 0) return;
  const dir = await ensureConfinedDir(
    options.cwd,
    dirname(options.path),
    "event log folder",
  );
  const path = joinPath(NATIVE, dir, basename(options.path));
  await assertFileConfined(options.cwd, path, "event log");
  for (const record of records) {
    const bytes = encoder.encode(formatEvent(record));
    await rotateIfFull(path, bytes.length, options);
    const file = Deno.openSync(path, { append: true, create: true });
    try {
      // One write per line: O_APPEND keeps whole lines from interleaving.
      let written = file.writeSync(bytes);
      while (written < bytes.length) {
        written += file.writeSync(bytes.subarray(written));
      }
    } finally {
      file.close();
    }
  }
}

async function rotateIfFull(
  path: string,
  incoming: number,
  options: EventLogOptions,
): Promise<void> {
  const size = await fileSize(path);
  if (size + incoming <= options.maxBytes) return;
  // Rotate under a lock so two hooks do not rotate twice in a row.
  await withFileLock(
    `${path}.lock`,
    { timeoutMs: 2000, sleep: options.sleep },
    async () => {
      if ((await fileSize(path)) + incoming <= options.maxBytes) return;
      await assertFileConfined(options.cwd, `${path}.1`, "rotated event log");
      await Deno.rename(path, `${path}.1`).catch((error) => {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      });
    },
  );
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}
