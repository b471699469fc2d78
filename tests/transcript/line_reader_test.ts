import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type RawLine,
  readLinesBackward,
  readLinesForward,
} from "../../src/transcript/line_reader.ts";
import { memoryFile, utf8 } from "../support/memory_file.ts";

const decoder = new TextDecoder();

async function backward(
  text: string,
  options = {},
): Promise<RawLine[]> {
  const bytes = utf8(text);
  const lines: RawLine[] = [];
  for await (
    const line of readLinesBackward(memoryFile(bytes), bytes.length, options)
  ) {
    lines.push({ ...line, head: line.head.slice(), tail: line.tail.slice() });
  }
  return lines;
}

async function forward(
  text: string,
  options = {},
  maxRead = Infinity,
): Promise<(RawLine & { line: number })[]> {
  const lines: (RawLine & { line: number })[] = [];
  for await (
    const line of readLinesForward(memoryFile(utf8(text), maxRead), options)
  ) {
    lines.push({ ...line, head: line.head.slice(), tail: line.tail.slice() });
  }
  return lines;
}

Deno.test("readLinesBackward() yields complete lines newest first with offsets", async () => {
  const lines = await backward("one\ntwo\n\nfour\n");
  assert.deepEqual(lines.map((l) => decoder.decode(l.head)), [
    "four",
    "",
    "two",
    "one",
  ]);
  assert.deepEqual(lines.map((l) => l.offset), [9, 8, 4, 0]);
});

Deno.test("readLinesBackward() ignores a last line without newline", async () => {
  const lines = await backward('{"a":1}\n{"half":');
  assert.deepEqual(lines.map((l) => decoder.decode(l.head)), ['{"a":1}']);
});

Deno.test("readLinesBackward() yields nothing for an empty file or one partial line", async () => {
  assert.deepEqual(await backward(""), []);
  assert.deepEqual(await backward("no newline at all"), []);
});

Deno.test("readLinesBackward() joins lines that span many small chunks", async () => {
  const long = "x".repeat(1000);
  const lines = await backward(`a\n${long}\nb\n`, { chunkBytes: 7 });
  assert.deepEqual(lines.map((l) => decoder.decode(l.head)), ["b", long, "a"]);
});

Deno.test("readLinesBackward() clips an overlong line to its head and tail", async () => {
  const long = "H".repeat(50) + "m".repeat(5000) + "T".repeat(50);
  const lines = await backward(`start\n${long}\nend\n`, {
    chunkBytes: 64,
    maxLineBytes: 1000,
    keepBytes: 50,
  });
  const clipped = lines[1] as RawLine;
  assert.equal(clipped.clipped, true);
  assert.equal(clipped.length, long.length);
  assert.equal(clipped.offset, 6);
  assert.equal(decoder.decode(clipped.head), "H".repeat(50));
  assert.equal(decoder.decode(clipped.tail), "T".repeat(50));
  assert.equal(decoder.decode((lines[2] as RawLine).head), "start");
});

Deno.test("readLinesForward() numbers lines and clips overlong ones", async () => {
  const long = "H".repeat(50) + "m".repeat(5000) + "T".repeat(50);
  const lines = await forward(`a\n${long}\nb\npartial`, {
    chunkBytes: 64,
    maxLineBytes: 1000,
    keepBytes: 50,
  });
  assert.deepEqual(lines.map((l) => l.line), [1, 2, 3]);
  const clipped = lines[1] as RawLine;
  assert.equal(clipped.clipped, true);
  assert.equal(decoder.decode(clipped.head), "H".repeat(50));
  assert.equal(decoder.decode(clipped.tail), "T".repeat(50));
  assert.equal(decoder.decode((lines[2] as RawLine).head), "b");
});

Deno.test("line readers agree with a plain split for any content and chunk size", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.string({ unit: fc.constantFrom("a", "é", "\n", "\r", "\0", "{") }),
        {
          maxLength: 40,
        },
      ),
      fc.integer({ min: 1, max: 33 }),
      fc.integer({ min: 1, max: 9 }),
      async (parts, chunkBytes, maxRead) => {
        const text = parts.join("");
        const expected = text.split("\n").slice(0, -1);
        const options = { chunkBytes, maxLineBytes: 1 << 20 };
        const back = await backward(text, options);
        const fwd = await forward(text, options, maxRead);
        assert.deepEqual(
          back.map((l) => decoder.decode(l.head)).reverse(),
          expected,
        );
        assert.deepEqual(fwd.map((l) => decoder.decode(l.head)), expected);
        assert.deepEqual(
          back.map((l) => l.offset).reverse(),
          fwd.map((l) => l.offset),
        );
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("line readers clip every overlong line to its exact head and tail", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ unit: fc.constantFrom("a", "b", "\n") }), {
        maxLength: 30,
      }),
      fc.integer({ min: 1, max: 17 }),
      async (parts, chunkBytes) => {
        const text = parts.join("");
        const options = { chunkBytes, maxLineBytes: 10, keepBytes: 4 };
        const expected = text.split("\n").slice(0, -1);
        for (
          const lines of [
            (await backward(text, options)).reverse(),
            await forward(text, options),
          ]
        ) {
          assert.equal(lines.length, expected.length);
          lines.forEach((line, i) => {
            const want = expected[i] as string;
            assert.equal(line.length, want.length);
            assert.equal(line.clipped, want.length > 10);
            if (line.clipped) {
              assert.equal(decoder.decode(line.head), want.slice(0, 4));
              assert.equal(decoder.decode(line.tail), want.slice(-4));
            } else {
              assert.equal(decoder.decode(line.head), want);
            }
          });
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("readLinesForward() clips exactly for any limits, chunk size and short reads, reusing a buffer", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.string({ unit: fc.constantFrom("a", "b", "é", "\n") }), {
        maxLength: 40,
      }),
      fc.integer({ min: 1, max: 40 }),
      fc.integer({ min: 1, max: 9 }),
      fc.integer({ min: 1, max: 30 }),
      fc.integer({ min: 1, max: 30 }),
      async (parts, chunkBytes, maxRead, maxLineBytes, keepWanted) => {
        const bytes = utf8(parts.join(""));
        const keepBytes = Math.min(keepWanted, maxLineBytes);
        const buffer = new Uint8Array(chunkBytes);
        const expected: Uint8Array[] = [];
        for (
          let start = 0, nl;
          (nl = bytes.indexOf(10, start)) >= 0;
          start = nl + 1
        ) {
          expected.push(bytes.subarray(start, nl));
        }
        // Twice with the same buffer: a reused buffer must not leak state.
        for (let round = 0; round < 2; round++) {
          const lines = [];
          for await (
            const line of readLinesForward(memoryFile(bytes, maxRead), {
              maxLineBytes,
              keepBytes,
              buffer,
            })
          ) {
            lines.push({
              ...line,
              head: line.head.slice(),
              tail: line.tail.slice(),
            });
          }
          assert.equal(lines.length, expected.length);
          lines.forEach((line, i) => {
            const want = expected[i] as Uint8Array;
            assert.equal(line.line, i + 1);
            assert.equal(line.length, want.length);
            assert.equal(line.clipped, want.length > maxLineBytes);
            if (line.clipped) {
              assert.deepEqual(line.head, want.slice(0, keepBytes));
              assert.deepEqual(line.tail, want.slice(want.length - keepBytes));
            } else {
              assert.deepEqual(line.head, want.slice());
            }
          });
        }
      },
    ),
    { numRuns: 500 },
  );
});
