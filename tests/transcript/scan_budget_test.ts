/**
 * The tail scan's budgets (bytes, lines, entries) and the line-number pass's
 * byte budget: each cuts off exactly where docs/detection.md says.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type RawLine,
  type ReadableAt,
  readLinesBackward,
} from "../../src/transcript/line_reader.ts";
import {
  DEFAULT_SCAN_BUDGETS,
  scanCurrentTurn,
} from "../../src/transcript/tail_scan.ts";
import { lineNumbersAt } from "../../src/transcript/line_count.ts";
import {
  countWithIndexOf,
  newlineCounter,
} from "../../src/transcript/line_count.ts";
import {
  MAX_LINE_PIECES,
  parseJsonObjects,
} from "../../src/transcript/json_line.ts";
import { memoryFile, utf8 } from "../support/memory_file.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";
import { fuzzParameters } from "../support/fuzz.ts";

/** A memory file that counts the bytes handed out. */
function countingFile(bytes: Uint8Array): ReadableAt & { bytesRead: number } {
  const inner = memoryFile(bytes);
  const file = {
    bytesRead: 0,
    async read(buffer: Uint8Array) {
      const read = await inner.read(buffer);
      file.bytesRead += read ?? 0;
      return read;
    },
    seek: (offset: number, whence: Deno.SeekMode) => inner.seek(offset, whence),
  };
  return file;
}

async function backward(
  file: ReadableAt,
  size: number,
  budgetBytes: number,
): Promise<RawLine[]> {
  const lines: RawLine[] = [];
  for await (
    const line of readLinesBackward(file, size, {
      budgetBytes,
      chunkBytes: 1000,
    })
  ) {
    lines.push({ ...line, head: line.head.slice(), tail: line.tail.slice() });
  }
  return lines;
}

Deno.test("readLinesBackward() reads no more than its byte budget from a file without a newline", async () => {
  const bytes = new Uint8Array(50_000).fill(0x61);
  const file = countingFile(bytes);
  assert.deepEqual(await backward(file, bytes.length, 7_000), []);
  assert.equal(file.bytesRead, 7_000);
});

Deno.test("readLinesBackward() yields only the lines wholly inside the budget", async () => {
  // Lines of 10 bytes + newline: "line00000\n" etc.
  const text = Array.from(
    { length: 100 },
    (_, i) => `line${String(i).padStart(5, "0")}\n`,
  ).join("");
  const bytes = utf8(text);
  const file = countingFile(bytes);
  // 35 bytes from the end: 3 whole lines (30 bytes) and part of a fourth.
  const lines = await backward(file, bytes.length, 35);
  assert.deepEqual(
    lines.map((l) => new TextDecoder().decode(l.head)),
    ["line00099", "line00098", "line00097"],
  );
  assert.equal(file.bytesRead, 35);
});

const TURN = { promptId: null, includeSidechains: false };

Deno.test("scanCurrentTurn() stops at the lines budget, blank lines included", async () => {
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Read the config.");
  t.call("msg_1", "toolu_1", "Read");
  const text = t.toString() + "\n".repeat(10);
  await using transcript = await tempTranscript(text);
  const cut = await scanCurrentTurn(transcript.path, {
    ...TURN,
    budgets: { lines: 10 },
  });
  assert.equal(cut?.budget, "lines");
  assert.equal(cut?.reachedStart, false);
  assert.deepEqual(cut?.entries, []);
  // One more line in the budget reaches the call, two more the prompt.
  const whole = await scanCurrentTurn(transcript.path, {
    ...TURN,
    budgets: { lines: 12 },
  });
  assert.equal(whole?.budget, null);
  assert.equal(whole?.reachedStart, true);
  assert.equal(whole?.entries.length, 1);
});

Deno.test("scanCurrentTurn() counts each tool call and result against the entries budget", async () => {
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Read both files.");
  // One line with 3 calls weighs 4; each result line weighs 2.
  t.assistant(
    "msg_1",
    [1, 2, 3].map((i) => ({
      type: "tool_use",
      id: `toolu_${i}`,
      name: "Read",
      input: {},
    })),
  );
  t.result("toolu_1", "a");
  t.result("toolu_2", "b");
  await using transcript = await tempTranscript(t.toString());
  const cut = await scanCurrentTurn(transcript.path, {
    ...TURN,
    budgets: { entries: 4 },
  });
  assert.equal(cut?.budget, "entries");
  assert.equal(cut?.entries.length, 2, "the two results: weight 4");
  const whole = await scanCurrentTurn(transcript.path, {
    ...TURN,
    budgets: { entries: 9 },
  });
  assert.equal(whole?.budget, null);
  assert.equal(whole?.entries.length, 3);
});

Deno.test("scanCurrentTurn() names the bytes budget when the turn starts before it", async () => {
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Read the config.");
  t.call("msg_1", "toolu_1", "Read");
  const text = t.toString() + "x".repeat(5000) + "\n";
  await using transcript = await tempTranscript(text);
  const cut = await scanCurrentTurn(transcript.path, {
    ...TURN,
    budgets: { bytes: 4000 },
  });
  assert.equal(cut?.budget, "bytes");
  assert.equal(cut?.bytesScanned, 4000);
  const whole = await scanCurrentTurn(transcript.path, TURN);
  assert.equal(whole?.budget, null);
  assert.equal(whole?.reachedStart, true);
});

Deno.test("the default scan budgets are docs/detection.md's: 64 MiB, 250,000 lines, 50,000 entries", () => {
  assert.deepEqual({ ...DEFAULT_SCAN_BUDGETS }, {
    bytes: 64 * 1024 * 1024,
    lines: 250_000,
    entries: 50_000,
  });
});

Deno.test("newlineCounter() counts like an indexOf loop for any bytes and range", () => {
  const counter = newlineCounter(4096);
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 0, maxLength: 4096 }),
      fc.nat(4096),
      fc.nat(4096),
      fc.boolean(),
      (bytes, a, b, dense) => {
        const source = dense ? bytes.map((x) => x % 3 === 0 ? 0x0a : x) : bytes;
        counter.buffer.fill(0);
        counter.buffer.set(source);
        const [from, to] = [Math.min(a, b), Math.max(a, b)];
        assert.equal(
          counter.count(from, to),
          countWithIndexOf(counter.buffer, from, to),
        );
      },
    ),
    fuzzParameters(300),
  );
  // Every byte a newline: more than 255 per lane must not overflow.
  counter.buffer.fill(0x0a);
  assert.equal(counter.count(0, 4096), 4096);
});

Deno.test("lineNumbersAt() numbers offsets within its byte budget and leaves the rest out", async () => {
  const text = "a\nbb\nccc\ndddd\n"; // lines start at 0, 2, 5, 9
  const file = memoryFile(utf8(text), 3);
  const all = await lineNumbersAt(file, [9, 0, 5, 2]);
  assert.deepEqual([...all].sort((x, y) => x[0] - y[0]), [
    [0, 1],
    [2, 2],
    [5, 3],
    [9, 4],
  ]);
  const cut = await lineNumbersAt(file, [9, 2, 5], { budgetBytes: 5 });
  assert.deepEqual([...cut].sort((x, y) => x[0] - y[0]), [[2, 2], [5, 3]]);
});

Deno.test("lineNumbersAt() numbers alike with and without SIMD", async () => {
  const lines = Array.from({ length: 3000 }, (_, i) => "x".repeat(i % 97));
  const text = lines.map((l) => l + "\n").join("");
  const starts: number[] = [];
  let at = 0;
  for (const line of lines) {
    starts.push(at);
    at += line.length + 1;
  }
  const wanted = starts.filter((_, i) => i % 7 === 0);
  const plain = await lineNumbersAt(memoryFile(utf8(text), 999), wanted, {
    simdFromBytes: Infinity,
  });
  const simd = await lineNumbersAt(memoryFile(utf8(text), 999), wanted, {
    simdFromBytes: 0,
  });
  assert.deepEqual(simd, plain);
  assert.deepEqual(
    wanted.map((o) => plain.get(o)),
    wanted.map((o) => starts.indexOf(o) + 1),
  );
});

Deno.test("parseJsonObjects() parses the first and last pieces of a line cut by NUL runs", () => {
  const piece = fc.constantFrom('{"a":1}', '{"b":2}', "{}", "junk", "", " ");
  const nuls = fc.constantFrom("\u0000", "\u0000\u0000\u0000");
  fc.assert(
    fc.property(fc.array(fc.tuple(piece, nuls), { maxLength: 40 }), (parts) => {
      const text = parts.map(([p, n]) => p + n).join("");
      // deno-lint-ignore no-control-regex -- the definition: split on NUL runs
      const pieces = text.split(/\u0000+/).map((p) => p.trim());
      const kept = pieces.filter((p) => p !== "");
      const expected = kept.length <= MAX_LINE_PIECES ? kept : [
        ...kept.slice(0, MAX_LINE_PIECES / 2),
        ...kept.slice(-MAX_LINE_PIECES / 2),
      ];
      assert.deepEqual(
        parseJsonObjects(text),
        expected.flatMap((p) => p.startsWith("{") ? [JSON.parse(p)] : []),
      );
    }),
    fuzzParameters(500),
  );
});
