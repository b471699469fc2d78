/**
 * The rollout reader on real Codex 0.171.0 captures (`fixtures/codex/`):
 * the current turn at Stop, by the payload's `turn_id`, fed to the same
 * classifier as Claude Code's transcripts, gives the kind each capture
 * shows; every turn read forward gives the history's verdicts and how each
 * turn ended.
 */

import assert from "node:assert/strict";
import { scanCodexTurn } from "../../src/codex/_current_turn.ts";
import { codexReader } from "../../src/codex/codex_reader.ts";
import { readRolloutTurns } from "../../src/codex/rollout_history.ts";
import { announcedStop } from "../../src/detection/announcement.ts";
import { classifyTurn } from "../../src/detection/classify.ts";
import { historyVerdict } from "../../src/detection/history_turns.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import {
  type CodexFixture,
  codexFixture,
  codexFixtures,
  codexStops,
} from "../support/codex_fixtures.ts";

/** What the current turn of each capture is judged. */
const CURRENT: Record<string, string[]> = {
  "codex_healthy_call_then_text.jsonl": [],
  "codex_call_then_empty_reply.jsonl": ["missing_followup exec_command"],
  "codex_empty_exec_output_no_reply.jsonl": ["empty_tool_result exec_command"],
  "codex_empty_exec_output_answered.jsonl": [],
  "codex_announced_then_stopped.jsonl": ["announced_no_call"],
  "codex_blocked_then_answered.jsonl": [],
  "codex_blocked_then_answered_end.jsonl": [],
  "codex_custom_tool_call_then_empty_reply.jsonl": [
    "missing_followup apply_patch",
  ],
  "codex_interrupted_during_call.jsonl": [],
  "codex_killed_during_call_resumed.jsonl": [],
  "codex_stalled_turn_then_healthy_turn.jsonl": [],
  "codex_partial_output_then_reply.jsonl": [],
  "codex_partial_output_no_reply.jsonl": ["missing_followup exec_command"],
  "codex_mcp_empty_result_no_reply.jsonl": [
    "empty_tool_result mcp__stub__empty",
  ],
  "codex_mcp_slow_call_killed.jsonl": ["hung_mcp_call mcp__stub__slow"],
};

/** Each turn of each capture read forward: `<ending> <kinds...>`. */
const HISTORY: Record<string, string[]> = {
  "codex_healthy_call_then_text.jsonl": ["no_end"],
  "codex_call_then_empty_reply.jsonl": [
    "no_end missing_followup exec_command",
  ],
  "codex_empty_exec_output_no_reply.jsonl": [
    "no_end empty_tool_result exec_command",
  ],
  "codex_empty_exec_output_answered.jsonl": ["no_end"],
  "codex_announced_then_stopped.jsonl": ["no_end announced"],
  "codex_blocked_then_answered.jsonl": ["no_end"],
  "codex_blocked_then_answered_end.jsonl": ["ended"],
  "codex_custom_tool_call_then_empty_reply.jsonl": [
    "no_end missing_followup apply_patch",
  ],
  "codex_interrupted_during_call.jsonl": ["ended"],
  "codex_killed_during_call_resumed.jsonl": [
    "process_died pending_tool_use exec_command",
    "ended",
  ],
  "codex_stalled_turn_then_healthy_turn.jsonl": [
    "ended missing_followup exec_command",
    "no_end",
  ],
  "codex_partial_output_then_reply.jsonl": ["no_end"],
  "codex_partial_output_no_reply.jsonl": [
    "no_end missing_followup exec_command",
  ],
  "codex_mcp_empty_result_no_reply.jsonl": [
    "no_end empty_tool_result mcp__stub__empty",
  ],
  "codex_mcp_slow_call_killed.jsonl": ["no_end hung_mcp_call mcp__stub__slow"],
};

async function currentTurn(fixture: CodexFixture): Promise<Entry[]> {
  const scan = await scanCodexTurn(fixture.path, { turnId: fixture.turnId });
  assert.ok(scan, fixture.name);
  assert.equal(scan.reachedStart, true, `${fixture.name}: start found`);
  assert.equal(scan.otherTurn, false);
  assert.equal(scan.budget, null);
  return scan.entries;
}

function judged(entries: Entry[]): string[] {
  const verdict = classifyTurn(entries, { backgroundTasks: [] });
  const kinds = verdict.signatures.map((s) => `${s.kind} ${s.toolName}`);
  const announced = announcedStop(
    entries,
    { backgroundTasks: [] },
    kinds.length > 0,
  );
  return announced ? [...kinds, "announced_no_call"] : kinds;
}

Deno.test("every Codex capture has its expectations here, and every expectation a capture", () => {
  const names = codexFixtures().map((f) => f.name);
  assert.deepEqual(Object.keys(CURRENT).sort(), names);
  assert.deepEqual(Object.keys(HISTORY).sort(), names);
});

for (const fixture of codexFixtures()) {
  Deno.test(
    `current turn of ${fixture.name}, through the classifier: ${
      CURRENT[fixture.name]?.join(", ") || "healthy"
    }`,
    async () => {
      assert.deepEqual(
        judged(await currentTurn(fixture)),
        CURRENT[fixture.name],
      );
    },
  );

  Deno.test(
    `every turn of ${fixture.name}, read forward: ${
      HISTORY[fixture.name]?.join("; ")
    }`,
    async () => {
      using file = await Deno.open(fixture.path);
      const turns: string[] = [];
      for await (const turn of readRolloutTurns(file)) {
        const verdict = historyVerdict(turn, false);
        turns.push(
          [
            verdict.ending,
            ...verdict.verdict.signatures.map((s) => `${s.kind} ${s.toolName}`),
            ...(verdict.announced ? ["announced"] : []),
          ].join(" "),
        );
      }
      assert.deepEqual(turns, HISTORY[fixture.name]);
    },
  );
}

Deno.test("the current turn starts at the payload's task_started: the prompt, the model's words, the call, its output", async () => {
  const fixture = codexFixture("codex_healthy_call_then_text.jsonl");
  const entries = await currentTurn(fixture);
  // Injected text first (instructions, <environment_context>), then the
  // prompt typed, then what the model did.
  assert.deepEqual(entries.map((e) => e.kind), [
    "note",
    "note",
    "prompt",
    "assistant",
    "assistant",
    "results",
    "assistant",
  ]);
  const [call, output] = [entries[4], entries[5]];
  assert.equal(call?.kind, "assistant");
  assert.equal(output?.kind, "results");
  if (call?.kind !== "assistant" || output?.kind !== "results") return;
  assert.equal(call.toolUses[0]?.name, "exec_command");
  assert.deepEqual(call.toolUses[0]?.input, {
    field: "cmd",
    value: "echo hello",
  });
  assert.equal(output.results[0]?.toolUseId, call.toolUses[0]?.id);
  assert.equal(output.results[0]?.empty, false);
  for (const entry of entries) assert.equal(entry.promptId, fixture.turnId);
});

Deno.test("a Stop hook's block reason (<hook_prompt ...>) is a note, not a prompt: the re-stop judges the whole turn", async () => {
  const fixture = codexFixture("codex_blocked_then_answered.jsonl");
  assert.equal(fixture.stops[1]?.payload.stop_hook_active, true);
  assert.equal(fixture.stops[0]?.payload.turn_id, fixture.turnId);
  const entries = await currentTurn(fixture);
  assert.deepEqual(entries.filter((e) => e.kind === "prompt").length, 1);
  const notes = entries.filter((e) => e.kind === "note");
  assert.equal(notes.length, 3); // instructions, environment, hook prompt
  // The call and its unanswered output are still in the turn, answered now.
  assert.ok(entries.some((e) => e.kind === "results"));
});

Deno.test("at the first Stop of a blocked turn the turn is the stall the hook blocked", async () => {
  const fixture = codexFixture("codex_blocked_then_answered.jsonl");
  // The rollout at the second Stop, cut where the first Stop saw it: up to
  // the output's token count, before the <hook_prompt> line.
  const text = await Deno.readTextFile(fixture.path);
  const lines = text.split("\n");
  const prompt = lines.findIndex((l) => l.includes("<hook_prompt"));
  assert.ok(prompt > 0);
  await using dir = await tempDir();
  const cut = `${dir.path}/at_first_stop.jsonl`;
  await Deno.writeTextFile(cut, lines.slice(0, prompt).join("\n") + "\n");
  const scan = await scanCodexTurn(cut, { turnId: fixture.turnId });
  assert.deepEqual(judged(scan?.entries ?? []), [
    "missing_followup exec_command",
  ]);
});

Deno.test("an interrupt (SIGINT) is an interrupt twice over: the injected <turn_aborted> message and turn_aborted", async () => {
  const fixture = codexFixture("codex_interrupted_during_call.jsonl");
  assert.equal(fixture.stops.length, 0, "no Stop hook runs on an interrupt");
  const scan = await scanCodexTurn(fixture.path, { turnId: null });
  assert.ok(scan?.endedOnFile);
  const kinds = scan.entries.map((e) => e.kind);
  assert.deepEqual(kinds.slice(-2), ["interrupt", "interrupt"]);
  const output = scan.entries.find((e) => e.kind === "results");
  assert.equal(
    output?.kind === "results" && output.results[0]?.userStopped,
    true,
  );
});

Deno.test("the payload's turn_id picks the turn: the older, stalled turn of the session is not the current one", async () => {
  const fixture = codexFixture("codex_stalled_turn_then_healthy_turn.jsonl");
  const [first, second] = fixture.stops;
  assert.notEqual(first?.payload.turn_id, second?.payload.turn_id);
  // Asked for the older turn, the reader finds the newer turn's start first.
  const older = await scanCodexTurn(fixture.path, {
    turnId: String(first?.payload.turn_id),
  });
  assert.equal(older?.otherTurn, true);
  assert.equal(older?.reachedStart, false);
  const newer = await scanCodexTurn(fixture.path, { turnId: null });
  assert.equal(newer?.turnId, second?.payload.turn_id);
  assert.deepEqual(judged(newer?.entries ?? []), []);
});

Deno.test("--ephemeral: the Stop payload names no rollout (transcript_path null)", () => {
  const [stop] = codexStops("codex_ephemeral_call_then_empty_reply.jsonl");
  assert.equal(stop?.payload.transcript_path, null);
  assert.equal(stop?.payload.last_assistant_message, null);
  assert.equal(typeof stop?.payload.turn_id, "string");
});

Deno.test("a missing rollout is null, a folder is one clear error", async () => {
  assert.equal(
    await scanCodexTurn("/nonexistent/rollout.jsonl", { turnId: null }),
    null,
  );
  await using dir = await tempDir();
  await assert.rejects(
    () => scanCodexTurn(dir.path, { turnId: null }),
    /not a regular file|directory/i,
  );
});

async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "codex-reader-" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

Deno.test("codexReader, the TranscriptReader a Codex door hands detection: the turn by its turn_id (as promptId), and what appended lines can change", async () => {
  const fixture = codexFixture("codex_call_then_empty_reply.jsonl");
  const scan = await codexReader.currentTurn(fixture.path, {
    promptId: fixture.turnId,
    includeSidechains: false,
  });
  assert.ok(scan?.reachedStart);
  assert.equal(scan.opener, null);
  assert.equal(scan.endOffset, fixture.bytes.length);
  assert.deepEqual(judged(scan.entries), ["missing_followup exec_command"]);
  const lines = new TextDecoder().decode(fixture.bytes).split("\n");
  const start = lines.findIndex((l) => l.includes('"task_started"'));
  assert.equal(
    scan.startOffset,
    new TextEncoder().encode(lines.slice(0, start).join("\n") + "\n").length,
  );
  await using dir = await tempDir();
  const path = `${dir.path}/rollout.jsonl`;
  await Deno.writeFile(path, fixture.bytes);
  const end = fixture.bytes.length;
  const changed = async (from: number) =>
    (await codexReader.appended(path, from, { includeSidechains: false }))
      ?.changed;
  assert.equal(await changed(end), false);
  // A token count changes nothing; the turn's task_complete does.
  await Deno.writeTextFile(
    path,
    '{"timestamp":"2026-12-06T05:28:52.125Z","ordinal":30,"type":"event_msg","payload":{"type":"token_count","info":null}}\n',
    { append: true },
  );
  assert.equal(await changed(end), false);
  await Deno.writeTextFile(
    path,
    `{"timestamp":"2026-12-06T05:28:52.125Z","ordinal":31,"type":"event_msg","payload":{"type":"task_complete","turn_id":"${fixture.turnId}"}}\n`,
    { append: true },
  );
  assert.equal(await changed(end), true);
  assert.equal(
    await codexReader.appended(`${dir.path}/gone.jsonl`, 0, {
      includeSidechains: false,
    }),
    null,
  );
});
