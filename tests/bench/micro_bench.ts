/**
 * Micro-benchmarks of the hook's inner loops, in-process (no start-up cost):
 * the backward line reader over the tail of a 100 MiB transcript, the
 * forward reader over all of it (the audit's pass), parsing the final turn's
 * lines into entries, and the classifier on a typical turn.
 *
 * ```sh
 * deno bench --allow-read --allow-write tests/bench/micro_bench.ts
 * ```
 *
 * The transcripts are generated on first use and cached in `bench-data/`.
 *
 * @module
 */

import { fileURLToPath } from "node:url";
import { classifyTurn } from "../../src/detection/classify.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { lineEntries } from "../../src/transcript/line_entries.ts";
import {
  readLinesBackward,
  readLinesForward,
} from "../../src/transcript/line_reader.ts";
import type { RawLine } from "../../src/transcript/line_reader.ts";
import { BackwardTurnCollector } from "../../src/transcript/_backward_turn.ts";
import { ensureTranscript } from "./bench_data.ts";
import { behindReason } from "../../src/detection/_lag_evidence.ts";
import {
  scanCurrentTurn,
  type TurnScan,
} from "../../src/transcript/tail_scan.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";
import type { Tail } from "./gen_transcript.ts";

const DATA_DIR = fileURLToPath(new URL("../../bench-data", import.meta.url));
const SIZE = 100 << 20;
const SEED = 42;
const TAIL_LINES = 64;
const TAIL_BYTES = 8 << 20;

const paths: Record<Tail, string> = {
  healthy: await ensureTranscript(DATA_DIR, {
    size: SIZE,
    seed: SEED,
    tail: "healthy",
  }),
  stalled: await ensureTranscript(DATA_DIR, {
    size: SIZE,
    seed: SEED,
    tail: "stalled",
  }),
};

/** Calls `fn` on lines read newest first until it returns true. */
async function backward(
  path: string,
  fn: (raw: RawLine) => boolean,
): Promise<void> {
  using file = await Deno.open(path);
  const size = (await file.stat()).size;
  for await (const raw of readLinesBackward(file, size)) {
    if (fn(raw)) break;
  }
}

/** The final turn's raw lines, newest first, as the hook reads them. */
async function finalTurnLines(path: string): Promise<RawLine[]> {
  const lines: RawLine[] = [];
  const collector = new BackwardTurnCollector({
    promptId: null,
    includeSidechains: false,
  });
  await backward(path, (raw) => {
    lines.push({ ...raw, head: raw.head.slice(), tail: raw.tail.slice() });
    return lineEntries(raw).toReversed().some((e) => collector.offer(e));
  });
  return lines;
}

/** The final turn's entries in file order (prompt excluded). */
function turnOf(lines: readonly RawLine[]): Entry[] {
  const collector = new BackwardTurnCollector({
    promptId: null,
    includeSidechains: false,
  });
  for (const raw of lines) {
    if (lineEntries(raw).toReversed().some((e) => collector.offer(e))) break;
  }
  return collector.entries();
}

const stalledSize = (await Deno.stat(paths.stalled)).size;
const turnLines: Record<Tail, RawLine[]> = {
  healthy: await finalTurnLines(paths.healthy),
  stalled: await finalTurnLines(paths.stalled),
};
const turns: Record<Tail, Entry[]> = {
  healthy: turnOf(turnLines.healthy),
  stalled: turnOf(turnLines.stalled),
};

Deno.bench({
  name: `readLinesBackward: last ${TAIL_LINES} lines of 100 MiB`,
  group: "reader",
  baseline: true,
  async fn() {
    let n = 0;
    await backward(paths.stalled, () => ++n >= TAIL_LINES);
  },
});

Deno.bench({
  name: "readLinesBackward: last 8 MiB of 100 MiB",
  group: "reader",
  async fn() {
    await backward(
      paths.stalled,
      (raw) => stalledSize - raw.offset >= TAIL_BYTES,
    );
  },
});

Deno.bench({
  name: "readLinesForward: all of 100 MiB",
  group: "reader",
  n: 5,
  warmup: 1,
  async fn() {
    using file = await Deno.open(paths.healthy);
    let lines = 0;
    for await (const _ of readLinesForward(file)) lines++;
    if (lines === 0) throw new Error("no lines");
  },
});

for (const tail of ["healthy", "stalled"] as const) {
  Deno.bench({
    name: `lineEntries: final turn (${tail}, ${turnLines[tail].length} lines)`,
    group: "parse",
    fn() {
      for (const raw of turnLines[tail]) lineEntries(raw);
    },
  });

  Deno.bench({
    name: `classifyTurn: final turn (${tail}, ${turns[tail].length} entries)`,
    group: "classify",
    fn() {
      classifyTurn(turns[tail], { backgroundTasks: [] });
    },
  });
}

/**
 * One model message of 45,000 text lines (within the entries budget), then
 * its call: answered (the classifier reads the message's text before the
 * call) or not (the lag evidence compares `last_assistant_message` with
 * it). Each reader collects the message's lines newest first; an
 * `unshift` per line made both quadratic (`deno task bench:micro`, 45K
 * lines, one run at load about 7: 135.7 ms and 100.8 ms before, 22.9 ms
 * and 9.9 ms after; issue 41).
 */
async function longMessageTurn(answered: boolean): Promise<TurnScan> {
  const t = new TranscriptBuilder("bench");
  t.prompt("Plan the release.");
  for (let i = 0; i < 45_000; i++) {
    t.text("msg_1", `step ${i}: checked the module and its tests.`);
  }
  t.call("msg_1", "toolu_todo", "TodoWrite");
  if (answered) t.result("toolu_todo", "Todos updated");
  const path = await Deno.makeTempFile({ suffix: ".jsonl" });
  try {
    await Deno.writeTextFile(path, t.toString());
    const scan = await scanCurrentTurn(path, {
      promptId: null,
      includeSidechains: false,
    });
    if (scan === null) throw new Error("no turn");
    return scan;
  } finally {
    await Deno.remove(path);
  }
}

const longAnswered = await longMessageTurn(true);
const longPending = await longMessageTurn(false);

Deno.bench({
  name: "classifyTurn: a call after 45K text lines of its message, answered",
  group: "long message",
  baseline: true,
  fn() {
    classifyTurn(longAnswered.entries, { backgroundTasks: [] });
  },
});

Deno.bench({
  name:
    "behindReason: a pending call after 45K text lines of its message, last_assistant_message set",
  group: "long message",
  fn() {
    behindReason(longPending, {
      promptId: null,
      lastAssistantMessage: "Done.",
      payloadSendsLastMessage: true,
    }, ["pending_tool_use"]);
  },
});
