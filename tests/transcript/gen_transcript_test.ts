/**
 * Tests for the benchmark transcript generator (tests/bench/gen_transcript.ts):
 * determinism, valid JSONL, the envelope and multi-line assistant messages of
 * section 5 of shared/reference/claude-code-hooks.md, the final-turn shapes
 * and the requested size.
 *
 * Run: deno test --allow-read --allow-write tests/gen_transcript_test.ts
 */

import assert from "node:assert/strict";
import {
  parseSize,
  writeCorpusSync,
  writeTranscriptSync,
} from "../bench/gen_transcript.ts";
import type { Tail, TranscriptOptions } from "../bench/gen_transcript.ts";
import { tempProject } from "../support/temp_project.ts";

type Entry = Record<string, unknown> & {
  type: string;
  uuid?: string;
  parentUuid?: string | null;
  message?: {
    id?: string;
    content?: unknown;
    stop_reason?: string | null;
  };
};
type Block = Record<string, unknown> & { type: string };

async function generate(
  dir: string,
  name: string,
  options: TranscriptOptions,
) {
  const path = `${dir}/${name}.jsonl`;
  const summary = writeTranscriptSync(path, options);
  return { path, summary, bytes: await Deno.readFile(path) };
}

function parseLines(bytes: Uint8Array): Entry[] {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  assert.ok(text.endsWith("\n"), "file ends with a newline");
  return text.slice(0, -1).split("\n").map((line, i) => {
    try {
      return JSON.parse(line) as Entry;
    } catch (e) {
      throw new Error(`line ${i + 1} is not JSON: ${e}`);
    }
  });
}

function blocks(entry: Entry): Block[] {
  const content = entry.message?.content;
  return Array.isArray(content) ? content as Block[] : [];
}

function isConversation(entry: Entry): boolean {
  return typeof entry.uuid === "string";
}

/** Entries of the last turn: the trailing ones sharing the last promptId. */
function finalTurn(entries: Entry[]): Entry[] {
  const conv = entries.filter(isConversation);
  const promptId = conv[conv.length - 1]?.promptId;
  assert.equal(typeof promptId, "string", "final turn entries carry promptId");
  let start = conv.length - 1;
  while (start > 0 && conv[start - 1]?.promptId === promptId) start--;
  return conv.slice(start);
}

function toolUseIds(entries: Entry[]): string[] {
  return entries.flatMap((e) =>
    e.type === "assistant"
      ? blocks(e).filter((b) => b.type === "tool_use").map((b) =>
        b.id as string
      )
      : []
  );
}

function resultIds(entries: Entry[]): Set<string> {
  return new Set(
    entries.flatMap((e) =>
      e.type === "user"
        ? blocks(e).filter((b) => b.type === "tool_result").map((b) =>
          b.tool_use_id as string
        )
        : []
    ),
  );
}

function trailingMeta(entries: Entry[]): Entry[] {
  let i = entries.length;
  while (i > 0 && !isConversation(entries[i - 1] as Entry)) i--;
  return entries.slice(i);
}

Deno.test("writeTranscriptSync() writes the same bytes for the same seed", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const opts = { size: 400 << 10, seed: 7, tail: "stalled" as Tail };
  const a = await generate(dir, "a", opts);
  const b = await generate(dir, "b", opts);
  const c = await generate(dir, "c", { ...opts, seed: 8 });
  assert.deepEqual(a.bytes, b.bytes);
  assert.notDeepEqual(a.bytes, c.bytes);
});

for (const tail of ["healthy", "stalled"] as const) {
  Deno.test(`writeTranscriptSync() writes valid JSON lines (${tail})`, async () => {
    await using project = await tempProject();
    const dir = project.dir;
    const { bytes, summary } = await generate(dir, tail, {
      size: 2 << 20,
      seed: 3,
      tail,
    });
    const entries = parseLines(bytes);
    assert.equal(entries.length, summary.lines);
    for (const e of entries) assert.equal(typeof e.type, "string");
  });
}

Deno.test("writeTranscriptSync() chains parentUuid and splits assistant messages by block", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const { bytes } = await generate(dir, "chain", {
    size: 3 << 20,
    seed: 11,
    tail: "healthy",
  });
  const conv = parseLines(bytes).filter(isConversation);
  let previous: string | null = null;
  for (const e of conv) {
    if (e.subtype === "compact_boundary") assert.equal(e.parentUuid, null);
    else assert.equal(e.parentUuid, previous);
    for (
      const key of ["sessionId", "timestamp", "cwd", "version", "gitBranch"]
    ) {
      assert.equal(typeof e[key], "string", `${key} on ${e.uuid}`);
    }
    previous = e.uuid ?? null;
  }
  // Lines of one API message are consecutive; only the last has a stop_reason.
  const assistants = conv.filter((e) => e.type === "assistant");
  for (let i = 0; i + 1 < assistants.length; i++) {
    const a = assistants[i] as Entry;
    const b = assistants[i + 1] as Entry;
    if (a.message?.id === b.message?.id) {
      assert.equal(a.message?.stop_reason, null);
      assert.equal(a.requestId, b.requestId);
    } else {
      assert.notEqual(a.message?.stop_reason, null);
    }
  }
});

Deno.test("writeTranscriptSync() ends a healthy tail with text after all results", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const { bytes, summary } = await generate(dir, "h", {
    size: 20 << 20,
    seed: 5,
    tail: "healthy",
  });
  const entries = parseLines(bytes);
  const turn = finalTurn(entries);
  const last = turn[turn.length - 1] as Entry;
  assert.equal(last.type, "assistant");
  assert.equal(last.message?.stop_reason, "end_turn");
  assert.ok(blocks(last).some((b) => b.type === "text"));
  const answered = resultIds(turn);
  for (const id of toolUseIds(turn)) {
    assert.ok(answered.has(id), `${id} answered`);
  }
  assert.ok(trailingMeta(entries).length <= 2);
  assert.equal(summary.pendingToolUseId, undefined);
  assert.ok(summary.finalTurnBytes < 300 << 10, "final turn stays small");
});

Deno.test("writeTranscriptSync() ends a stalled tail with an unanswered Read", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const { bytes, summary } = await generate(dir, "s", {
    size: 20 << 20,
    seed: 5,
    tail: "stalled",
  });
  const entries = parseLines(bytes);
  const turn = finalTurn(entries);
  const last = turn[turn.length - 1] as Entry;
  assert.equal(last.type, "assistant");
  assert.equal(last.message?.stop_reason, "tool_use");
  const [use] = blocks(last);
  assert.equal(use?.name, "Read");
  assert.equal(use?.id, summary.pendingToolUseId);
  assert.ok(!resultIds(entries).has(use?.id as string), "no result anywhere");
  const answered = resultIds(turn);
  const others = toolUseIds(turn).filter((id) => id !== use?.id);
  for (const id of others) assert.ok(answered.has(id), `${id} answered`);
  const meta = trailingMeta(entries);
  assert.ok(
    meta.length >= 1 && meta.length <= 2,
    "one or two metadata lines after",
  );
  assert.ok(summary.finalTurnBytes < 300 << 10, "final turn stays small");
});

Deno.test("writeTranscriptSync() lands within 3% of the requested size", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  for (const size of [256 << 10, 1 << 20, 10 << 20, 40 << 20]) {
    const path = `${dir}/${size}.jsonl`;
    writeTranscriptSync(path, { size, seed: 42, tail: "stalled" });
    const actual = (await Deno.stat(path)).size;
    assert.ok(Math.abs(actual - size) / size < 0.03, `${actual} vs ${size}`);
  }
});

Deno.test("writeTranscriptSync() covers the real-world entry shapes", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const { bytes } = await generate(dir, "mix", {
    size: 24 << 20,
    seed: 9,
    tail: "healthy",
  });
  const text = new TextDecoder().decode(bytes);
  const needles = [
    '"subtype":"compact_boundary"',
    '"isCompactSummary":true',
    "Stop hook feedback:",
    "<task-notification>",
    "[Request interrupted by user for tool use]",
    '"name":"mcp__github__create_issue"',
    '"name":"mcp__plugin_acme_db-tools__query"',
    '"type":"image","source":{"type":"base64","media_type":"image/png"',
    '"thinking":"","signature":"',
    '"type":"file-history-snapshot"',
    '"type":"last-prompt"',
    '"type":"queue-operation"',
    '"type":"attachment"',
    '"subtype":"turn_duration"',
    '"subtype":"stop_hook_summary"',
    "日本語",
    "é",
    "→",
    "🚀",
  ];
  for (const n of needles) assert.ok(text.includes(n), `contains ${n}`);
  const entries = parseLines(bytes);
  const multiBlock = entries.some((e) =>
    e.type === "assistant" && blocks(e).length > 1
  );
  assert.ok(multiBlock, "some older single-line assistant messages");
  const bigLine = text.split("\n").some((l) => l.length > 200_000);
  assert.ok(bigLine, "some lines of hundreds of KB");
});

Deno.test("writeCorpusSync() lays files out like ~/.claude/projects", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const corpus = writeCorpusSync(dir, {
    sessions: 8,
    sizePerSession: 1 << 20,
    seed: 1,
  });
  // Below the root, with / on every platform.
  const rel = (f: { path: string }) =>
    f.path.slice(dir.length).replaceAll("\\", "/");
  const main = corpus.files.filter((f) => !rel(f).includes("/subagents/"));
  const subs = corpus.files.filter((f) => rel(f).includes("/subagents/"));
  assert.equal(main.length, 8);
  assert.ok(subs.length > 0, "some subagent transcripts");
  for (const f of main) {
    assert.match(rel(f), /^\/-[^/]+\/[0-9a-f-]{36}\.jsonl$/);
  }
  for (const f of subs) {
    assert.match(
      rel(f),
      /^\/-[^/]+\/[0-9a-f-]{36}\/subagents\/agent-a[0-9a-f]+\.jsonl$/,
    );
    const conv = parseLines(await Deno.readFile(f.path)).filter(
      isConversation,
    );
    assert.ok(
      conv.every((e) =>
        e.isSidechain === true && typeof e.agentId === "string"
      ),
    );
  }
  let total = 0;
  for (const f of corpus.files) total += (await Deno.stat(f.path)).size;
  assert.equal(total, corpus.bytes);
});

Deno.test("parseSize() reads binary units and rejects garbage", () => {
  assert.equal(parseSize("2048"), 2048);
  assert.equal(parseSize("512KB"), 512 * 1024);
  assert.equal(parseSize("100MB"), 100 * 1024 ** 2);
  assert.equal(parseSize("1GB"), 1024 ** 3);
  assert.equal(parseSize("1.5 MiB"), 1.5 * 1024 ** 2);
  assert.throws(() => parseSize("ten"), RangeError);
  assert.throws(() => parseSize("0MB"), RangeError);
  assert.throws(() => parseSize("5XB"), RangeError);
});
