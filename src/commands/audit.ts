/**
 * `stall-watch audit`: every turn of every past session through the same
 * classifier as the hook, summed up by kind, tool, MCP server and session.
 *
 * @module
 */

import { basename, resolve } from "node:path";
import { auditFilesInParallel } from "../audit/audit_pool.ts";
import { renderAuditReport } from "../audit/audit_report.ts";
import { auditJson, summarizeAudit } from "../audit/audit_summary.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { parseCommandLine } from "../shared/command_options.ts";
import { ExitCode, UsageError } from "../shared/errors.ts";
import { ProgressBar } from "../shared/progress_bar.ts";
import { styleFor } from "../shared/term_style.ts";
import {
  defaultProjectsDir,
  findTranscripts,
} from "../transcript/transcript_files.ts";

/** The `help audit` text. */
export const help: string =
  `stall-watch audit: count the stalls in every past session

Usage:
  stall-watch audit [dir] [--since DATE] [--json] [--jobs N]

Reads every *.jsonl under dir (default: "projects" under $CLAUDE_CONFIG_DIR,
else ~/.claude/projects), subagent transcripts included, and judges every
turn with the hook's classifier. In history a turn is stalled when its last
model activity is a call that never got a result, an empty result, or a
result nobody answered before the next human prompt (or the end of the
file); a turn the user interrupted is not a stall, nor is a call the model
moved on from. dir may also be a single transcript.

  --since DATE  only files modified at or after DATE (YYYY-MM-DD, UTC, or
                an ISO 8601 date-time such as 2026-03-01T09:00:00Z)
  --jobs N      read with N threads (default: one per CPU, at most 4,
                for corpora over 64 MiB; 1 reads in the main thread)
  --json        one object on stdout:
                {"root", "files", "bytes", "turns", "stalled_turns",
                 "stalled_calls", "by_kind", "by_tool", "by_mcp_server",
                 "sessions", "unreadable", "skipped_older", "elapsed_ms"}

Files that cannot be read are counted and listed, never fatal. A progress
bar appears on stderr when it is a terminal and the audit takes a moment.

Exit codes: 0 the audit ran (whatever it found), 1 dir is missing or
unreadable, 64 usage error. Never 2.
`;

/** Runs `audit`. Requires `--allow-read`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { options, positionals } = parseCommandLine("audit", args, {
    json: "flag",
    since: "value",
    jobs: "value",
  }, 1);
  const sinceMs = typeof options.since === "string"
    ? parseSince(options.since)
    : null;
  const root = resolve(io.cwd, positionals[0] ?? defaultProjectsDir(io.env));
  const startedAt = io.now();
  const found = findTranscripts(root, sinceMs);
  const total = found.files.reduce((n, f) => n + f.size, 0);
  const jobs = typeof options.jobs === "string"
    ? parseJobs(options.jobs)
    : total >= AUTO_JOBS_MIN_BYTES
    ? Math.min(navigator.hardwareConcurrency || 1, MAX_JOBS)
    : 1;
  const bar = new ProgressBar(io, total);
  let audits;
  try {
    audits = await auditFilesInParallel(found.files, {
      workers: jobs,
      onProgress: (done, path) => bar.update(done, basename(path)),
    });
  } finally {
    bar.clear();
  }
  const summary = summarizeAudit(audits, found.unreadable, found.skippedOlder);
  const elapsedMs = Math.max(0, io.now() - startedAt);
  if (options.json === true) {
    const json = auditJson(summary, { root });
    io.writeStdout(
      JSON.stringify({ ...json, elapsed_ms: Math.round(elapsedMs) }, null, 2) +
        "\n",
    );
  } else {
    io.writeStdout(
      renderAuditReport(summary, { root, elapsedMs }, styleFor(io, "stdout")),
    );
  }
  return ExitCode.ok;
}

/** Worker threads pay off only when there is this much to read. */
const AUTO_JOBS_MIN_BYTES = 64 * 1024 * 1024;
const MAX_JOBS = 4;

function parseJobs(value: string): number {
  const jobs = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(jobs) || jobs < 1 || jobs > 64) {
    throw new UsageError(
      `Bad value for "--jobs": "${value}" is not a whole number from 1 to 64`,
    );
  }
  return jobs;
}

const DATE =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Parses `--since`: a date (UTC midnight) or an ISO 8601 date-time.
 *
 * @throws {UsageError} For anything else.
 */
export function parseSince(text: string): number {
  const ms = DATE.test(text) ? Date.parse(text.replace(" ", "T")) : NaN;
  if (!Number.isFinite(ms)) {
    throw new UsageError(
      `Bad value for "--since": "${text}" is not a date like 2026-03-01 or 2026-03-01T09:00:00Z`,
    );
  }
  return ms;
}
