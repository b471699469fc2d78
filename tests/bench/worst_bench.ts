/**
 * `deno task bench:worst`: one Stop decision per adversarial input (see
 * `worst_inputs.ts`), each a whole hook process, against the targets of
 * issue 14: at most 1.5 s wall and 160 MiB peak RSS, whatever the input.
 *
 * Per row it prints the median over `--rounds` runs of wall time and peak
 * RSS, the exit code and the first stderr line of the last run; the
 * `deno run` floor (an empty script, same flags) is measured in the same
 * run, alternating with the hook. Peak RSS is the kernel's high-water mark
 * of the child (`wait4` `ru_maxrss`, or GNU `time`; see `measure.ts`). A run
 * still going after `--timeout` seconds is killed and shown as such.
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=loadavg tests/bench/worst_bench.ts [--rounds 3] [--gb] [--only NAME]
 * ```
 *
 * Inputs are written to a temporary folder and removed afterwards (the
 * sparse files take no disk space); `--gb` adds the 1 GiB stalled
 * transcript of `deno task bench` (cached in `bench-data/`) and compares
 * it with `wc -l` of the same file.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import { ensureTranscript } from "./bench_data.ts";
import { detectMethod, measure } from "./measure.ts";
import type { Measurement, Method } from "./measure.ts";
import { fixed, median, renderTable } from "./table.ts";
import {
  GROWTH_LINE,
  type WorstInput,
  writeWorstInputs,
} from "./worst_inputs.ts";

/** Every Stop decision within this wall time... */
export const WALL_TARGET_MS = 1500;
/** ...and this peak resident memory. */
export const RSS_TARGET_MIB = 160;

const REPO = fileURLToPath(new URL("../../", import.meta.url));

interface Options {
  rounds: number;
  gb: boolean;
  timeoutMs: number;
  only: string | null;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    options: {
      rounds: { type: "string", default: "3" },
      gb: { type: "boolean", default: false },
      timeout: { type: "string", default: "60" },
      only: { type: "string" },
    },
  });
  const rounds = Number(values.rounds);
  const timeout = Number(values.timeout);
  if (!Number.isSafeInteger(rounds) || rounds < 1) {
    throw new RangeError(`Cannot parse --rounds: "${values.rounds}"`);
  }
  if (!(timeout > 0)) {
    throw new RangeError(`Cannot parse --timeout: "${values.timeout}"`);
  }
  return {
    rounds,
    gb: values.gb,
    timeoutMs: timeout * 1000,
    only: values.only ?? null,
  };
}

/** One run of `argv` on `input` in a fresh start directory. */
async function runOnce(
  argv: readonly string[],
  input: WorstInput,
  method: Method,
  timeoutMs: number,
): Promise<Measurement> {
  const cwd = await Deno.makeTempDir({ prefix: "stall_watch_worst_" });
  const grower = input.growEveryMs === undefined
    ? null
    : Deno.openSync(input.transcript, { append: true });
  const sizeBefore = Deno.statSync(input.transcript).size;
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    await input.prepareCwd?.(cwd);
    const stdin = JSON.stringify({
      ...input.payload,
      transcript_path: input.transcript,
      cwd,
    });
    const line = new TextEncoder().encode(GROWTH_LINE);
    if (grower) {
      let size = sizeBefore;
      const grow = input.growBytes === undefined
        ? () => grower.writeSync(line)
        : () => grower.truncateSync(size += input.growBytes!);
      timer = setInterval(grow, input.growEveryMs);
    }
    return await measure(
      { argv, cwd, env: input.env, stdin, timeoutMs },
      method,
    );
  } finally {
    clearInterval(timer);
    // A hole is undone, so every round starts from the same file.
    if (input.growBytes !== undefined) grower?.truncateSync(sizeBefore);
    grower?.close();
    await Deno.remove(cwd, { recursive: true });
  }
}

interface Row {
  input: WorstInput;
  runs: Measurement[];
  floors: Measurement[];
  /** `wc -l` of the transcript, when the input asks for it. */
  wcMs: number[];
}

async function benchInput(
  input: WorstInput,
  argv: { hook: string[]; floor: string[] },
  method: Method,
  options: Options,
): Promise<Row> {
  const runs: Measurement[] = [];
  const floors: Measurement[] = [];
  const wcMs: number[] = [];
  if (input.compareWc) await wcLines(input.transcript); // page cache
  for (let r = 0; r < options.rounds; r++) {
    if (r % 2 === 0) {
      floors.push(await runOnce(argv.floor, input, method, options.timeoutMs));
    }
    runs.push(await runOnce(argv.hook, input, method, options.timeoutMs));
    if (r % 2 === 1) {
      floors.push(await runOnce(argv.floor, input, method, options.timeoutMs));
    }
    const wc = input.compareWc ? await wcLines(input.transcript) : null;
    if (wc !== null) wcMs.push(wc);
  }
  return { input, runs, floors, wcMs };
}

function rssMiB(runs: readonly Measurement[]): number | null {
  const kib = median(
    runs.flatMap((m) => m.peakRssKiB === null ? [] : [m.peakRssKiB]),
  );
  return kib === null ? null : kib / 1024;
}

function cells(row: Row): string[] {
  const wall = median(row.runs.map((m) => m.wallMs)) ?? NaN;
  const floor = median(row.floors.map((m) => m.wallMs)) ?? NaN;
  const rss = rssMiB(row.runs);
  const timedOut = row.runs.some((m) => m.timedOut);
  const codes = [...new Set(row.runs.map((m) => m.code))].join("/");
  const last = row.runs.at(-1);
  const line = (last?.stderr ?? "").split("\n")[0] ?? "";
  const ok = !timedOut && wall <= WALL_TARGET_MS &&
    (rss === null || rss <= RSS_TARGET_MIB);
  return [
    row.input.name,
    timedOut ? "killed" : codes,
    timedOut ? `>${fixed(wall, 0)}` : fixed(wall, 0),
    fixed(floor, 0),
    fixed(rss, 1),
    ok ? "PASS" : "MISS",
    line.length > 90 ? `${line.slice(0, 89)}…` : line,
  ];
}

async function wcLines(path: string): Promise<number | null> {
  try {
    const t0 = performance.now();
    const out = await new Deno.Command("wc", {
      args: ["-l", path],
      stdout: "null",
    }).output();
    return out.success ? performance.now() - t0 : null;
  } catch {
    return null;
  }
}

function loadAverage(): string {
  try {
    return Deno.loadavg()[0]?.toFixed(2) ?? "?";
  } catch {
    return "?";
  }
}

async function main(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const method = await detectMethod();
  const dir = await Deno.makeTempDir({ prefix: "stall_watch_worst_inputs_" });
  try {
    const deno = Deno.execPath();
    const empty = `${dir}/empty.ts`;
    await Deno.writeTextFile(empty, "");
    const argv = {
      hook: [deno, "run", ...HOOK_PERMISSION_FLAGS, `${REPO}main.ts`],
      floor: [deno, "run", ...HOOK_PERMISSION_FLAGS, empty],
    };
    const gbTranscript = options.gb
      ? await ensureTranscript(`${REPO}bench-data`, {
        size: 1024 * 1024 * 1024,
        seed: 42,
        tail: "stalled",
      })
      : null;
    console.error("writing inputs ...");
    const inputs = writeWorstInputs(dir, { gbTranscript }).filter((i) =>
      options.only === null || i.name.includes(options.only)
    );
    console.log(
      `method: ${method}; rounds: ${options.rounds}; deno ${Deno.version.deno}; ` +
        `load ${loadAverage()} on ${navigator.hardwareConcurrency} CPUs`,
    );
    const rows: Row[] = [];
    for (const input of inputs) {
      console.error(`running ${input.name} ...`);
      rows.push(await benchInput(input, argv, method, options));
    }
    console.log(renderTable([
      ["input", "exit", "wall ms", "floor ms", "RSS MiB", "target", "stderr"],
      ...rows.map(cells),
    ]));
    console.log(
      `targets: wall <= ${WALL_TARGET_MS} ms, peak RSS <= ${RSS_TARGET_MIB} MiB; load now ${loadAverage()}`,
    );
    for (const row of rows) {
      console.log(`- ${row.input.name}: ${row.input.what}`);
    }
    for (const row of rows) {
      const wc = median(row.wcMs);
      if (wc === null) continue;
      const wall = median(row.runs.map((m) => m.wallMs)) ?? NaN;
      const floor = median(row.floors.map((m) => m.wallMs)) ?? NaN;
      const target = floor + 1.5 * wc;
      console.log(
        `${row.input.name}: ${fixed(wall, 0)} ms; wc -l ${fixed(wc, 0)} ms; ` +
          `target floor + 1.5x wc -l = ${fixed(target, 0)} ms: ${
            wall <= target ? "PASS" : "MISS"
          }`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) {
  try {
    await main(Deno.args);
  } catch (e) {
    console.error(`worst_bench: ${e instanceof Error ? e.message : e}`);
    Deno.exit(1);
  }
}
