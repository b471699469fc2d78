/**
 * Long answered lines: an error result puts its `tool_use_id` after the
 * content, so in a line too long to parse the id sits in the middle. The
 * readers find it by a byte search; a long answered result must never look
 * like a pending call, whatever the reader's limits and however the line is
 * split into reads. Lines are built from the real 2.1.332 transcript in
 * `fixtures/real/real_long_error_result_answered.jsonl`.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { join } from "node:path";
import { classifyTurn } from "../../src/detection/classify.ts";
import { readHistoryVerdicts } from "../../src/detection/history_turns.ts";
import { ToolUseIdSearch } from "../../src/transcript/_id_search.ts";
import {
  type LineReaderOptions,
  readLinesBackward,
  readLinesForward,
} from "../../src/transcript/line_reader.ts";
import { scanCurrentTurn } from "../../src/transcript/tail_scan.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { fuzzParameters } from "../support/fuzz.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { memoryFile, utf8 } from "../support/memory_file.ts";

const REAL = Deno.readTextFileSync(
  join(FIXTURES_DIR, "real", "real_long_error_result_answered.jsonl"),
).split("\n");
const PROMPT_ID = "4b86bd70-bebe-4563-aa68-d6667eb670fc";
const CALL_ID = "toolu_a682f1b8cf08dbea2c318fdb12";
/** Real lines: the prompt, the call, its (long error) result, the answer. */
const [PROMPT, CALL, RESULT, ANSWER] = [2, 19, 20, 25].map((i) =>
  JSON.parse(REAL[i] as string)
);

/** Both of the search's scans (see `_id_search.ts`); they must agree. */
const SCANS = [{ skipping: false }, { skipping: true }] as const;

function ids(
  pieces: Uint8Array[],
  order: "forward" | "backward",
  scan: { skipping: boolean } = SCANS[0],
): string[] {
  const search = new ToolUseIdSearch(scan);
  const offsets: number[] = [];
  let at = 0;
  for (const piece of pieces) {
    offsets.push(at);
    at += piece.length;
  }
  const indexes = pieces.map((_, i) => i);
  if (order === "backward") indexes.reverse();
  for (const i of indexes) {
    search.feed(pieces[i] as Uint8Array, offsets[i] as number);
  }
  return search.ids();
}

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((
    a,
    b,
  ) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.subarray(from, point));
    from = point;
  }
  return pieces;
}

Deno.test("ToolUseIdSearch finds object keys only, in line order, across any split", () => {
  const line = JSON.stringify({
    message: {
      content: [
        { type: "tool_result", content: 'x "tool_use_id":"toolu_fake" y' },
        { type: "tool_result", content: "z", tool_use_id: "toolu_b" },
        { tool_use_id: "toolu_a", type: "tool_result", content: "\\" },
      ],
    },
    toolUseResult: { [`say "tool_use_id`]: "toolu_quoted_key" },
  });
  const bytes = utf8(line);
  const tooLong = utf8(`{"tool_use_id":"${"x".repeat(300)}"}`);
  for (const scan of SCANS) {
    assert.deepEqual(ids([bytes], "forward", scan), ["toolu_b", "toolu_a"]);
    for (let cut = 0; cut <= bytes.length; cut += 7) {
      for (const order of ["forward", "backward"] as const) {
        assert.deepEqual(
          ids(split(bytes, [cut, cut + 3, cut + 11]), order, scan),
          ["toolu_b", "toolu_a"],
          `cut at ${cut}, ${order}, ${JSON.stringify(scan)}`,
        );
      }
    }
    // One byte per piece: every key straddles many pieces.
    assert.deepEqual(
      ids([...bytes].map((b) => Uint8Array.of(b)), "backward", scan),
      ["toolu_b", "toolu_a"],
    );
    assert.deepEqual(ids([tooLong], "forward", scan), []);
  }
});

Deno.test("ToolUseIdSearch's two scans find the same ids and text blocks in any bytes, however split", () => {
  const piece = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.constantFrom(
      '{"tool_use_id":"toolu_a"',
      ',"tool_use_id":"toolu_b"}',
      ' "tool_use_id":"x_y"',
      '"tool_use_id":"',
      ',"type":"text","text":"hi"',
      '{"type":"text","text":""',
      "_",
      ",",
      '"',
    ),
  );
  fc.assert(
    fc.property(
      fc.array(piece, { maxLength: 40 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      (parts, cuts) => {
        const bytes = utf8(parts.join(""));
        const run = (skipping: boolean) => {
          const search = new ToolUseIdSearch({ skipping });
          let at = 0;
          for (const p of split(bytes, cuts)) {
            search.feed(p, at);
            at += p.length;
          }
          return { ids: search.ids(), text: search.hasText() };
        };
        assert.deepEqual(run(false), run(true));
      },
    ),
    fuzzParameters(200),
  );
});

/** A long result line for the real call: error-first key order or id-first. */
function resultLine(
  content: string,
  toolUseResult: string,
  idFirst: boolean,
): string {
  const block = idFirst
    ? { tool_use_id: CALL_ID, type: "tool_result", content, is_error: true }
    : { type: "tool_result", content, is_error: true, tool_use_id: CALL_ID };
  return JSON.stringify({
    ...RESULT,
    message: { role: "user", content: [block] },
    toolUseResult,
  });
}

/** Text that a JSON encoder escapes heavily, with decoy keys inside. */
const nastyText = fc.array(
  fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom(
      '"tool_use_id":"toolu_decoy"',
      '\\"tool_use_id\\":\\"',
      "\u001b[31m",
      "\\",
      '"',
      "é漢🙂",
      "\n",
    ),
  ),
  { maxLength: 60 },
).map((parts) => parts.join(""));

const longLine = fc.record({
  head: nastyText,
  headRepeat: fc.integer({ min: 0, max: 3000 }),
  stdout: nastyText,
  stdoutRepeat: fc.integer({ min: 0, max: 3000 }),
  idFirst: fc.boolean(),
  answered: fc.boolean(),
});

/**
 * Any reader limits under which the other lines stay whole (they are about
 * 1.3 KB) and the ends of a clipped line still show its envelope (a user
 * line's type is in its first 200 bytes, an assistant line's in its last
 * 400), as with the hook's 16 KiB and the audit's 2 KiB.
 */
const readerOptions: fc.Arbitrary<LineReaderOptions> = fc.oneof(
  fc.constant({}),
  fc.record({
    chunkBytes: fc.integer({ min: 16, max: 70_000 }),
    maxLineBytes: fc.integer({ min: 1400, max: 128 * 1024 }),
    keepBytes: fc.integer({ min: 1024, max: 32 * 1024 }),
  }),
);

/** The signatures of `path`'s turn as `[kind, id]`, by the hook's reader and the audit's. */
async function judgedBoth(
  path: string,
  options: LineReaderOptions,
): Promise<{ hook: string[][]; audit: string[][] }> {
  const scan = await scanCurrentTurn(path, {
    promptId: PROMPT_ID,
    includeSidechains: false,
    ...options,
  });
  const verdict = classifyTurn(scan?.entries ?? [], { backgroundTasks: [] });
  const audit: string[][] = [];
  using file = await Deno.open(path);
  for await (const turn of readHistoryVerdicts(file, { subagent: false })) {
    audit.push(...turn.verdict.signatures.map((s) => [s.kind, s.toolUseId]));
  }
  return {
    hook: verdict.signatures.map((s) => [s.kind, s.toolUseId]),
    audit,
  };
}

Deno.test("a long answered result line never yields a pending signature, in the hook's reader or the audit's", async () => {
  await using transcript = await tempTranscript("", "t.jsonl");
  await fc.assert(
    fc.asyncProperty(longLine, readerOptions, async (l, options) => {
      const result = resultLine(
        "Error: " + l.head.repeat(l.headRepeat),
        "Error: " + l.stdout.repeat(l.stdoutRepeat),
        l.idFirst,
      );
      const lines = [PROMPT, CALL].map((o) => JSON.stringify(o));
      lines.push(result);
      if (l.answered) lines.push(JSON.stringify(ANSWER));
      await Deno.writeTextFile(transcript.path, lines.join("\n") + "\n");
      const expected = l.answered ? [] : [["missing_followup", CALL_ID]];

      const judged = await judgedBoth(transcript.path, options);
      assert.deepEqual(
        judged.hook,
        expected,
        `hook reader, line of ${result.length} chars`,
      );
      assert.deepEqual(judged.audit, expected, "audit reader");
    }),
    fuzzParameters(60),
  );
});

Deno.test("ToolUseIdSearch notes a non-empty text block, not an empty or quoted one", () => {
  for (const scan of SCANS) {
    const seen = (value: unknown) => {
      const search = new ToolUseIdSearch(scan);
      const bytes = utf8(JSON.stringify(value));
      for (let i = 0; i < bytes.length; i += 5) {
        search.feed(bytes.subarray(i, i + 5), i);
      }
      return search.hasText();
    };
    assert.equal(seen({ content: [{ type: "text", text: "Done." }] }), true);
    assert.equal(seen({ content: [{ type: "text", text: "" }] }), false);
    assert.equal(
      seen({
        content: [{ type: "thinking", thinking: '"type":"text","text":"x' }],
      }),
      false,
    );
  }
});

/** The real answer line in the older one-line form: a long thinking block, then the text. */
function oneLineAnswer(thinking: string): string {
  return JSON.stringify({
    ...ANSWER,
    message: {
      ...ANSWER.message,
      content: [
        { type: "thinking", thinking, signature: "c2lnbmF0dXJl" },
        ...ANSWER.message.content,
      ],
    },
  });
}

Deno.test("a long one-line answer (thinking, then its text) is a follow-up in both readers", async () => {
  await using transcript = await tempTranscript("", "t.jsonl");
  await fc.assert(
    fc.asyncProperty(
      nastyText,
      fc.integer({ min: 100, max: 4000 }),
      readerOptions,
      async (text, repeat, options) => {
        const lines = [PROMPT, CALL, RESULT].map((o) => JSON.stringify(o));
        lines.push(oneLineAnswer(`Let me think. ${text.repeat(repeat)}`));
        await Deno.writeTextFile(transcript.path, lines.join("\n") + "\n");
        const judged = await judgedBoth(transcript.path, options);
        assert.deepEqual(judged, { hook: [], audit: [] });
      },
    ),
    fuzzParameters(30),
  );
});

Deno.test("both readers report the ids of a clipped line and only of clipped lines", async () => {
  const long = resultLine(
    "Error: " + '\\"x'.repeat(30_000),
    "y".repeat(40_000),
    false,
  );
  const short = JSON.stringify(PROMPT);
  const bytes = utf8(`${short}\n${long}\n${short}\n`);
  const options = {
    chunkBytes: 4096,
    maxLineBytes: 64 * 1024,
    keepBytes: 16 * 1024,
  };
  const seen: (string[] | undefined)[] = [];
  for await (const line of readLinesForward(memoryFile(bytes, 1000), options)) {
    seen.push(line.toolUseIds);
  }
  const back: (string[] | undefined)[] = [];
  for await (
    const line of readLinesBackward(memoryFile(bytes), bytes.length, options)
  ) {
    back.push(line.toolUseIds);
  }
  assert.deepEqual(seen, [undefined, [CALL_ID], undefined]);
  assert.deepEqual(back, [undefined, [CALL_ID], undefined]);
});

Deno.test("both readers keep at most maxLineIds + 1 ids of one line, the rest of it unsearched, whatever the reads", async () => {
  const blocks = Array.from(
    { length: 5_000 },
    (_, i) => `{"tool_use_id":"toolu_${i}","type":"tool_result","content":""}`,
  );
  const line = `{"type":"user","message":{"content":[${blocks.join(",")}]}}\n`;
  const bytes = utf8(line + line);
  for (const chunkBytes of [4096, 7919, 65536]) {
    const options = {
      chunkBytes,
      maxLineBytes: 4096,
      keepBytes: 1024,
      maxLineIds: 100,
    };
    for await (
      const raw of readLinesBackward(memoryFile(bytes), bytes.length, options)
    ) {
      assert.ok(raw.clipped);
      // One more than the cap (a few more where reads overlap): over it.
      assert.ok(raw.toolUseIds!.length > 100, `${raw.toolUseIds!.length}`);
      assert.ok(raw.toolUseIds!.length < 200, `${raw.toolUseIds!.length}`);
    }
    for await (const raw of readLinesForward(memoryFile(bytes), options)) {
      assert.ok(raw.toolUseIds!.length > 100, `${raw.toolUseIds!.length}`);
      assert.ok(raw.toolUseIds!.length < 200, `${raw.toolUseIds!.length}`);
    }
  }
});

Deno.test("ToolUseIdSearch names the ids of error results (is_error right before the id), across any split", () => {
  const line = JSON.stringify({
    message: {
      content: [
        {
          type: "tool_result",
          content: "a",
          is_error: true,
          tool_use_id: "toolu_e",
        },
        { tool_use_id: "toolu_ok", type: "tool_result", content: "b" },
        {
          type: "tool_result",
          content: '"is_error":true,',
          tool_use_id: "toolu_f",
        },
      ],
    },
  });
  const bytes = utf8(line);
  for (const scan of SCANS) {
    for (let cut = 0; cut <= bytes.length; cut += 5) {
      for (const order of ["forward", "backward"] as const) {
        const search = new ToolUseIdSearch(scan);
        const pieces = split(bytes, [cut, cut + 9]);
        const offsets = pieces.map((_, i) =>
          pieces.slice(0, i).reduce((n, p) => n + p.length, 0)
        );
        const indexes = pieces.map((_, i) => i);
        if (order === "backward") indexes.reverse();
        for (const i of indexes) {
          search.feed(pieces[i] as Uint8Array, offsets[i] as number);
        }
        assert.deepEqual(
          search.errorIds(),
          ["toolu_e"],
          `cut at ${cut}, ${order}`,
        );
      }
    }
  }
});
