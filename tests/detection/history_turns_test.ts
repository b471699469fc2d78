/**
 * The forward history scan behind `audit` and `scan --all-turns`: turn
 * boundaries and start lines, the history rules of the classifier, the
 * byte-level pre-filter, and agreement with a plain parse of every line.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  classifyTurn,
  type TurnVerdict,
} from "../../src/detection/classify.ts";
import { signatureData } from "../../src/detection/classify.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import {
  type HistoryVerdict,
  readHistoryTurns,
  readHistoryVerdicts,
} from "../../src/detection/history_turns.ts";
import { lineEntries } from "../../src/transcript/line_entries.ts";
import {
  isSkippableLine,
  topLevelType,
} from "../../src/transcript/line_prefilter.ts";
import { readLinesForward } from "../../src/transcript/line_reader.ts";
import {
  ForwardTurnSplitter,
  type SplitTurn,
} from "../../src/transcript/turn.ts";
import { writeTranscriptSync } from "../bench/gen_transcript.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { tempProject, tempTranscript } from "../support/temp_project.ts";
import { referenceVerdicts } from "../support/reference_scan.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";

const encoder = new TextEncoder();

/** Writes `text` to a temp file and returns every turn's verdict. */
async function verdictsOf(
  text: string,
  subagent = false,
): Promise<HistoryVerdict[]> {
  await using transcript = await tempTranscript(text, "t.jsonl");
  return await verdictsAt(transcript.path, subagent);
}

async function verdictsAt(
  path: string,
  subagent: boolean,
): Promise<HistoryVerdict[]> {
  const file = await Deno.open(path);
  try {
    const verdicts: HistoryVerdict[] = [];
    for await (const v of readHistoryVerdicts(file, { subagent })) {
      verdicts.push(v);
    }
    return verdicts;
  } finally {
    file.close();
  }
}

function summary(verdicts: HistoryVerdict[]) {
  return verdicts.map((v) => ({
    startLine: v.startLine,
    reason: v.verdict.reason,
    signatures: v.verdict.signatures.map(signatureData),
  }));
}

function stalled(v: TurnVerdict) {
  return v.signatures.map((s) => [s.kind, s.toolName, s.toolUseId, s.line]);
}

Deno.test("readHistoryVerdicts() judges every turn with the history rules, lines exact", async () => {
  const t = new TranscriptBuilder();
  t.meta("permission-mode", { permissionMode: "default" });
  const p1 = t.prompt("Run the tests.");
  const killed = t.call("msg_1", "toolu_killed", "Bash", {
    command: "npm test",
  });
  t.meta("last-prompt", { lastPrompt: "Run the tests." });
  const p2 = t.prompt("What does the config do?");
  t.text("msg_2", "It sets the currency.");
  const p3 = t.prompt("Open the schema.");
  t.call("msg_3", "toolu_interrupted", "Read");
  t.interrupt();
  const p4 = t.prompt("Fetch the docs.");
  t.call("msg_4", "toolu_web", "WebFetch");
  const empty = t.result("toolu_web", "   \n");
  t.meta("file-history-snapshot", { snapshot: {} });
  const p5 = t.prompt("List the files.");
  t.call("msg_5", "toolu_ls", "Bash");
  const unanswered = t.result("toolu_ls", "a.ts\nb.ts");
  const p6 = t.prompt("Create the issue.");
  t.text("msg_6", "Creating it now.");
  const hung = t.call("msg_6", "toolu_gh", "mcp__github__create_issue");
  const p7 = t.prompt("Read the log.");
  t.call("msg_7", "toolu_first", "Read"); // never answered...
  t.stopHookFeedback("stall_watch: 1 pending tool_use");
  t.call("msg_8", "toolu_retry", "Read"); // ...the model moved on
  t.result("toolu_retry", "log text");
  t.text("msg_9", "The log shows a timeout.");
  const verdicts = await verdictsOf(t.toString());

  assert.deepEqual(verdicts.map((v) => v.startLine), [
    p1,
    p2,
    p3,
    p4,
    p5,
    p6,
    p7,
  ]);
  assert.deepEqual(verdicts.map((v) => stalled(v.verdict)), [
    [["pending_tool_use", "Bash", "toolu_killed", killed]],
    [],
    [],
    [["empty_tool_result", "WebFetch", "toolu_web", empty]],
    [["missing_followup", "Bash", "toolu_ls", unanswered]],
    [["hung_mcp_call", "mcp__github__create_issue", "toolu_gh", hung]],
    [],
  ]);
  assert.equal(verdicts[2]?.verdict.reason, "the user interrupted");
  assert.equal(verdicts[6]?.verdict.reason, "the model answered");
});

Deno.test("classifyTurn() passes over a call the model moved past, for the hook as for history", async () => {
  const t = new TranscriptBuilder();
  t.prompt("Read the log.");
  t.call("msg_1", "toolu_first", "Read");
  t.call("msg_2", "toolu_retry", "Read");
  t.result("toolu_retry", "log text");
  t.text("msg_3", "Done.");
  const [history] = await verdictsOf(t.toString());
  assert.deepEqual(stalled(history!.verdict), []);

  // The same turn as the hook reads it (no history context).
  await using project = await tempProject();
  const path = join(project.dir, "t.jsonl");
  await Deno.writeTextFile(path, t.toString());
  const file = await Deno.open(path);
  const entries: Entry[] = [];
  for await (const raw of readLinesForward(file)) {
    entries.push(...lineEntries(raw, raw.line));
  }
  file.close();
  const hook = classifyTurn(entries.slice(1), { backgroundTasks: [] });
  assert.deepEqual(stalled(hook), []);
  assert.equal(hook.reason, "the model answered");
});

Deno.test("classifyTurn() still flags the unanswered calls of the model's last message", async () => {
  const t = new TranscriptBuilder();
  t.prompt("Check both.");
  t.text("msg_1", "Checking both files.");
  const a = t.call("msg_1", "toolu_a", "Read");
  t.call("msg_1", "toolu_b", "Grep");
  t.result("toolu_b", "3 matches");
  const [turn] = await verdictsOf(t.toString());
  assert.deepEqual(stalled(turn!.verdict), [[
    "pending_tool_use",
    "Read",
    "toolu_a",
    a,
  ]]);
});

Deno.test("ForwardTurnSplitter opens a turn at every prompt, shared promptId or not, and at a new promptId, not at a compaction", () => {
  const at = (
    line: number,
    kind: Entry["kind"],
    promptId: string | null,
  ): Entry => {
    const base = { offset: line * 10, line, promptId, sidechain: false };
    return kind === "assistant"
      ? { kind, ...base, messageId: null, texts: ["t"], toolUses: [] }
      : { kind, ...base } as Entry;
  };
  const splitter = new ForwardTurnSplitter({ includeSidechains: false });
  const stream = [
    at(1, "assistant", null), // the rest of a turn begun in another file
    at(2, "prompt", "a"),
    at(3, "assistant", "a"),
    at(4, "prompt", "a"), // VS Code stamped several prompts with one promptId
    at(5, "assistant", "a"),
    at(6, "note", "b"), // a new promptId without a prompt opens a turn
    at(7, "boundary", "b"), // a compaction goes on in its turn
    at(8, "assistant", "b"),
  ];
  const turns: [number, number[]][] = [];
  const add = (closed: SplitTurn[]) => {
    for (const t of closed) {
      turns.push([
        t.startLine,
        t.entries.map((e) => e.line),
      ]);
    }
  };
  for (const entry of stream) add(splitter.push(entry));
  add(splitter.finish());
  assert.deepEqual(turns, [[1, [1]], [2, [3]], [4, [5]], [6, [6, 7, 8]]]);
});

Deno.test("readHistoryVerdicts() reads every call of a long single-line message and sniffs long results", async () => {
  const t = new TranscriptBuilder("9c1f", { legacy: true });
  t.prompt("Compare the two files.");
  const long = t.assistant("msg_1", [
    { type: "thinking", thinking: "x".repeat(20_000), signature: "s" },
    { type: "text", text: "Reading both." },
    {
      type: "tool_use",
      id: "toolu_one",
      name: "Read",
      input: { file_path: "/a" },
    },
    {
      type: "tool_use",
      id: "toolu_two",
      name: "Read",
      input: { file_path: "/b" },
    },
  ]);
  t.result("toolu_one", "y".repeat(50_000));
  const verdicts = await verdictsOf(t.toString());
  assert.deepEqual(verdicts.map((v) => stalled(v.verdict)), [
    [["pending_tool_use", "Read", "toolu_two", long]],
  ]);
});

Deno.test("readHistoryVerdicts() reads sidechain turns only in a subagent transcript", async () => {
  const t = new TranscriptBuilder("5e1d", { sidechain: true });
  t.prompt("Survey the readers.");
  const call = t.call("msg_1", "toolu_grep", "Grep");
  assert.deepEqual(await verdictsOf(t.toString(), false), []);
  const [turn] = await verdictsOf(t.toString(), true);
  assert.deepEqual(stalled(turn!.verdict), [[
    "pending_tool_use",
    "Grep",
    "toolu_grep",
    call,
  ]]);
});

Deno.test("history scan agrees with a plain parse of every line on every fixture", async () => {
  for (const entry of Deno.readDirSync(FIXTURES_DIR)) {
    if (!entry.name.endsWith(".jsonl")) continue;
    const path = join(FIXTURES_DIR, entry.name);
    for (const subagent of [false, true]) {
      assert.deepEqual(
        summary(await verdictsAt(path, subagent)),
        summary(await referenceVerdicts(path, subagent)),
        `${entry.name} (subagent: ${subagent})`,
      );
    }
  }
});

Deno.test("history scan agrees with a plain parse of every line on generated transcripts", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const main = join(dir, "main.jsonl");
  const stalledTail = writeTranscriptSync(main, {
    size: 12 << 20,
    seed: 11,
    tail: "stalled",
  });
  const agent = join(dir, "agent-a1.jsonl");
  writeTranscriptSync(agent, {
    size: 2 << 20,
    seed: 12,
    tail: "healthy",
    agentId: "a1",
  });
  const verdicts = await verdictsAt(main, false);
  assert.deepEqual(
    summary(verdicts),
    summary(await referenceVerdicts(main, false)),
  );
  assert.ok(verdicts.length > 100, `${verdicts.length} turns`);
  const last = verdicts.at(-1)!.verdict.signatures;
  assert.deepEqual(last.map((s) => [s.kind, s.toolUseId]), [
    ["pending_tool_use", stalledTail.pendingToolUseId],
  ]);
  const agentVerdicts = await verdictsAt(agent, true);
  assert.deepEqual(
    summary(agentVerdicts),
    summary(await referenceVerdicts(agent, true)),
  );
  assert.ok(agentVerdicts.length > 5);
});

Deno.test("a line the pre-filter skips never holds an entry (fixtures and a generated transcript)", async () => {
  await using project = await tempProject();
  const dir = project.dir;
  const generated = join(dir, "g.jsonl");
  writeTranscriptSync(generated, { size: 4 << 20, seed: 5, tail: "healthy" });
  const paths = [...Deno.readDirSync(FIXTURES_DIR)]
    .filter((e) => e.name.endsWith(".jsonl"))
    .map((e) => join(FIXTURES_DIR, e.name));
  let skipped = 0;
  for (const path of [...paths, generated]) {
    const file = await Deno.open(path);
    for await (
      const raw of readLinesForward(file, { maxLineBytes: 2 ** 30 })
    ) {
      if (!isSkippableLine(raw.head)) continue;
      skipped++;
      assert.deepEqual(lineEntries(raw, raw.line), [], `${path}:${raw.line}`);
    }
    file.close();
  }
  assert.ok(skipped > 100, `${skipped} lines skipped`);
});

Deno.test("topLevelType() reads only the top-level type key", () => {
  const type = (text: string) => topLevelType(encoder.encode(text));
  assert.equal(
    type('{"type":"file-history-snapshot","x":1}'),
    "file-history-snapshot",
  );
  assert.equal(type('{"parentUuid":null,"type":"user","message":{}}'), "user");
  assert.equal(type('  { "a" : "x", "type" : "assistant" }'), "assistant");
  assert.equal(
    type('{"message":{"type":"message"},"type":"assistant"}'),
    "assistant",
  );
  assert.equal(
    type('{"cwd":"C:\\\\","note":"\\"type\\":\\"x\\"","type":"user"}'),
    "user",
  );
  assert.equal(type('{"content":[{"type":"text"}]}'), null);
  assert.equal(type('{"type":1}'), null);
  assert.equal(type('["type","user"]'), null);
  assert.equal(type('{"parentUuid":"abc'), null); // clipped inside a string
  assert.equal(isSkippableLine(encoder.encode('{"type":"last-prompt"}')), true);
  assert.equal(isSkippableLine(encoder.encode('{"type":"user"}')), false);
  // A NUL run may hide a second, real entry: never skip it.
  assert.equal(
    isSkippableLine(encoder.encode('{"type":"ai-title"}\0\0{"type":"user"}')),
    false,
  );
  // Conversation entries put the envelope first; those lines are parsed.
  assert.equal(
    isSkippableLine(encoder.encode('{"parentUuid":null,"type":"attachment"}')),
    false,
  );
});

Deno.test("a history keeps the words it judges, a turn's last messages' and a background launch's, however many messages came before", async () => {
  const t = new TranscriptBuilder();
  // A long turn of chatter and calls, then an announcement and the stop.
  t.prompt("Tidy the repository");
  for (let i = 0; i < 60; i++) {
    t.text(`msg_${i}`, `Step ${i} done. ${"x".repeat(2_000)}`);
    t.call(`msg_${i}`, `toolu_${i}`, "Bash", { command: "true" });
    t.result(`toolu_${i}`, "ok");
  }
  t.text("msg_last", "Now let me run the tests:");
  t.stopSummary();
  // The same, after a call that started a shell in the background.
  t.prompt("Start the server");
  t.call("msg_bg", "toolu_bg", "Bash", { command: "serve" });
  t.result(
    "toolu_bg",
    `Command running in background with ID: b7e2k9.${" ".repeat(500)}`,
    { toolUseResult: { stdout: "", stderr: "", backgroundTaskId: "b7e2k9" } },
  );
  t.text("msg_bg2", "Let me check the logs:");
  t.stopSummary();
  const verdicts = await verdictsOf(t.toString());
  assert.equal(verdicts.length, 2);
  assert.equal(
    verdicts[0]?.announced?.announcement,
    "Now let me run the tests:",
  );
  // Waiting for its background shell: no announced stop.
  assert.equal(verdicts[1]?.announced, undefined);
});

Deno.test("a history turn of many long messages keeps the words of its newest few, each cut to its end: memory follows the judged words, not the turn", async () => {
  const t = new TranscriptBuilder();
  t.prompt("Refactor everything");
  const messages = 300;
  for (let i = 0; i < messages; i++) {
    t.text(`msg_${i}`, `Step ${i}. ${"w".repeat(10_000)}`);
    t.call(`msg_${i}`, `toolu_${i}`, "Bash", { command: "true" });
    t.result(`toolu_${i}`, "ok");
  }
  // A closing text longer than what is judged: its end is what counts.
  const closing = `${"z".repeat(40_000)}.\n\nLet me run the tests now:`;
  t.text("msg_last", closing);
  t.stopSummary();
  t.prompt("Thanks");
  t.text("msg_bye", "You're welcome.");
  t.stopSummary();

  await using transcript = await tempTranscript(t.toString(), "t.jsonl");
  const file = await Deno.open(transcript.path);
  const turns = [];
  try {
    for await (const turn of readHistoryTurns(file, { subagent: false })) {
      turns.push(turn);
    }
  } finally {
    file.close();
  }
  assert.equal(turns.length, 2);
  const texts = turns[0]!.entries.flatMap((e) =>
    e.kind === "assistant" ? e.texts : []
  );
  assert.equal(texts.length, messages + 1, "every message keeps a text");
  const withWords = texts.filter((text) => text !== "(text)");
  // The newest messages keep their words, at most twice the kept count.
  assert.ok(
    withWords.length >= 16 && withWords.length <= 32,
    `${withWords.length}`,
  );
  const kept = texts.reduce((sum, text) => sum + text.length, 0);
  assert.ok(kept <= 32 * 16 * 1024 + messages * 10, `${kept} characters kept`);
  // The turn's final words are whole at their end, cut to what is judged.
  const last = texts.at(-1)!;
  assert.ok(last.endsWith(".\n\nLet me run the tests now:"));
  assert.ok(last.length <= 16 * 1024, `${last.length}`);
  assert.equal(texts.at(-2), `Step ${messages - 1}. ${"w".repeat(10_000)}`);

  const verdicts = await verdictsOf(t.toString());
  assert.equal(
    verdicts[0]?.announced?.announcement,
    "Let me run the tests now:",
  );
});
