/**
 * Property-based hardening of the transcript scanner: the bundled fixtures,
 * damaged the way real files get damaged and the way hostile input would be,
 * through the readers, `scanCurrentTurn` (on real temp files) and
 * `detectStalls`. Nothing may throw, hang or depend on chance, and damage
 * that carries no information must not change the verdict.
 *
 * Run longer with `STALL_WATCH_FUZZ_RUNS=2000 deno task test`.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  classifyTurn,
  STALL_KINDS,
  type StallSignature,
} from "../../src/detection/classify.ts";
import { detectStalls } from "../../src/detection/detect.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";
import { lineEntries } from "../../src/transcript/line_entries.ts";
import {
  type LineReaderOptions,
  type RawLine,
  readLinesBackward,
  readLinesForward,
} from "../../src/transcript/line_reader.ts";
import {
  scanCurrentTurn,
  type TurnScan,
} from "../../src/transcript/tail_scan.ts";
import { BackwardTurnCollector } from "../../src/transcript/_backward_turn.ts";
import { faultyFile, type FileFault } from "../support/faulty_file.ts";
import {
  applyMutations,
  type FixtureTranscript,
  fixtureTranscripts,
  fuzzParameters,
  joinLines,
  junkBytes,
  mutations,
  splitLines,
} from "../support/fuzz.ts";
import { memoryFile } from "../support/memory_file.ts";
import { tempTranscript } from "../support/temp_project.ts";

/** A scan of a few MB must never take longer than this, even on slow CI. */
const SCAN_BOUND_MS = 2000;

const corpus = fixtureTranscripts();
const smallCorpus = fixtureTranscripts(100_000);
const fixture = fc.constantFrom(...corpus);
const smallFixture = fc.constantFrom(...smallCorpus);

/** Reader tuning far from the defaults, to move chunk and clip boundaries. */
const readerOptions: fc.Arbitrary<LineReaderOptions> = fc.oneof(
  fc.constant({}),
  fc.integer({ min: 64, max: 2 << 20 }).chain((maxLineBytes) =>
    fc.record({
      chunkBytes: fc.integer({ min: 512, max: 70_000 }),
      maxLineBytes: fc.constant(maxLineBytes),
      keepBytes: fc.integer({ min: 1, max: maxLineBytes }),
    })
  ),
);

function turnOptions(fx: FixtureTranscript) {
  return { promptId: fx.promptId, includeSidechains: fx.subagent };
}

/** Scan plus verdict, as plain data for deep comparison. */
async function judge(
  path: string,
  fx: FixtureTranscript,
  options: LineReaderOptions = {},
): Promise<{ scan: TurnScan; signatures: StallSignature[] }> {
  const scan = await scanCurrentTurn(path, { ...turnOptions(fx), ...options });
  assert.ok(scan, "the file exists");
  const verdict = classifyTurn(scan.entries, { backgroundTasks: [] });
  return { scan, signatures: verdict.signatures };
}

/** The hook's detection on `path`, as the payload for `fx` would ask. */
async function detect(path: string, fx: FixtureTranscript) {
  const input = readStopPayload(JSON.stringify({
    session_id: "fuzz",
    transcript_path: path,
    hook_event_name: fx.subagent ? "SubagentStop" : "Stop",
    ...(fx.subagent ? { agent_transcript_path: path } : {}),
    ...(fx.promptId ? { prompt_id: fx.promptId } : {}),
  })).input();
  const detection = await detectStalls(input, {
    lagWaitMs: 0,
    sleep: () => Promise.resolve(),
  });
  return detection.signatures;
}

function isLineStart(bytes: Uint8Array, offset: number): boolean {
  return offset === 0 || bytes[offset - 1] === 0x0a;
}

Deno.test("scanCurrentTurn() on damaged fixtures never throws, is deterministic, bounded and well-formed", async () => {
  await using transcript = await tempTranscript("", "transcript.jsonl");
  await fc.assert(
    fc.asyncProperty(
      fixture,
      mutations,
      readerOptions,
      async (fx, list, options) => {
        const bytes = applyMutations(fx.bytes, list);
        await Deno.writeFile(transcript.path, bytes);
        const started = performance.now();
        const first = await judge(transcript.path, fx, options);
        const elapsed = performance.now() - started;
        assert.ok(
          elapsed < SCAN_BOUND_MS,
          `scan took ${elapsed.toFixed(0)} ms`,
        );
        assert.deepEqual(await judge(transcript.path, fx, options), first);

        const { scan, signatures } = first;
        assert.equal(scan.fileSize, bytes.length);
        assert.ok(scan.bytesScanned <= scan.fileSize);
        let previous = -1;
        for (const entry of scan.entries) {
          assert.ok(entry.offset >= previous, "entries in file order");
          previous = entry.offset;
          assert.ok(isLineStart(bytes, entry.offset), "at a line start");
          assert.ok(
            bytes.indexOf(0x0a, entry.offset) >= 0,
            "only complete lines are read",
          );
          if (!fx.subagent) assert.equal(entry.sidechain, false);
          assert.notEqual(entry.kind, "prompt", "a turn holds no prompt");
        }
        const offsets = new Set(scan.entries.map((e) => e.offset));
        for (const s of signatures) {
          assert.ok(STALL_KINDS.includes(s.kind));
          assert.ok(offsets.has(s.offset), "a signature points at its entry");
        }
      },
    ),
    fuzzParameters(120),
  );
});

Deno.test("scanCurrentTurn() treats a file cut mid-line like the same file cut at the line's start", async () => {
  await using transcript = await tempTranscript("", "transcript.jsonl");
  await fc.assert(
    fc.asyncProperty(
      fixture,
      fc.option(mutations, { nil: undefined }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      async (fx, list, where) => {
        const bytes = list ? applyMutations(fx.bytes, list) : fx.bytes;
        const cut = Math.floor(where * bytes.length);
        // (lastIndexOf with a negative start would search the whole array)
        const lineEnd = cut === 0 ? 0 : bytes.lastIndexOf(0x0a, cut - 1) + 1;
        await Deno.writeFile(transcript.path, bytes.subarray(0, cut));
        const { scan: mid, signatures } = await judge(transcript.path, fx);
        await Deno.writeFile(transcript.path, bytes.subarray(0, lineEnd));
        const { scan: atStart, signatures: expected } = await judge(
          transcript.path,
          fx,
        );
        assert.deepEqual(mid.entries, atStart.entries);
        assert.equal(mid.reachedStart, atStart.reachedStart);
        assert.deepEqual(signatures, expected);
      },
    ),
    fuzzParameters(100),
  );
});

/** Every entry of `bytes` read from the start, with 1-based line numbers. */
async function forwardEntries(bytes: Uint8Array): Promise<Entry[]> {
  const entries: Entry[] = [];
  for await (const raw of readLinesForward(memoryFile(bytes))) {
    entries.push(...lineEntries(raw, raw.line));
  }
  return entries;
}

/** What the classifier says about the current turn of the first `k` lines. */
function verdictOnPrefix(
  entries: readonly Entry[],
  k: number,
  fx: FixtureTranscript,
) {
  const collector = new BackwardTurnCollector(turnOptions(fx));
  const prefix = entries.filter((e) => e.line <= k);
  let settled = false;
  for (let i = prefix.length - 1; i >= 0 && !settled; i--) {
    settled = collector.offer(prefix[i] as Entry);
  }
  if (!settled) collector.fileStart();
  // As scanCurrentTurn() does, entries found behind the prompt included.
  const turn = collector.entries();
  return classifyTurn(turn, { backgroundTasks: [], subagent: fx.subagent })
    .signatures;
}

const comparable = (s: StallSignature) => ({
  kind: s.kind,
  toolName: s.toolName,
  toolUseId: s.toolUseId,
  offset: s.offset,
  line: s.line,
});

Deno.test("detectStalls() on a fixture cut after line k agrees with the classifier on the first k lines read forward", async () => {
  // Two independent paths: backward chunked reading with an early stop and
  // a separate line count, against one forward pass that numbers lines.
  const oracle = new Map<FixtureTranscript, Promise<Entry[]>>();
  await using transcript = await tempTranscript("", "transcript.jsonl");
  await fc.assert(
    fc.asyncProperty(
      fixture,
      fc.double({ min: 0, max: 1, noNaN: true }),
      async (fx, where) => {
        if (!oracle.has(fx)) oracle.set(fx, forwardEntries(fx.bytes));
        const entries = await (oracle.get(fx) as Promise<Entry[]>);
        const { lines } = splitLines(fx.bytes);
        const k = Math.round(where * lines.length);
        await Deno.writeFile(
          transcript.path,
          joinLines(lines.slice(0, k), new Uint8Array()),
        );
        const expected = verdictOnPrefix(entries, k, fx);
        assert.deepEqual(
          (await detect(transcript.path, fx)).map(comparable),
          expected.map(comparable),
          `${fx.name} cut after line ${k}`,
        );
      },
    ),
    fuzzParameters(150),
  );
});

Deno.test("detectStalls() ignores junk lines anywhere and CRLF line ends", async () => {
  const identity = (s: StallSignature) => [s.kind, s.toolName, s.toolUseId];
  await using transcript = await tempTranscript("", "transcript.jsonl");
  await fc.assert(
    fc.asyncProperty(
      fixture,
      fc.array(fc.record({ line: fc.nat(), bytes: junkBytes }), {
        maxLength: 8,
      }),
      fc.boolean(),
      async (fx, junk, crlf) => {
        await Deno.writeFile(transcript.path, fx.bytes);
        const expected = await detect(transcript.path, fx);
        const { lines, tail } = splitLines(fx.bytes);
        for (const { line, bytes } of junk) {
          lines.splice(line % (lines.length + 1), 0, bytes);
        }
        const damaged = crlf
          ? lines.map((l) => Uint8Array.from([...l, 0x0d]))
          : lines;
        await Deno.writeFile(transcript.path, joinLines(damaged, tail));
        const got = await detect(transcript.path, fx);
        assert.deepEqual(got.map(identity), expected.map(identity));
        if (junk.length === 0) {
          assert.deepEqual(
            got.map((s) => s.line),
            expected.map((s) => s.line),
            "CRLF keeps line numbers",
          );
        }
      },
    ),
    fuzzParameters(80),
  );
});

function copyLine<T extends RawLine>(line: T): T {
  return { ...line, head: line.head.slice(), tail: line.tail.slice() };
}

async function readAll<T extends RawLine>(
  lines: AsyncGenerator<T>,
): Promise<T[]> {
  const out: T[] = [];
  for await (const line of lines) out.push(copyLine(line));
  return out;
}

Deno.test("line readers agree on damaged fixtures for any chunking, clipping and short reads", async () => {
  await fc.assert(
    fc.asyncProperty(
      smallFixture,
      mutations,
      readerOptions,
      fc.integer({ min: 256, max: 70_000 }),
      async (fx, list, options, maxRead) => {
        const bytes = applyMutations(fx.bytes, list);
        const back = await readAll(
          readLinesBackward(memoryFile(bytes, maxRead), bytes.length, options),
        );
        const fwd = await readAll(
          readLinesForward(memoryFile(bytes, maxRead), options),
        );
        assert.deepEqual(
          back.reverse(),
          fwd.map(({ line: _, ...rest }) => rest),
        );
        assert.equal(fwd.length, splitLines(bytes).lines.length);
      },
    ),
    fuzzParameters(100),
  );
});

const fault: fc.Arbitrary<FileFault> = fc.oneof(
  fc.record({
    kind: fc.constant("shrink" as const),
    afterReads: fc.nat({ max: 40 }),
    to: fc.oneof(fc.constant(0), fc.nat()),
  }),
  fc.record({
    kind: fc.constant("fail" as const),
    afterReads: fc.nat({ max: 40 }),
    error: fc.constant(new Error("Input/output error (os error 5)")),
  }),
);

Deno.test("readLinesBackward() survives a transcript truncated, deleted or failing while it is read", async () => {
  await fc.assert(
    fc.asyncProperty(
      smallFixture,
      fault,
      fc.integer({ min: 64, max: 8192 }),
      fc.integer({ min: 1, max: 8192 }),
      async (fx, fault, chunkBytes, maxRead) => {
        const original = fx.bytes;
        const file = faultyFile(original, fault, maxRead);
        const reading = readAll(
          readLinesBackward(file, original.length, { chunkBytes }),
        );
        if (fault.kind === "fail") {
          // The error surfaces (scanCurrentTurn turns it into one line); it
          // is never swallowed into a verdict on half-read data. A fault
          // after the last read cannot show.
          const reads = Math.ceil(
            original.length / Math.min(chunkBytes, maxRead),
          );
          const outcome = await reading.then(() => null, (e) => e);
          if (fault.afterReads < reads) assert.equal(outcome, fault.error);
          return;
        }
        const lines = await reading;
        assert.ok(lines.length <= splitLines(original).lines.length);
        let next = original.length + 1;
        for (const line of lines) {
          // Lines end at a real newline, never overlap, and hold original
          // bytes or the blanks that stand in for bytes that vanished.
          assert.equal(original[line.offset + line.length], 0x0a);
          assert.ok(line.offset + line.length < next);
          next = line.offset;
          line.head.forEach((b, i) =>
            assert.ok(b === original[line.offset + i] || b === 0x20)
          );
        }
        const collector = new BackwardTurnCollector(turnOptions(fx));
        for (const line of lines) {
          // As scanCurrentTurn does: a line's entries, newest first.
          const entries = lineEntries(line).reverse();
          if (entries.some((e) => collector.offer(e))) break;
        }
        const verdict = classifyTurn(collector.entries(), {
          backgroundTasks: [],
        });
        assert.equal(typeof verdict.reason, "string");
      },
    ),
    fuzzParameters(200),
  );
});
