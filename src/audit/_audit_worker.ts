/// <reference no-default-lib="true" />
/// <reference lib="deno.worker" />
/**
 * A worker of the audit pool: `ready` once loaded, then per file `progress`
 * and `done`; it inherits its parent's `--allow-read`.
 *
 * @module
 */

import { auditFile, type FileAudit } from "./_audit.ts";
import { HISTORY_READER_OPTIONS } from "../detection/history_turns.ts";
import type { TranscriptFile } from "../transcript/transcript_files.ts";

/** What the pool sends. */
export interface AuditRequest {
  index: number;
  file: TranscriptFile;
}

/** What a worker posts. */
export type AuditWorkerMessage =
  | { type: "ready" }
  | { type: "progress"; bytes: number }
  | { type: "done"; index: number; audit: FileAudit; bytes: number };

/** Progress is posted in steps of this many bytes, not per read. */
const PROGRESS_STEP_BYTES = 16 * 1024 * 1024;

const buffer = new Uint8Array(HISTORY_READER_OPTIONS.chunkBytes);

function post(message: AuditWorkerMessage): void {
  self.postMessage(message);
}

self.onmessage = async (event: MessageEvent<AuditRequest>) => {
  const { index, file } = event.data;
  let unreported = 0;
  const onRead = (bytes: number) => {
    unreported += bytes;
    if (unreported >= PROGRESS_STEP_BYTES) {
      post({ type: "progress", bytes: unreported });
      unreported = 0;
    }
  };
  const audit = await auditFile(file, { buffer, onRead });
  post({ type: "done", index, audit, bytes: unreported });
};

post({ type: "ready" });
