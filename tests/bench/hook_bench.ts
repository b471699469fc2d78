/**
 * `deno task bench`: the cost of one Stop-hook decision against transcripts
 * of 1 MB, 10 MB and 100 MB (1 GB with `--gb`), healthy and stalled tails,
 * compared with the runtime floor (`deno run` of an empty script with the
 * same flags), measured in pairs in the same run.
 *
 * The hook runs as `install` registers it from source (`deno run --quiet`
 * with the release permission flags and `main.ts`), the floor the same way
 * with an empty script. Each round runs one of each, in alternating order,
 * each in a fresh directory; a row's ratio is the median of the per-pair
 * ratios (hook wall time over the floor's in the same round), with their
 * range. Per row it prints that, the medians of wall time and peak RSS of
 * both, and PASS or MISS against the targets (healthy within 1.3x of the
 * floor, stalled within 2x, peak RSS within 16 MiB of the floor's). Then
 * the three figures of the goal: a healthy stop on the smallest transcript,
 * a stalled stop on 100 MB, the largest peak RSS over the floor; then, per
 * size, a block's wall time against a healthy stop's (within 2x: the hook
 * runs with its defaults, so a lag wait on a current payload would show
 * here); then `main.ts audit DIR --json` on a generated corpus.
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=loadavg tests/bench/hook_bench.ts [--rounds 21] [--gb]
 * ```
 *
 * Environment:
 * - `STALL_WATCH_HOOK_CMD`: JSON array, the hook's argv (e.g. a compiled
 *   binary); default `deno run --quiet <HOOK_PERMISSION_FLAGS> main.ts`.
 * - `STALL_WATCH_FLOOR_CMD`: JSON array, the floor's argv; default
 *   `deno run --quiet <HOOK_PERMISSION_FLAGS> bench-data/empty.ts`.
 *
 * Generated inputs are cached in `bench-data/` (git-ignored).
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { SOURCE_RUN_FLAGS } from "../../src/install/hook_command.ts";
import { ensureCorpus, ensureTranscript } from "./bench_data.ts";
import { formatSize, parseSize } from "./gen_transcript.ts";
import type { Tail } from "./gen_transcript.ts";
import { detectMethod, measure } from "./measure.ts";
import type { Measurement, Method } from "./measure.ts";
import { fixed, median, renderTable } from "./table.ts";

/** A healthy stop's wall time may be at most this multiple of the floor's. */
export const HEALTHY_RATIO_TARGET = 1.3;
/** A stalled stop's (a block's) wall time: at most this multiple. */
export const STALLED_RATIO_TARGET = 2;
/** The size of the stalled row the goal names. */
const GOAL_STALLED_BYTES = 100 * 1024 * 1024;
/** Peak RSS may exceed the floor's by at most this many MiB. */
export const RSS_DELTA_TARGET_MIB = 16;

const REPO = fileURLToPath(new URL("../../", import.meta.url));
const TAILS: readonly Tail[] = ["healthy", "stalled"];
const EXPECTED_EXIT: Readonly<Record<Tail, number>> = {
  healthy: 0,
  stalled: 2,
};
const RATIO_TARGET: Readonly<Record<Tail, number>> = {
  healthy: HEALTHY_RATIO_TARGET,
  stalled: STALLED_RATIO_TARGET,
};
/**
 * The hook runs with its defaults, lag wait included: on a current payload
 * a block must not wait for transcript growth (see `_lag_evidence.ts`).
 */
const HOOK_ENV = {};
/** A block may take at most this multiple of a healthy stop's time. */
export const BLOCK_RATIO_TARGET = 2;
const MIB = 1024 * 1024;

/** Parsed command-line options. */
interface Options {
  rounds: number;
  sizes: number[];
  seed: number;
  dataDir: string;
  auditSize: number | null;
}

/** What the benchmark runs. */
interface Setup {
  method: Method;
  hook: readonly string[];
  floor: readonly string[];
  rounds: number;
}

/** Medians for one (size, tail) case. */
interface Row {
  size: number;
  tail: Tail;
  code: number;
  wallMs: number;
  floorMs: number;
  rssMiB: number | null;
  floorRssMiB: number | null;
  /** Per-round hook / floor wall time: median, lowest, highest. */
  ratio: number;
  ratioMin: number;
  ratioMax: number;
  pairs: number;
  firstStderrLine: string;
}

const USAGE =
  `Usage: hook_bench.ts [--rounds N] [--gb] [--sizes 1MB,10MB] [--seed N]
                     [--data DIR] [--audit-size SIZE] [--no-audit]`;

function parseOptions(args: string[]): Options | null {
  const { values } = parseArgs({
    args,
    options: {
      rounds: { type: "string", default: "21" },
      gb: { type: "boolean", default: false },
      sizes: { type: "string", default: "1MB,10MB,100MB" },
      seed: { type: "string", default: "42" },
      data: { type: "string", default: `${REPO}bench-data` },
      "audit-size": { type: "string" },
      "no-audit": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return null;
  const sizes = values.sizes.split(",").map(parseSize);
  if (values.gb) sizes.push(parseSize("1GB"));
  const auditSize = values["audit-size"] ?? (values.gb ? "1GB" : "200MB");
  const rounds = Number(values.rounds);
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(`Cannot parse --rounds: "${values.rounds}"`);
  }
  return {
    rounds,
    sizes,
    seed: Number(values.seed),
    dataDir: values.data,
    auditSize: values["no-audit"] ? null : parseSize(auditSize),
  };
}

function argvFromEnv(name: string): string[] | null {
  const raw = Deno.env.get(name);
  if (raw === undefined || raw === "") return null;
  const argv = JSON.parse(raw) as unknown;
  if (
    !Array.isArray(argv) || argv.length === 0 ||
    !argv.every((a) => typeof a === "string")
  ) {
    throw new TypeError(`Cannot use ${name}: expected a JSON array of strings`);
  }
  return argv;
}

async function buildSetup(options: Options): Promise<Setup> {
  const deno = Deno.execPath();
  // As `install` registers the hook from source, and the floor alike.
  const flags = [...SOURCE_RUN_FLAGS, ...HOOK_PERMISSION_FLAGS];
  const hook = argvFromEnv("STALL_WATCH_HOOK_CMD") ??
    [deno, "run", ...flags, `${REPO}main.ts`];
  let floor = argvFromEnv("STALL_WATCH_FLOOR_CMD");
  if (!floor) {
    await Deno.mkdir(options.dataDir, { recursive: true });
    const empty = `${options.dataDir}/empty.ts`;
    await Deno.writeTextFile(empty, "");
    floor = [deno, "run", ...flags, empty];
  }
  return { method: await detectMethod(), hook, floor, rounds: options.rounds };
}

/**
 * A Stop payload shaped like real Claude Code 2.1.332's: with
 * `last_assistant_message` when the final reply has text, absent when not.
 */
function payload(
  transcriptPath: string,
  cwd: string,
  finalText: string | null,
): string {
  return JSON.stringify({
    session_id: "bench",
    transcript_path: transcriptPath,
    cwd,
    permission_mode: "default",
    effort: { level: "medium" },
    hook_event_name: "Stop",
    stop_hook_active: false,
    ...(finalText === null ? {} : { last_assistant_message: finalText }),
    background_tasks: [],
    session_crons: [],
  });
}

/**
 * The text of the transcript's newest model message (its text blocks,
 * joined), or `null` when it has none: what 2.1.332 sends as
 * `last_assistant_message`. Reads only the file's last 1 MiB.
 */
export function finalReplyText(transcriptPath: string): string | null {
  const file = Deno.openSync(transcriptPath);
  try {
    const size = file.statSync().size;
    const start = Math.max(0, size - 1024 * 1024);
    file.seekSync(start, Deno.SeekMode.Start);
    const bytes = new Uint8Array(size - start);
    let read = 0;
    while (read < bytes.length) {
      const n = file.readSync(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    const lines = new TextDecoder().decode(bytes.subarray(0, read)).split(
      "\n",
    );
    const texts: string[] = [];
    let messageId: unknown;
    for (let i = lines.length - 1; i > 0; i--) {
      let entry;
      try {
        entry = JSON.parse(lines[i] as string);
      } catch {
        continue;
      }
      if (entry?.type !== "assistant") {
        if (messageId === undefined && entry?.type !== "user") continue;
        break;
      }
      const id = entry.message?.id;
      if (messageId === undefined) messageId = id;
      else if (id !== messageId) break;
      const blocks = Array.isArray(entry.message?.content)
        ? entry.message.content
        : [];
      const own = blocks.filter((b: { type?: string }) => b?.type === "text")
        .map((b: { text?: string }) => String(b.text ?? ""));
      texts.unshift(...own);
    }
    return texts.length > 0 ? texts.join("\n\n") : null;
  } finally {
    file.close();
  }
}

/** Runs `argv` once in a fresh temporary directory (fresh `.claude` state). */
async function runOnce(
  argv: readonly string[],
  transcriptPath: string,
  method: Method,
  finalText: string | null = null,
): Promise<Measurement> {
  const cwd = await Deno.makeTempDir({ prefix: "stall_watch_bench_" });
  try {
    const stdin = payload(transcriptPath, cwd, finalText);
    return await measure({ argv, cwd, env: HOOK_ENV, stdin }, method);
  } finally {
    await Deno.remove(cwd, { recursive: true });
  }
}

async function benchCase(
  setup: Setup,
  spec: { size: number; tail: Tail; path: string },
): Promise<Row> {
  const { method, hook, floor } = setup;
  const finalText = finalReplyText(spec.path);
  await runOnce(floor, spec.path, method); // warm-up: caches, page cache
  await runOnce(hook, spec.path, method, finalText);
  const hooks: Measurement[] = [];
  const floors: Measurement[] = [];
  for (let r = 0; r < setup.rounds; r++) {
    // Alternate which goes first, so drift hits both alike.
    if (r % 2 === 0) floors.push(await runOnce(floor, spec.path, method));
    hooks.push(await runOnce(hook, spec.path, method, finalText));
    if (r % 2 === 1) floors.push(await runOnce(floor, spec.path, method));
  }
  return summarize(spec, hooks, floors);
}

function summarize(
  spec: { size: number; tail: Tail },
  hooks: Measurement[],
  floors: Measurement[],
): Row {
  const rss = (ms: Measurement[]) => {
    const v = ms.map((m) => m.peakRssKiB).filter((x): x is number =>
      x !== null
    );
    const m = median(v);
    return m === null ? null : m / 1024;
  };
  const codes = hooks.map((m) => m.code);
  const last = hooks[hooks.length - 1];
  // Round r ran hooks[r] and floors[r] back to back.
  const ratios = hooks.map((h, r) => h.wallMs / (floors[r]?.wallMs ?? NaN));
  return {
    size: spec.size,
    tail: spec.tail,
    code: codes.every((c) => c === codes[0]) ? codes[0] ?? -1 : -1,
    wallMs: median(hooks.map((m) => m.wallMs)) ?? NaN,
    floorMs: median(floors.map((m) => m.wallMs)) ?? NaN,
    rssMiB: rss(hooks),
    floorRssMiB: rss(floors),
    ratio: median(ratios) ?? NaN,
    ratioMin: Math.min(...ratios),
    ratioMax: Math.max(...ratios),
    pairs: ratios.length,
    firstStderrLine: (last?.stderr ?? "").split("\n")[0] ?? "",
  };
}

function verdict(ok: boolean | null): string {
  return ok === null ? "n/a" : ok ? "PASS" : "MISS";
}

function rssDelta(row: Row): number | null {
  return row.rssMiB === null || row.floorRssMiB === null
    ? null
    : row.rssMiB - row.floorRssMiB;
}

function rowCells(row: Row): string[] {
  const delta = rssDelta(row);
  const unexpected = row.code !== EXPECTED_EXIT[row.tail];
  return [
    formatSize(row.size),
    row.tail,
    `${row.code === -1 ? "mixed" : row.code}${unexpected ? "!" : ""}`,
    fixed(row.wallMs, 1),
    fixed(row.floorMs, 1),
    fixed(row.ratio, 2),
    `${fixed(row.ratioMin, 2)}-${fixed(row.ratioMax, 2)}`,
    fixed(row.rssMiB, 1),
    fixed(row.floorRssMiB, 1),
    fixed(delta, 1),
    verdict(row.ratio <= RATIO_TARGET[row.tail]),
    verdict(delta === null ? null : delta <= RSS_DELTA_TARGET_MIB),
  ];
}

const HEADER = [
  "size",
  "tail",
  "exit",
  "wall ms",
  "floor ms",
  "ratio",
  "range",
  "RSS MiB",
  "floor MiB",
  "delta",
  "time",
  "memory",
];

function printTable(rows: readonly Row[]): void {
  console.log(renderTable([HEADER, ...rows.map(rowCells)]));
  for (const row of rows) {
    if (row.code !== EXPECTED_EXIT[row.tail]) {
      console.log(
        `! ${formatSize(row.size)} ${row.tail}: expected exit ${
          EXPECTED_EXIT[row.tail]
        }, stderr: ${row.firstStderrLine}`,
      );
    }
  }
  const misses = rows.flatMap(rowCells).filter((c) => c === "MISS").length;
  console.log(
    `ratio: median of ${
      rows[0]?.pairs ?? 0
    } per-round ratios (range: lowest-highest); targets: healthy <= ${HEALTHY_RATIO_TARGET}x floor, stalled <= ${STALLED_RATIO_TARGET}x, peak RSS <= floor + ${RSS_DELTA_TARGET_MIB} MiB; ${misses} MISS`,
  );
  console.log("");
  for (const line of goalLines(rows)) console.log(line);
  console.log("");
  for (const line of blockRatioLines(rows)) console.log(line);
}

/**
 * The three figures of the goal: a healthy stop on the smallest transcript
 * and a stalled stop on 100 MB against the floor, and the largest peak RSS
 * over the floor's of any row.
 */
function goalLines(rows: readonly Row[]): string[] {
  const healthy =
    rows.filter((r) => r.tail === "healthy").sort((a, b) => a.size - b.size)[0];
  const stalled = rows.find((r) =>
    r.tail === "stalled" && r.size === GOAL_STALLED_BYTES
  );
  const ratioLine = (what: string, row: Row | undefined, target: number) =>
    row === undefined
      ? `${what}: not measured (see --sizes)`
      : `${what}: ${fixed(row.ratio, 2)}x the floor (${
        fixed(row.ratioMin, 2)
      }-${fixed(row.ratioMax, 2)} over ${row.pairs} pairs; ${
        fixed(row.wallMs, 1)
      } / ${fixed(row.floorMs, 1)} ms), goal <= ${target}x ${
        verdict(row.ratio <= target)
      }`;
  const deltas = rows.flatMap((r) => {
    const d = rssDelta(r);
    return d === null ? [] : [{ row: r, delta: d }];
  });
  const worst = deltas.sort((a, b) => b.delta - a.delta)[0];
  return [
    "goal:",
    ratioLine(
      `  healthy stop, ${healthy ? formatSize(healthy.size) : "?"}`,
      healthy,
      HEALTHY_RATIO_TARGET,
    ),
    ratioLine(
      `  stalled stop, ${formatSize(GOAL_STALLED_BYTES)}`,
      stalled,
      STALLED_RATIO_TARGET,
    ),
    worst === undefined
      ? "  peak RSS over the floor: not measured"
      : `  peak RSS over the floor: ${fixed(worst.delta, 1)} MiB at most (${
        formatSize(worst.row.size)
      } ${worst.row.tail}), goal <= ${RSS_DELTA_TARGET_MIB} MiB ${
        verdict(worst.delta <= RSS_DELTA_TARGET_MIB)
      }`,
  ];
}

/** Per size: the stalled tail's wall time against the healthy one's. */
function blockRatioLines(rows: readonly Row[]): string[] {
  const lines: string[] = [];
  for (const healthy of rows.filter((r) => r.tail === "healthy")) {
    const stalled = rows.find((r) =>
      r.tail === "stalled" && r.size === healthy.size
    );
    if (!stalled) continue;
    const ratio = stalled.wallMs / healthy.wallMs;
    lines.push(
      `block vs healthy stop, ${formatSize(healthy.size)}: ${
        fixed(stalled.wallMs, 1)
      } / ${fixed(healthy.wallMs, 1)} ms = ${
        fixed(ratio, 2)
      }x (target <= ${BLOCK_RATIO_TARGET}x) ${
        verdict(ratio <= BLOCK_RATIO_TARGET)
      }`,
    );
  }
  return lines;
}

async function auditAvailable(setup: Setup): Promise<boolean> {
  const probe = await runOnce(
    [...setup.hook, "audit", "--help"],
    "",
    "wall-only",
  );
  return probe.code === 0;
}

async function benchAudit(setup: Setup, options: Options): Promise<void> {
  if (options.auditSize === null) return;
  if (!(await auditAvailable(setup))) {
    console.log("audit: not available yet");
    return;
  }
  console.error(
    `generating audit corpus of ${formatSize(options.auditSize)} ...`,
  );
  const corpus = await ensureCorpus(options.dataDir, {
    size: options.auditSize,
    seed: options.seed,
  });
  const argv = [...setup.hook, "audit", corpus.dir, "--json"];
  const runs: Measurement[] = [];
  const count = Math.min(setup.rounds, 3);
  for (let i = 0; i < count; i++) {
    runs.push(await runOnce(argv, "", setup.method));
  }
  const wallMs = median(runs.map((m) => m.wallMs)) ?? NaN;
  const rss = median(
    runs.flatMap((m) => (m.peakRssKiB === null ? [] : [m.peakRssKiB])),
  );
  const mbPerS = corpus.bytes / MIB / (wallMs / 1000);
  console.log(
    `audit: ${corpus.files} files, ${formatSize(corpus.bytes)} in ${
      fixed(wallMs, 0)
    } ms = ${fixed(mbPerS, 1)} MiB/s, peak RSS ${
      fixed(rss === null ? null : rss / 1024, 1)
    } MiB, exit ${runs[0]?.code} (median of ${count})`,
  );
}

/** Describes the machine's load, with a warning when wall times will be noisy. */
function loadNote(): string {
  const cpus = navigator.hardwareConcurrency;
  try {
    const [load = 0] = Deno.loadavg(); // needs --allow-sys=loadavg
    const busy = load > cpus * 0.5;
    return `load average ${load.toFixed(2)} on ${cpus} CPUs${
      busy ? " (busy: wall times are unreliable, RSS is not affected)" : ""
    }`;
  } catch {
    return `${cpus} CPUs, load average unknown`;
  }
}

async function main(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (!options) {
    console.log(USAGE);
    return;
  }
  const setup = await buildSetup(options);
  console.log(
    `method: ${setup.method}; rounds: ${setup.rounds}; deno ${Deno.version.deno}`,
  );
  console.log(`before: ${loadNote()}`);
  console.log(`hook:  ${setup.hook.join(" ")}`);
  console.log(`floor: ${setup.floor.join(" ")}`);
  const rows: Row[] = [];
  for (const size of options.sizes) {
    for (const tail of TAILS) {
      console.error(`preparing ${formatSize(size)} ${tail} ...`);
      const path = await ensureTranscript(options.dataDir, {
        size,
        seed: options.seed,
        tail,
      });
      rows.push(await benchCase(setup, { size, tail, path }));
    }
  }
  printTable(rows);
  console.log(`after: ${loadNote()}`);
  await benchAudit(setup, options);
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (e) {
    console.error(`hook_bench: ${e instanceof Error ? e.message : e}`);
    Deno.exit(1);
  }
}
