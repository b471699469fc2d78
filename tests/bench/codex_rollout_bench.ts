/**
 * `deno task bench:codex`: the Codex rollout reader on adversarial
 * rollouts, against the Stop decision's targets of `bench:worst` (1.5 s
 * wall, 160 MiB peak RSS, whatever the input): each row one process
 * (`codex_rollout_driver.ts`: the current turn read from the end and
 * judged), the `deno run` floor beside it; then the forward history
 * reader's throughput (`audit`, `scan --all-turns`) on a 100 MiB rollout.
 *
 * ```sh
 * deno run --allow-read --allow-write --allow-run --allow-env --allow-sys=loadavg tests/bench/codex_rollout_bench.ts [--rounds 3]
 * ```
 *
 * @module
 */

import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { detectMethod, measure, type Measurement } from "./measure.ts";
import { fixed, median, renderTable } from "./table.ts";
import { RSS_TARGET_MIB, WALL_TARGET_MS } from "./worst_bench.ts";
import { readRolloutTurns } from "../../src/codex/rollout_history.ts";

const DRIVER = fileURLToPath(
  new URL("./codex_rollout_driver.ts", import.meta.url),
);
const MIB = 1024 * 1024;
const TURN = "01a249d3-bd82-7772-9b60-3222362a34ec";
const TS = "2026-12-06T05:28:52.125Z";

interface Input {
  name: string;
  what: string;
  path: string;
}

const line = (type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: TS, ordinal: 1, type, payload }) + "\n";
const started = line("event_msg", { type: "task_started", turn_id: TURN });
const stamp = { internal_chat_message_metadata_passthrough: { turn_id: TURN } };
const call = (id: string) =>
  line("response_item", {
    type: "function_call",
    name: "exec_command",
    arguments: '{"cmd":"ls"}',
    call_id: id,
    ...stamp,
  });
const output = (id: string, text: string) =>
  line("response_item", {
    type: "function_call_output",
    call_id: id,
    output:
      "Chunk ID: 1\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\n" +
      text,
    ...stamp,
  });

/** Writes `size` bytes of whole turns: calls, outputs, words, token counts. */
function writeHistory(path: string, size: number, turns: number): void {
  const file = Deno.openSync(path, {
    write: true,
    create: true,
    truncate: true,
  });
  const enc = new TextEncoder();
  let written = 0;
  let n = 0;
  const perTurn = Math.max(1, Math.floor(size / turns));
  try {
    while (written < size) {
      const id = `t${n}`;
      let turn = line("event_msg", { type: "task_started", turn_id: id });
      while (turn.length < perTurn) {
        const c = `call_${n}_${turn.length}`;
        turn += call(c).replace(TURN, id) +
          output(c, "x".repeat(2000) + "\n").replace(TURN, id) +
          line("event_msg", { type: "token_count", info: { total: n } });
      }
      turn += line("event_msg", { type: "task_complete", turn_id: id });
      const bytes = enc.encode(turn);
      file.writeSync(bytes);
      written += bytes.length;
      n++;
    }
  } finally {
    file.close();
  }
}

function writeInputs(dir: string): Input[] {
  const enc = new TextEncoder();
  const inputs: Input[] = [];
  // 1. A last turn of 100 MiB: calls and outputs all answered but the last.
  const longTurn = `${dir}/long_turn.jsonl`;
  {
    const file = Deno.openSync(longTurn, { write: true, create: true });
    file.writeSync(enc.encode(started));
    const chunk = enc.encode(
      Array.from(
        { length: 200 },
        (_, i) => call(`c${i}`) + output(`c${i}`, "y".repeat(400) + "\n"),
      ).join(""),
    );
    for (let w = 0; w < 100 * MIB; w += chunk.length) file.writeSync(chunk);
    file.writeSync(enc.encode(call("last") + output("last", "")));
    file.close();
  }
  inputs.push({
    name: "codex_turn_100mib",
    what: "one turn of 100 MiB (120,000 answered calls), the last output empty",
    path: longTurn,
  });
  // 2. One output line of 300 MiB (sparse: NUL bytes inside a JSON string).
  const hugeLine = `${dir}/huge_line.jsonl`;
  {
    const file = Deno.openSync(hugeLine, { write: true, create: true });
    file.writeSync(enc.encode(started + call("big")));
    const head = output("big", "").slice(0, -2); // keep the string open
    file.writeSync(enc.encode(head));
    const at = file.seekSync(0, Deno.SeekMode.Current);
    file.truncateSync(at + 300 * MIB);
    file.seekSync(0, Deno.SeekMode.End);
    file.writeSync(enc.encode('"}}\n'));
    file.close();
  }
  inputs.push({
    name: "codex_output_line_300mib",
    what: "a call's output line of 300 MiB (sparse), no reply",
    path: hugeLine,
  });
  // 3. 1 GiB without a newline (sparse).
  const noNewline = `${dir}/no_newline.jsonl`;
  {
    const file = Deno.openSync(noNewline, { write: true, create: true });
    file.writeSync(enc.encode(started));
    file.truncateSync(1024 * MIB);
    file.close();
  }
  inputs.push({
    name: "codex_1gib_no_newline",
    what: "1 GiB after the turn's start without a newline (sparse)",
    path: noNewline,
  });
  // 4. 2.5 million tiny lines after the start.
  const tiny = `${dir}/tiny_lines.jsonl`;
  {
    const file = Deno.openSync(tiny, { write: true, create: true });
    file.writeSync(enc.encode(started + call("t")));
    const chunk = enc.encode("{}\n".repeat(100_000));
    for (let i = 0; i < 25; i++) file.writeSync(chunk);
    file.close();
  }
  inputs.push({
    name: "codex_2_5m_tiny_lines",
    what: "2.5 million `{}` lines after a call",
    path: tiny,
  });
  return inputs;
}

async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { rounds: { type: "string", default: "3" } },
  });
  const rounds = Number(values.rounds);
  const method = await detectMethod();
  const dir = await Deno.makeTempDir({ prefix: "stall_watch_codex_bench_" });
  try {
    const empty = `${dir}/empty.ts`;
    await Deno.writeTextFile(empty, "");
    console.error("writing inputs ...");
    const inputs = writeInputs(dir);
    const rows: string[][] = [];
    for (const input of inputs) {
      console.error(`running ${input.name} ...`);
      const runs: Measurement[] = [];
      const floors: Measurement[] = [];
      const stdin = JSON.stringify({
        transcript_path: input.path,
        turn_id: TURN,
      });
      for (let r = 0; r < rounds; r++) {
        const spec = { cwd: dir, env: {}, stdin, timeoutMs: 60_000 };
        floors.push(
          await measure({
            ...spec,
            argv: [Deno.execPath(), "run", "--allow-read", empty],
          }, method),
        );
        runs.push(
          await measure({
            ...spec,
            argv: [Deno.execPath(), "run", "--allow-read", DRIVER],
          }, method),
        );
      }
      const wall = median(runs.map((m) => m.wallMs)) ?? NaN;
      const kib = median(runs.flatMap((m) => m.peakRssKiB ?? []));
      const rss = kib === null ? null : kib / 1024;
      const ok = !runs.some((m) => m.timedOut) && wall <= WALL_TARGET_MS &&
        (rss === null || rss <= RSS_TARGET_MIB);
      rows.push([
        input.name,
        fixed(wall, 0),
        fixed(median(floors.map((m) => m.wallMs)), 0),
        fixed(rss, 1),
        ok ? "PASS" : "MISS",
        (runs.at(-1)?.stderr || "").split("\n")[0] ?? "",
      ]);
    }
    console.log(
      `method: ${method}; rounds: ${rounds}; deno ${Deno.version.deno}`,
    );
    console.log(renderTable([
      ["input", "wall ms", "floor ms", "RSS MiB", "target", "stderr"],
      ...rows,
    ]));
    console.log(
      `targets: wall <= ${WALL_TARGET_MS} ms, peak RSS <= ${RSS_TARGET_MIB} MiB`,
    );
    for (const input of inputs) console.log(`- ${input.name}: ${input.what}`);
    // The history reader's throughput.
    const history = `${dir}/history.jsonl`;
    writeHistory(history, 100 * MIB, 400);
    const times: number[] = [];
    let turns = 0;
    for (let r = 0; r < rounds; r++) {
      using file = await Deno.open(history);
      const t0 = performance.now();
      turns = 0;
      for await (const _ of readRolloutTurns(file)) turns++;
      times.push(performance.now() - t0);
    }
    const ms = median(times) ?? NaN;
    console.log(
      `history: 100 MiB, ${turns} turns read forward in ${fixed(ms, 0)} ms (${
        fixed(100 / (ms / 1000), 0)
      } MiB/s)`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

if (import.meta.main) await main(Deno.args);
