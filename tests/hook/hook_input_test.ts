import assert from "node:assert/strict";
import { FORKED_SUBAGENT_ID, forkStopPayload } from "../support/transcripts.ts";
import { InputError } from "../../src/shared/errors.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";

Deno.test("readStopPayload() reads the Stop payload by name and ignores unknown fields", () => {
  const input = readStopPayload(JSON.stringify({
    session_id: "abc",
    transcript_path: "/t.jsonl",
    cwd: "/p",
    hook_event_name: "Stop",
    stop_hook_active: true,
    prompt_id: "p1",
    last_assistant_message: "Done.",
    background_tasks: [{ id: "t", type: "shell", status: "running" }],
    effort: { level: "high" },
    brand_new_field: [1, 2, 3],
  })).input();
  assert.equal(input.scanPath, "/t.jsonl");
  assert.equal(input.stopHookActive, true);
  assert.equal(input.promptId, "p1");
  assert.equal(input.lastAssistantMessage, "Done.");
  assert.equal(input.backgroundTasks.length, 1);
  assert.equal(input.isSubagent, false);
});

Deno.test("readStopPayload() judges a SubagentStop on the subagent's own transcript", () => {
  const input = readStopPayload(JSON.stringify({
    transcript_path: "/parent.jsonl",
    hook_event_name: "SubagentStop",
    agent_transcript_path: "/parent/subagents/agent-1.jsonl",
  })).input();
  assert.equal(input.scanPath, "/parent/subagents/agent-1.jsonl");
  assert.equal(input.isSubagent, true);
  const internal = readStopPayload(
    '{"transcript_path": "/parent.jsonl", "hook_event_name": "SubagentStop", "agent_type": ""}',
  ).input();
  assert.equal(internal.scanPath, null, "no agent transcript: no evidence");
});

Deno.test('readStopPayload() knows Claude Code\'s own fork (agent_type "") and a subagent background_tasks lists as running', () => {
  const fork = readStopPayload(JSON.stringify(forkStopPayload("/p"))).input();
  assert.equal(fork.claudeFork, true);
  assert.equal(fork.subagentRunning, false, "the fork is not the task");
  // The subagent's own SubagentStop, while the payload lists it running.
  const running = readStopPayload(JSON.stringify({
    ...forkStopPayload("/p"),
    agent_id: FORKED_SUBAGENT_ID,
    agent_type: "general-purpose",
  })).input();
  assert.equal(running.claudeFork, false);
  assert.equal(running.subagentRunning, true);
  // A finished task, a Stop, or a payload without agent_type: neither.
  for (
    const payload of [
      {
        hook_event_name: "SubagentStop",
        agent_id: "a1",
        background_tasks: [{ id: "a1", type: "subagent", status: "completed" }],
      },
      { hook_event_name: "Stop", agent_type: "", agent_id: "a1" },
      { hook_event_name: "SubagentStop", agent_id: "a1" },
    ]
  ) {
    const input = readStopPayload(
      JSON.stringify({ transcript_path: "/t", ...payload }),
    ).input();
    assert.deepEqual(
      [input.claudeFork, input.subagentRunning],
      [false, false],
      JSON.stringify(payload),
    );
  }
});

Deno.test("readStopPayload() treats absent or mistyped optional fields as absent", () => {
  const input = readStopPayload(
    '{"transcript_path": "t", "last_assistant_message": 5, "stop_hook_active": "yes", "prompt_id": 9}',
  ).input();
  assert.equal(input.lastAssistantMessage, null);
  assert.equal(input.stopHookActive, false);
  assert.equal(input.promptId, null);
  assert.equal(input.sessionId, "");
});

Deno.test("readStopPayload() rejects unusable payloads with one-line InputErrors", () => {
  const cases: [string, string][] = [
    ["", "Cannot parse hook input: stdin is empty"],
    [" \n", "Cannot parse hook input: stdin is empty"],
    ["null", "Cannot parse hook input: expected a JSON object, got null"],
    ['"text"', "Cannot parse hook input: expected a JSON object, got a string"],
    ["{}", 'Cannot parse hook input: "transcript_path" is missing'],
    [
      '{"transcript_path": ""}',
      'Cannot parse hook input: "transcript_path" must be a non-empty string, got an empty string',
    ],
    [
      '{"transcript_path": "a\\u0000b"}',
      'Cannot parse hook input: "transcript_path" contains a NUL byte',
    ],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => readStopPayload(text).input(),
      (e: unknown) => e instanceof InputError && e.message === message,
    );
  }
  assert.throws(
    () => readStopPayload("{oops\n\nmore").input(),
    (e: unknown) =>
      e instanceof InputError && !(e.message.includes("\n")) &&
      e.message.startsWith("Cannot parse hook input: not valid JSON"),
  );
});
