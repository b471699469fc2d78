/**
 * The benchmark's generated inputs, cached in `bench-data/` (git-ignored)
 * under names keyed by size, seed, tail and {@linkcode GENERATOR_REVISION},
 * so a later run reuses them and a generator change regenerates them.
 * Files are written under a temporary name and renamed when complete.
 *
 * @module
 */

import { writeCorpusSync, writeTranscriptSync } from "./gen_transcript.ts";
import type { Tail } from "./gen_transcript.ts";

/** Bump when the generator's output changes, so cached files are rebuilt. */
export const GENERATOR_REVISION = 2;

/** Mean size of one session in a generated audit corpus. */
const CORPUS_SESSION_BYTES = 4 << 20;
/** Subagent transcripts add about this share to a corpus of such sessions. */
const SUBAGENT_SHARE = 1.2;

/** A cached corpus and its total size. */
export interface CorpusInfo {
  /** The corpus root, laid out like `~/.claude/projects`. */
  readonly dir: string;
  /** Total bytes of all its transcripts. */
  readonly bytes: number;
  /** Number of transcript files. */
  readonly files: number;
}

/**
 * Returns the path of a cached transcript, generating it first if missing.
 *
 * Requires `--allow-read` and `--allow-write`.
 */
export async function ensureTranscript(
  dataDir: string,
  spec: { size: number; seed: number; tail: Tail },
): Promise<string> {
  const name = `${spec.tail}-${spec.size}-s${spec.seed}-g${GENERATOR_REVISION}`;
  const path = `${dataDir}/${name}.jsonl`;
  if (await exists(path)) return path;
  await Deno.mkdir(dataDir, { recursive: true });
  const tmp = `${path}.tmp`;
  writeTranscriptSync(tmp, spec);
  await Deno.rename(tmp, path);
  return path;
}

/**
 * Returns a cached audit corpus of about `size` bytes (sessions of ~4 MiB),
 * generating it first if missing. Its summary is kept in a sibling `.json`.
 *
 * Requires `--allow-read` and `--allow-write`.
 */
export async function ensureCorpus(
  dataDir: string,
  spec: { size: number; seed: number },
): Promise<CorpusInfo> {
  const dir =
    `${dataDir}/corpus-${spec.size}-s${spec.seed}-g${GENERATOR_REVISION}`;
  const infoPath = `${dir}.json`;
  if (await exists(infoPath)) {
    return JSON.parse(await Deno.readTextFile(infoPath)) as CorpusInfo;
  }
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  const summary = writeCorpusSync(dir, {
    sessions: Math.max(
      1,
      Math.round(spec.size / (CORPUS_SESSION_BYTES * SUBAGENT_SHARE)),
    ),
    sizePerSession: CORPUS_SESSION_BYTES,
    seed: spec.seed,
  });
  const info = { dir, bytes: summary.bytes, files: summary.files.length };
  await Deno.writeTextFile(infoPath, JSON.stringify(info));
  return info;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}
