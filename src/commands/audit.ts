/**
 * `stall-watch audit`: every turn of every past session through the hook's
 * classifier, summed up by kind, tool, MCP server and session.
 *
 * @module
 */

import { basename, resolvePath } from "../shared/paths.ts";
import { auditFilesInParallel } from "../audit/audit_pool.ts";
import { renderAuditReport } from "../audit/audit_report.ts";
import { auditJson, summarizeAudit } from "../audit/audit_summary.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { parseCommandLine, parseSince } from "../shared/command_options.ts";
import { ExitCode, InputError, UsageError } from "../shared/errors.ts";
import { formatCount } from "../shared/number_format.ts";
import { ProgressBar } from "../shared/progress_bar.ts";
import { styleFor } from "../shared/term_style.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import {
  defaultProjectsDirs,
  findTranscripts,
  type FoundTranscripts,
} from "../transcript/transcript_files.ts";
import { codexSessionsDir } from "../codex/rollout_files.ts";

/** The `help audit` text. */
export const help: string =
  `stall-watch audit: count the stalls in every past session

Usage:
  stall-watch audit [dir] [--since WHEN] [--json] [--jobs N]
  stall-watch audit --codex [--since WHEN] [--json] [--jobs N]

Reads every *.jsonl under dir, subagent transcripts included (default: the
"projects" folder under each folder of $CLAUDE_CONFIG_DIR, which may list
several separated by commas; else both ~/.config/claude/projects and
~/.claude/projects, those that exist), and judges every
turn with the hook's classifier. In history a turn is stalled when its last
model activity is a call that never got a result, an empty result, or a
result nobody answered before the next human prompt, and the file shows the
turn ended (a later turn, a record of its end, an interrupt, an API error);
one with no sign it ended is listed apart as unfinished (a hang, or a file
captured mid-turn). A turn the user interrupted is not a stall, nor is a
call the model moved on from, nor a turn that ended on a usage limit. dir
may also be a single transcript.

OpenAI Codex CLI rollouts (a first line of type session_meta) are read as
Codex writes them, wherever they are: --codex audits
$CODEX_HOME/sessions (~/.codex/sessions by default). A Codex turn runs from
task_started to task_complete (ended) or turn_aborted (interrupted); one
with neither that a later turn follows was cut short (unfinished).

  --since WHEN  only files modified at or after WHEN: a date (YYYY-MM-DD,
                UTC), an ISO 8601 date-time such as 2026-03-01T09:00:00Z,
                or a time back such as 30m, 12h, 7d, 2w
  --jobs N      read with N threads (default: one per CPU, at most 4,
                for corpora over 512 MiB, else 1: a thread costs about
                0.5 s to start; 1 reads in the main thread)
  --json        one object on stdout:
                {"root", "files", "bytes", "turns", "stalled_turns",
                 "api_error_turns", "usage_limit_turns",
                 "unfinished_turns", "announced_turns", "stalled_calls",
                 "by_kind", "by_tool", "by_mcp_server", "sessions",
                 "unfinished", "announced", "unreadable",
                 "skipped_older", "roots", "elapsed_ms"}
                ("root": the roots joined by ", ")

Files that cannot be read, or are plainly not transcripts (binary data, a
first line that is not a JSON object), are counted and listed, never
fatal. A progress bar appears on stderr when it is a terminal and the
audit takes a moment. When nothing was audited, a note on stderr says why.

Exit codes: 0 the audit ran (whatever it found), 1 dir is missing or
unreadable, 64 usage error. Never 2.
`;

/** Runs `audit`. Requires `--allow-read`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { options, positionals } = parseCommandLine("audit", args, {
    json: "flag",
    since: "value",
    jobs: "value",
    codex: "flag",
  }, 1);
  if (options.codex && positionals[0] !== undefined) {
    throw new UsageError(
      `"--codex" audits Codex's sessions folder; name a folder without it`,
    );
  }
  const sinceMs = typeof options.since === "string"
    ? parseSince(options.since, io.now())
    : null;
  const roots = positionals[0] !== undefined
    ? [resolvePath(io.cwd, positionals[0])]
    : options.codex
    ? [resolvePath(io.cwd, codexSessionsDir(io.env))]
    : existingProjectsDirs(io);
  const startedAt = io.now();
  const found = findAllTranscripts(roots, sinceMs);
  const total = found.files.reduce((n, f) => n + f.size, 0);
  const jobs = typeof options.jobs === "string"
    ? parseJobs(options.jobs)
    : defaultJobs(total);
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
    const json = {
      ...auditJson(summary, { root: roots.join(", ") }),
      roots,
      elapsed_ms: Math.round(elapsedMs),
    };
    io.writeStdout(JSON.stringify(json, null, 2) + "\n");
  } else {
    io.writeStdout(
      renderAuditReport(
        summary,
        { root: roots.join(" and "), elapsedMs },
        styleFor(io, "stdout"),
      ),
    );
  }
  if (found.files.length === 0 && found.unreadable.length === 0) {
    io.writeStderr(`stall-watch: note: ${emptyHint(roots, found)}\n`);
  }
  return ExitCode.ok;
}

/** The default folders that exist; one line naming them all when none does. */
function existingProjectsDirs(io: CliIO): string[] {
  const candidates = defaultProjectsDirs(io.env).map((d) =>
    resolvePath(io.cwd, d)
  );
  const existing = candidates.filter((dir) => {
    try {
      return Deno.statSync(dir).isDirectory;
    } catch {
      return false;
    }
  });
  if (existing.length > 0) return existing;
  throw new InputError(
    `Cannot audit: no Claude Code projects folder at ${
      candidates.join(" or ")
    } (Claude Code creates it at its first session); name the folder: stall-watch audit DIR`,
  );
}

function findAllTranscripts(
  roots: readonly string[],
  sinceMs: number | null,
): FoundTranscripts {
  const all: FoundTranscripts = { files: [], unreadable: [], skippedOlder: 0 };
  for (const root of roots) {
    const found = findTranscripts(root, sinceMs);
    // Loops, not push(...): a spread of 130,000 files overflows the stack.
    for (const file of found.files) all.files.push(file);
    for (const path of found.unreadable) all.unreadable.push(path);
    all.skippedOlder += found.skippedOlder;
  }
  return all;
}

/** Why nothing was audited, and what to try. */
function emptyHint(roots: readonly string[], found: FoundTranscripts): string {
  const where = roots.map(escapeTerminal).join(" and ");
  if (found.skippedOlder > 0) {
    return `every transcript under ${where} is older than --since (${
      formatCount(found.skippedOlder)
    } left out): try an earlier --since`;
  }
  return `no transcript (*.jsonl) under ${where}: Claude Code keeps them in <projects folder>/<project>/<session>.jsonl (the projects folder is under ~/.claude, ~/.config/claude or $CLAUDE_CONFIG_DIR); name such a folder`;
}

/**
 * Worker threads pay off only past this much (each takes ~0.5 s to start):
 * two were no faster than one on 101 MiB, 2.90 s against 3.45 s on 1.37 GiB
 * (20% more CPU); four on two CPUs were slower than one (load 5-8).
 */
const AUTO_JOBS_MIN_BYTES = 512 * 1024 * 1024;
const MAX_JOBS = 4;

function defaultJobs(totalBytes: number): number {
  return totalBytes >= AUTO_JOBS_MIN_BYTES
    ? Math.min(navigator.hardwareConcurrency || 1, MAX_JOBS)
    : 1;
}

function parseJobs(value: string): number {
  const jobs = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(jobs) || jobs < 1 || jobs > 64) {
    throw new UsageError(
      `Bad value for "--jobs": "${value}" is not a whole number from 1 to 64`,
    );
  }
  return jobs;
}
