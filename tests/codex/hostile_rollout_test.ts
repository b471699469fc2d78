/**
 * The rollout reader on damaged and hostile input: the real captures
 * mutated the way files get damaged (lost writes, truncation, NUL runs,
 * reordering, retyped fields) and lines nobody sane writes (megabytes
 * long, deeply nested, wrongly typed). Nothing may throw or hang, the
 * budgets hold, and a huge line is judged from its ends, never guessed.
 *
 * Run longer with `STALL_WATCH_FUZZ_RUNS=2000 deno test ...`.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { scanCodexTurn } from "../../src/codex/_current_turn.ts";
import { rolloutRecord } from "../../src/codex/_rollout_records.ts";
import { rolloutLineRecords } from "../../src/codex/_rollout_lines.ts";
import {
  readRolloutTurns,
  RolloutTurnSplitter,
} from "../../src/codex/rollout_history.ts";
import { classifyTurn, STALL_KINDS } from "../../src/detection/classify.ts";
import { codexFixtures } from "../support/codex_fixtures.ts";
import { applyMutations, fuzzParameters, mutations } from "../support/fuzz.ts";
import { memoryFile } from "../support/memory_file.ts";
import { readLinesForward } from "../../src/transcript/line_reader.ts";

const fixtures = codexFixtures();
const fixture = fc.constantFrom(...fixtures);
const encoder = new TextEncoder();

/** A rollout in a temp file, removed when the block ends. */
async function tempRollout(
  bytes: Uint8Array,
): Promise<{ path: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "codex-hostile-" });
  const path = `${dir}/rollout.jsonl`;
  await Deno.writeFile(path, bytes);
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** An in-memory file for the forward reader (`readSync`/`seekSync`). */
function syncMemoryFile(bytes: Uint8Array) {
  let position = 0;
  return {
    readSync(buffer: Uint8Array): number | null {
      if (position >= bytes.length) return null;
      const n = Math.min(buffer.length, bytes.length - position);
      buffer.set(bytes.subarray(position, position + n));
      position += n;
      return n;
    },
    seekSync(offset: number): number {
      position = offset;
      return position;
    },
  };
}

async function allTurns(bytes: Uint8Array) {
  const turns = [];
  for await (const turn of readRolloutTurns(syncMemoryFile(bytes))) {
    turns.push(turn);
  }
  return turns;
}

const line = (value: unknown) => JSON.stringify(value);
const TS = "2026-12-06T05:28:52.125Z";
const TURN = "turn-hostile";

function event(type: string, extra: Record<string, unknown> = {}): string {
  return line({
    timestamp: TS,
    ordinal: 1,
    type: "event_msg",
    payload: { type, turn_id: TURN, ...extra },
  });
}

function item(payload: Record<string, unknown>): string {
  return line({
    timestamp: TS,
    ordinal: 2,
    type: "response_item",
    payload: {
      ...payload,
      internal_chat_message_metadata_passthrough: { turn_id: TURN },
    },
  });
}

const call = (id: string, args = '{"cmd":"ls"}') =>
  item({
    type: "function_call",
    name: "exec_command",
    arguments: args,
    call_id: id,
  });
const output = (id: string, text: string) =>
  item({ type: "function_call_output", call_id: id, output: text });
const prompt = (text: string) =>
  item({
    type: "message",
    role: "user",
    content: [{ type: "input_text", text }],
  });
const reply = (text: string) =>
  item({
    type: "message",
    role: "assistant",
    content: [{ type: "output_text", text }],
  });

function rollout(...lines: string[]): Uint8Array {
  return encoder.encode(lines.join("\n") + "\n");
}

async function currentKinds(bytes: Uint8Array): Promise<string[]> {
  await using file = await tempRollout(bytes);
  const scan = await scanCodexTurn(file.path, { turnId: TURN });
  assert.ok(scan);
  return classifyTurn(scan.entries, { backgroundTasks: [] }).signatures.map(
    (s) => `${s.kind} ${s.toolName}`,
  );
}

Deno.test("damaged captures: the current turn and every turn read without throwing, any chunk size", async () => {
  await fc.assert(
    fc.asyncProperty(
      fixture,
      mutations,
      fc.integer({ min: 64, max: 200_000 }),
      async (fx, damage, chunkBytes) => {
        const bytes = applyMutations(fx.bytes, damage);
        await using file = await tempRollout(bytes);
        const scan = await scanCodexTurn(file.path, {
          turnId: fx.turnId,
          chunkBytes,
        });
        assert.ok(scan);
        for (
          const s of classifyTurn(scan.entries, { backgroundTasks: [] })
            .signatures
        ) {
          assert.ok(STALL_KINDS.includes(s.kind));
        }
        for (const turn of await allTurns(bytes)) {
          classifyTurn(turn.entries, { backgroundTasks: [] });
        }
      },
    ),
    fuzzParameters(60),
  );
});

Deno.test("any JSON value in any field of a rollout line is no error", () => {
  fc.assert(
    fc.property(
      fc.constantFrom("event_msg", "response_item", "compacted", "x"),
      fc.jsonValue({ maxDepth: 4 }),
      fc.constantFrom(
        "message",
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "function_call_output",
        "custom_tool_call_output",
        "task_started",
        "task_complete",
        "turn_aborted",
      ),
      fc.constantFrom(
        "role",
        "content",
        "output",
        "call_id",
        "arguments",
        "namespace",
        "name",
        "turn_id",
        "action",
        "internal_chat_message_metadata_passthrough",
      ),
      (type, value, itemType, field) => {
        rolloutRecord(
          { type, payload: { type: itemType, [field]: value } },
          { offset: 0, line: 1 },
        );
        rolloutRecord({ type, payload: value }, { offset: 0, line: 1 });
      },
    ),
    fuzzParameters(500),
  );
});

Deno.test("a 2 MB output is judged from its ends: its call_id from the head, content, and the missing reply still found", async () => {
  const huge = output(
    "call_big",
    "Wall time: 1 s\nOutput:\n" + "x".repeat(2_000_000),
  );
  assert.deepEqual(
    await currentKinds(
      rollout(event("task_started"), prompt("go"), call("call_big"), huge),
    ),
    ["missing_followup exec_command"],
  );
  // Answered: healthy.
  assert.deepEqual(
    await currentKinds(
      rollout(
        event("task_started"),
        prompt("go"),
        call("call_big"),
        huge,
        reply("Done."),
      ),
    ),
    [],
  );
});

Deno.test("a call with 2 MB of arguments: its call_id from the line's tail, pending without an output", async () => {
  const bigArgs = JSON.stringify({ cmd: "echo " + "y".repeat(2_000_000) });
  assert.deepEqual(
    await currentKinds(
      rollout(event("task_started"), prompt("go"), call("call_args", bigArgs)),
    ),
    ["pending_tool_use exec_command"],
  );
});

Deno.test("huge user text: a prompt stays a prompt, a huge hook reason stays a note", () => {
  const raw = (text: string) => {
    const bytes = encoder.encode(prompt(text));
    return {
      offset: 0,
      length: bytes.length,
      head: bytes.subarray(0, 16_384),
      tail: bytes.subarray(bytes.length - 16_384),
      clipped: true,
    };
  };
  const kindOf = (text: string) => {
    const [record] = rolloutLineRecords(raw(text));
    return record?.kind === "entry" ? record.entry.kind : record?.kind;
  };
  assert.equal(kindOf("please " + "z".repeat(200_000)), "prompt");
  assert.equal(
    kindOf('<hook_prompt hook_run_id="stop:0:x">' + "z".repeat(200_000)),
    "note",
  );
  assert.equal(kindOf("<environment_context>" + "z".repeat(200_000)), "note");
});

Deno.test("deep nesting, unclosed brackets and NUL runs on a line are no record and no crash", async () => {
  const deep = (depth: number) =>
    `{"timestamp":"${TS}","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` +
    "[".repeat(depth) + "]".repeat(depth) + "}}";
  const lines = [
    event("task_started"),
    prompt("go"),
    call("c1"),
    deep(20_000),
    deep(300_000),
    `{"timestamp":"${TS}","type":"response_item","payload":` +
    "[{".repeat(50_000),
    "\0".repeat(10_000),
    output("c1", "Wall time: 1 s\nOutput:\nok\n") + "\0\0\0" + reply("half"),
  ];
  const bytes = rollout(...lines);
  await using file = await tempRollout(bytes);
  const scan = await scanCodexTurn(file.path, { turnId: TURN });
  assert.ok(scan?.reachedStart);
  assert.equal((await allTurns(bytes)).length, 1);
});

Deno.test("an unfinished last line (no newline) is not read: a write in progress", async () => {
  const bytes = encoder.encode(
    [event("task_started"), prompt("go"), call("c1")].join("\n") + "\n" +
      output("c1", "Wall time: 1 s\nOutput:\nok"),
  );
  await using file = await tempRollout(bytes);
  const scan = await scanCodexTurn(file.path, { turnId: TURN });
  assert.deepEqual(
    classifyTurn(scan?.entries ?? [], { backgroundTasks: [] }).signatures
      .map((s) => s.kind),
    ["pending_tool_use"],
  );
});

Deno.test("budgets: a turn past the lines or entries budget is judged on its newest part and says which ran out", async () => {
  const noise = Array.from({ length: 2_000 }, (_, i) => reply(`word ${i}`));
  const bytes = rollout(
    event("task_started"),
    prompt("go"),
    ...noise,
    call("c9"),
    output("c9", "Wall time: 1 s\nOutput:\n"),
  );
  await using file = await tempRollout(bytes);
  const byLines = await scanCodexTurn(file.path, {
    turnId: TURN,
    budgets: { lines: 500 },
  });
  assert.equal(byLines?.reachedStart, false);
  assert.equal(byLines?.budget, "lines");
  assert.deepEqual(
    classifyTurn(byLines?.entries ?? [], { backgroundTasks: [] }).signatures
      .map((s) => s.kind),
    ["empty_tool_result"],
  );
  const byEntries = await scanCodexTurn(file.path, {
    turnId: TURN,
    budgets: { entries: 100 },
  });
  assert.equal(byEntries?.budget, "entries");
  const byBytes = await scanCodexTurn(file.path, {
    turnId: TURN,
    budgets: { bytes: 10_000 },
  });
  assert.equal(byBytes?.budget, "bytes");
  assert.ok((byBytes?.bytesScanned ?? Infinity) <= 10_000);
});

Deno.test("a turn of more entries than a history turn may hold is let go and marked, the next one judged", () => {
  const splitter = new RolloutTurnSplitter();
  const at = (n: number) => ({ offset: n, line: n });
  splitter.push({ kind: "turn_started", turnId: "a", ...at(1) });
  for (let i = 0; i < 60_000; i++) {
    const record = rolloutRecord(
      JSON.parse(reply(`w${i}`).replace(TURN, "a")),
      at(i + 2),
    );
    if (record) splitter.push(record);
  }
  const closed = splitter.push({
    kind: "turn_started",
    turnId: "b",
    ...at(99),
  });
  assert.equal(closed?.overBudget, true);
  assert.equal(closed?.entries.length, 0);
  assert.equal(closed?.resumedAfter, true, "no end on file, a turn followed");
  const last = splitter.finish();
  assert.equal(last?.turnId, "b");
  assert.equal(last?.followed, false);
});

Deno.test("a history keeps the words of a turn's newest messages only, each cut to its end", () => {
  const splitter = new RolloutTurnSplitter();
  splitter.push({ kind: "turn_started", turnId: TURN, offset: 0, line: 1 });
  for (let i = 0; i < 100; i++) {
    const record = rolloutRecord(
      JSON.parse(reply(`${i}:` + "w".repeat(40_000))),
      { offset: i, line: i + 2 },
    );
    if (record) splitter.push(record);
  }
  const turn = splitter.finish();
  const texts = (turn?.entries ?? []).flatMap((e) =>
    e.kind === "assistant" ? e.texts : []
  );
  assert.equal(texts.length, 100);
  assert.ok(texts.filter((t) => t === "(text)").length >= 60);
  assert.ok(texts.every((t) => t.length <= 16 * 1024));
});

Deno.test("lines of another turn's stamp inside a turn are not its entries", async () => {
  const other = output("c1", "Wall time: 1 s\nOutput:\n").replace(
    TURN,
    "someone-else",
  );
  assert.deepEqual(
    await currentKinds(
      rollout(event("task_started"), prompt("go"), call("c1"), other),
    ),
    ["pending_tool_use exec_command"],
  );
});

Deno.test("the forward reader of the history never holds a clipped line whole", async () => {
  // A line of 8 MB: the reader keeps its ends only.
  const bytes = rollout(
    event("task_started"),
    output("c1", "x".repeat(8_000_000)),
  );
  let longest = 0;
  for await (
    const raw of readLinesForward(memoryFile(bytes), {
      chunkBytes: 1 << 20,
      maxLineBytes: 64 * 1024,
      keepBytes: 16 * 1024,
    })
  ) {
    longest = Math.max(longest, raw.head.length + raw.tail.length);
  }
  assert.ok(longest <= 64 * 1024);
  const [turn] = await allTurns(bytes);
  assert.equal(turn?.entries[0]?.kind, "results");
});

Deno.test("an event_msg whose type names an Object method (toString, constructor, __proto__) is no turn marker: it neither ends the turn as an abort nor hides its stall", async () => {
  for (const type of ["toString", "constructor", "__proto__", "valueOf"]) {
    const record = rolloutRecord(JSON.parse(event(type)), {
      offset: 0,
      line: 1,
    });
    assert.equal(record, null, type);
    assert.deepEqual(
      await currentKinds(rollout(
        event("task_started"),
        prompt("list the files"),
        call("call_1"),
        output("call_1", "Output:\nREADME.md\n"),
        event(type),
      )),
      ["missing_followup exec_command"],
      type,
    );
  }
});
