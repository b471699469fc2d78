/**
 * Audits many transcripts on several cores: workers take files largest
 * first; results come in the files' order. Where workers cannot start (a
 * binary compiled without the worker module), this thread audits.
 *
 * @module
 */

import { auditFiles, type AuditOptions, type FileAudit } from "./_audit.ts";
import type { AuditRequest, AuditWorkerMessage } from "./_audit_worker.ts";
import type { TranscriptFile } from "../transcript/transcript_files.ts";

/** The worker module; `deno compile` needs `--include src/audit/_audit_worker.ts`. */
const AUDIT_WORKER_URL: URL = new URL("./_audit_worker.ts", import.meta.url);

/** Options for {@link auditFilesInParallel}: `workers` (1 or fewer: this thread), `workerUrl` (tests make it fail). */
interface PoolOptions extends AuditOptions {
  workers: number;
  workerUrl?: URL;
}

/** Audits `files` with up to `workers` workers, results in file order. Requires `--allow-read`. */
export async function auditFilesInParallel(
  files: readonly TranscriptFile[],
  options: PoolOptions,
): Promise<FileAudit[]> {
  const count = Math.min(options.workers, files.length);
  const url = options.workerUrl ?? AUDIT_WORKER_URL;
  const started = count <= 1 || !moduleExists(url)
    ? []
    : await Promise.all(Array.from({ length: count }, () => startWorker(url)));
  const workers = started.filter((w): w is Worker => w !== null);
  if (workers.length === 0) return await auditFiles(files, options);

  const results: (FileAudit | undefined)[] = new Array(files.length);
  const queue = files.map((_, i) => i).sort((a, b) =>
    (files[b] as TranscriptFile).size - (files[a] as TranscriptFile).size
  );
  let doneBytes = 0;
  const progress = (bytes: number, path: string) => {
    doneBytes += bytes;
    options.onProgress?.(doneBytes, path);
  };
  await Promise.all(workers.map(async (worker) => {
    try {
      for (
        let index = queue.shift();
        index !== undefined;
        index = queue.shift()
      ) {
        const file = files[index] as TranscriptFile;
        const audit = await auditIn(worker, { index, file }, progress);
        if (audit === null) {
          queue.unshift(index); // the worker died: someone else takes it
          return;
        }
        results[index] = audit;
      }
    } finally {
      worker.terminate();
    }
  }));
  // Files left by workers that died are audited here.
  const left = files.map((_, i) => i).filter((i) => results[i] === undefined);
  const rest = await auditFiles(left.map((i) => files[i] as TranscriptFile), {
    onProgress: (done, path) => options.onProgress?.(doneBytes + done, path),
  });
  left.forEach((index, k) => results[index] = rest[k]);
  return results as FileAudit[];
}

/** Whether the worker module is there (else each worker prints module-not-found). */
function moduleExists(url: URL): boolean {
  if (url.protocol !== "file:") return true;
  try {
    return Deno.statSync(url).isFile;
  } catch {
    return false;
  }
}

/** Starts a worker and waits for it to load; `null` when it cannot. */
function startWorker(url: URL): Promise<Worker | null> {
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(url.href, { type: "module" });
    } catch {
      resolve(null);
      return;
    }
    worker.onmessage = (event: MessageEvent<AuditWorkerMessage>) => {
      if (event.data.type === "ready") resolve(worker);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      resolve(null);
    };
  });
}

/** Sends one file to a worker; `null` when the worker fails instead. */
function auditIn(
  worker: Worker,
  request: AuditRequest,
  progress: (bytes: number, path: string) => void,
): Promise<FileAudit | null> {
  return new Promise((resolve) => {
    worker.onmessage = (event: MessageEvent<AuditWorkerMessage>) => {
      const message = event.data;
      if (message.type === "progress") {
        progress(message.bytes, request.file.path);
      } else if (message.type === "done") {
        progress(message.bytes, request.file.path);
        resolve(message.audit);
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      resolve(null);
    };
    worker.postMessage(request);
  });
}
