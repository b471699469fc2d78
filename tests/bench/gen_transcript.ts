/**
 * Deterministic generator of realistic Claude Code transcripts (JSONL), for
 * benchmarks and tests: same seed and arguments, same bytes.
 *
 * One file:
 *
 * ```sh
 * deno run --allow-write tests/bench/gen_transcript.ts --size 100MB --seed 42 --tail stalled --out big.jsonl
 * ```
 *
 * A corpus laid out like `~/.claude/projects` (`<slug>/<session_id>.jsonl`,
 * plus `<slug>/<session_id>/subagents/agent-<id>.jsonl` for some sessions):
 *
 * ```sh
 * deno run --allow-write tests/bench/gen_transcript.ts --corpus /tmp/projects --sessions 50 --size-per-session 4MB --seed 7
 * ```
 *
 * Sizes take `B`, `KB`, `MB`, `GB` (binary multiples: 1 MB = 1024 KiB).
 *
 * @module
 */

import { join } from "node:path";
import { parseArgs } from "node:util";
import { ChunkWriter } from "./chunk_writer.ts";
import { EntryWriter } from "./entries.ts";
import { pools } from "./payloads.ts";
import { Rng } from "./prng.ts";
import { SessionGenerator } from "./session.ts";
import type { SessionResult, Tail } from "./session.ts";

export type { Tail } from "./session.ts";

/** Options for {@linkcode writeTranscriptSync}. */
export interface TranscriptOptions {
  /** Size to aim for, in bytes (the result lands within a few percent). */
  readonly size: number;
  /** Seed of the pseudo-random generator. */
  readonly seed: number;
  /** Shape of the final turn. */
  readonly tail: Tail;
  /** Session id; derived from the seed when absent. */
  readonly sessionId?: string;
  /** Working directory written on entries. */
  readonly cwd?: string;
  /** Writes a subagent (sidechain) transcript for this agent id. */
  readonly agentId?: string;
}

/** What {@linkcode writeTranscriptSync} wrote. */
export interface TranscriptSummary extends SessionResult {
  /** The file written. */
  readonly path: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** Its number of lines. */
  readonly lines: number;
  /** The session id on its entries. */
  readonly sessionId: string;
}

/** Options for {@linkcode writeCorpusSync}. */
export interface CorpusOptions {
  /** Number of main session files. */
  readonly sessions: number;
  /** Mean size of a main session file in bytes (each varies 0.5x-1.5x). */
  readonly sizePerSession: number;
  /** Seed of the pseudo-random generator. */
  readonly seed: number;
}

/** What {@linkcode writeCorpusSync} wrote. */
export interface CorpusSummary {
  /** The corpus root (the `projects` folder). */
  readonly dir: string;
  /** Every file written, main sessions and subagents. */
  readonly files: readonly TranscriptSummary[];
  /** Total bytes over all files. */
  readonly bytes: number;
}

const DEFAULT_CWD = "/home/dev/src/stall-watch";
const DAY_MS = 86_400_000;
const PROJECTS: readonly string[] = [
  "/home/dev/src/stall-watch",
  "/home/dev/src/api-server",
  "/home/dev/work/notes-日本",
];
const MAX_SUBAGENTS_PER_SESSION = 2;

/**
 * Writes one transcript to `path`, streaming it in large chunks.
 *
 * Requires `--allow-write`.
 *
 * @param path File to create or overwrite.
 * @param options Size, seed, tail shape and identity.
 * @returns What was written, including the pending tool_use id of a stalled tail.
 */
export function writeTranscriptSync(
  path: string,
  options: TranscriptOptions,
): TranscriptSummary {
  const rng = new Rng(options.seed);
  const sessionId = options.sessionId ?? rng.uuid();
  const cwd = options.cwd ?? DEFAULT_CWD;
  const startMs = Date.UTC(2026, 0, 5, 9) + rng.int(0, 30) * DAY_MS;
  const file = Deno.openSync(path, {
    write: true,
    create: true,
    truncate: true,
  });
  const out = new ChunkWriter(file);
  try {
    const identity = options.agentId === undefined
      ? { sessionId, cwd, gitBranch: "main" }
      : { sessionId, cwd, gitBranch: "main", agentId: options.agentId };
    const w = new EntryWriter(out, rng.fork(), identity, startMs);
    const result = new SessionGenerator(w, rng.fork(), {
      pools: pools(),
      cwd,
      spec: {
        size: options.size,
        tail: options.tail,
        allowAgents: options.agentId === undefined,
        legacyFraction: options.agentId === undefined ? 0.1 : 0,
      },
    }).run();
    out.flush();
    return { ...result, path, bytes: out.bytes, lines: w.lines, sessionId };
  } finally {
    out.close();
  }
}

/**
 * Writes a multi-session corpus under `dir`, laid out like
 * `~/.claude/projects/<slug>/<session_id>.jsonl`, with subagent transcripts
 * in `<slug>/<session_id>/subagents/agent-<id>.jsonl` for sessions that
 * launched background agents. About one session in five has a stalled tail.
 *
 * Requires `--allow-write`.
 *
 * @param dir Corpus root; created if missing.
 * @param options Number of sessions, mean size per session and seed.
 * @returns Every file written and the total size.
 */
export function writeCorpusSync(
  dir: string,
  options: CorpusOptions,
): CorpusSummary {
  const rng = new Rng(options.seed);
  const files: TranscriptSummary[] = [];
  for (let i = 0; i < options.sessions; i++) {
    const cwd = PROJECTS[i % PROJECTS.length] ?? DEFAULT_CWD;
    const slugDir = join(dir, slugOf(cwd));
    Deno.mkdirSync(slugDir, { recursive: true });
    const sessionId = rng.uuid();
    const size = Math.round(options.sizePerSession * (0.5 + rng.float()));
    const tail: Tail = rng.chance(0.2) ? "stalled" : "healthy";
    const main = writeTranscriptSync(join(slugDir, `${sessionId}.jsonl`), {
      size,
      seed: rng.u32(),
      tail,
      sessionId,
      cwd,
    });
    files.push(main);
    const agents = main.agentIds.slice(0, MAX_SUBAGENTS_PER_SESSION);
    if (agents.length > 0) {
      Deno.mkdirSync(join(slugDir, sessionId, "subagents"), {
        recursive: true,
      });
    }
    for (const agentId of agents) {
      files.push(
        writeTranscriptSync(
          join(slugDir, sessionId, "subagents", `agent-${agentId}.jsonl`),
          {
            size: Math.max(20 << 10, Math.round(size / 10)),
            seed: rng.u32(),
            tail: "healthy",
            sessionId,
            cwd,
            agentId,
          },
        ),
      );
    }
  }
  return { dir, files, bytes: files.reduce((n, f) => n + f.bytes, 0) };
}

/** Returns the project folder name Claude Code derives from a working directory. */
export function slugOf(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, "-");
}

const UNITS: Readonly<Record<string, number>> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/**
 * Parses a size such as `512KB`, `100MB`, `1GB` or `2048` (bytes); units are
 * binary multiples.
 *
 * @throws {RangeError} When the text is not a positive size.
 */
export function parseSize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = UNITS[(m?.[2] ?? "").toLowerCase()];
  const value = Number(m?.[1]);
  if (!m || unit === undefined || !(value > 0)) {
    throw new RangeError(`Cannot parse size: "${text}"`);
  }
  return Math.round(value * unit);
}

/** Formats a byte count for humans (`1.0 MiB`). */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

const USAGE = `Usage:
  gen_transcript.ts --size SIZE [--seed N] [--tail healthy|stalled] --out PATH
  gen_transcript.ts --corpus DIR --sessions N --size-per-session SIZE [--seed N]
Sizes: 2048, 512KB, 100MB, 1GB (binary multiples).`;

function parseTail(text: string): Tail {
  if (text === "healthy" || text === "stalled") return text;
  throw new RangeError(
    `Cannot parse tail: "${text}" is not healthy or stalled`,
  );
}

function parseCount(text: string, name: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new RangeError(`Cannot parse ${name}: "${text}"`);
  }
  return n;
}

function cli(args: string[]): string {
  const { values } = parseArgs({
    args,
    options: {
      size: { type: "string" },
      seed: { type: "string", default: "42" },
      tail: { type: "string", default: "healthy" },
      out: { type: "string" },
      corpus: { type: "string" },
      sessions: { type: "string", default: "10" },
      "size-per-session": { type: "string", default: "1MB" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return USAGE;
  const seed = parseCount(values.seed, "seed");
  if (values.corpus !== undefined) {
    const c = writeCorpusSync(values.corpus, {
      sessions: parseCount(values.sessions, "sessions"),
      sizePerSession: parseSize(values["size-per-session"]),
      seed,
    });
    return `wrote ${c.files.length} files, ${
      formatSize(c.bytes)
    } under ${c.dir}`;
  }
  if (values.out === undefined || values.size === undefined) {
    throw new RangeError(
      `Cannot generate: --out and --size are required\n${USAGE}`,
    );
  }
  const t = writeTranscriptSync(values.out, {
    size: parseSize(values.size),
    seed,
    tail: parseTail(values.tail),
  });
  return `wrote ${t.path}: ${
    formatSize(t.bytes)
  }, ${t.lines} lines, final turn ${formatSize(t.finalTurnBytes)}${
    t.pendingToolUseId ? `, pending ${t.pendingToolUseId}` : ""
  }`;
}

if (import.meta.main) {
  try {
    console.log(cli(Deno.args));
  } catch (e) {
    console.error(`gen_transcript: ${e instanceof Error ? e.message : e}`);
    Deno.exit(1);
  }
}
