import assert from "node:assert/strict";
import { runningBackgroundTasks } from "../../src/detection/background_tasks.ts";
import {
  type ClassifyContext,
  classifyTurn,
} from "../../src/detection/classify.ts";
import type { Entry, ToolResult } from "../../src/transcript/entry.ts";
import { provesFollowUp } from "../../src/detection/_lag_evidence.ts";

let offset = 0;
const base = () => ({
  offset: offset += 100,
  line: 0,
  promptId: null,
  sidechain: false,
});
const say = (...texts: string[]): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: "msg_1",
  texts,
  toolUses: [],
});
const call = (id: string, name = "Read"): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: "msg_1",
  texts: [],
  toolUses: [{ id, name }],
});
const result = (id: string, patch: Partial<ToolResult> = {}): Entry => ({
  kind: "results",
  ...base(),
  results: [{
    toolUseId: id,
    empty: false,
    userStopped: false,
    snippet: "ok",
    ...patch,
  }],
});
const interrupt = (): Entry => ({ kind: "interrupt", ...base() });
const note = (): Entry => ({ kind: "note", ...base() });
const none: ClassifyContext = { backgroundTasks: [] };
const kinds = (turn: Entry[], context = none) =>
  classifyTurn(turn, context).signatures.map((s) => [s.kind, s.toolUseId]);

Deno.test("classifyTurn() calls a turn healthy when the model answered its results", () => {
  assert.deepEqual(kinds([say("Hi")]), []);
  assert.deepEqual(kinds([call("a"), result("a"), say("Done")]), []);
  assert.deepEqual(
    kinds([
      call("a"),
      result("a", { empty: true }),
      call("b"),
      result("b"),
      say("Done"),
    ]),
    [],
  );
  assert.deepEqual(kinds([]), []);
});

Deno.test("classifyTurn() finds unanswered calls and names MCP ones hung", () => {
  assert.deepEqual(kinds([say("Let me look"), call("a")]), [[
    "pending_tool_use",
    "a",
  ]]);
  assert.deepEqual(kinds([call("a", "mcp__github__create_issue")]), [[
    "hung_mcp_call",
    "a",
  ]]);
  assert.deepEqual(kinds([call("a"), call("b"), result("b")]), [[
    "pending_tool_use",
    "a",
  ]]);
});

Deno.test("classifyTurn() reports empty trailing results, and missing follow-up only when nothing else fires", () => {
  assert.deepEqual(kinds([call("a"), result("a", { empty: true })]), [[
    "empty_tool_result",
    "a",
  ]]);
  assert.deepEqual(
    kinds([call("a"), call("b"), result("b", { empty: true }), result("a")]),
    [["empty_tool_result", "b"]],
  );
  assert.deepEqual(kinds([call("a"), result("a"), note()]), [[
    "missing_followup",
    "a",
  ]]);
  assert.deepEqual(kinds([call("a"), call("b"), result("b"), result("a")]), [[
    "missing_followup",
    "a",
  ]]);
  const verdict = classifyTurn([call("a"), result("a")], none);
  assert.equal(
    verdict.reason,
    "no assistant text or tool call after the last tool_result",
  );
});

Deno.test("classifyTurn() lets the user end a turn: interrupts and refusals are not stalls", () => {
  assert.deepEqual(kinds([call("a"), interrupt()]), []);
  assert.deepEqual(kinds([call("a"), result("a", { userStopped: true })]), []);
  assert.equal(
    classifyTurn([call("a"), interrupt()], none).reason,
    "the user interrupted",
  );
  assert.deepEqual(
    kinds([interrupt(), call("a")]),
    [["pending_tool_use", "a"]],
    "activity after an interrupt counts",
  );
});

Deno.test("classifyTurn() lets another hook end a turn on purpose: its hook_stop record after the model's last move", () => {
  const stop = (hookName: string): Entry => ({
    kind: "hook_stop",
    ...base(),
    hookName,
  });
  assert.deepEqual(
    kinds([call("a"), result("a"), stop("PostToolUse:Read")]),
    [],
  );
  assert.equal(
    classifyTurn([call("a"), result("a"), stop("PreToolUse:Read")], none)
      .reason,
    "PreToolUse:Read ended the turn on purpose (continue: false)",
  );
  assert.equal(
    classifyTurn([call("a"), result("a"), stop("")], none).reason,
    "another hook ended the turn on purpose (continue: false)",
  );
  // What the model did after the record is judged as ever.
  assert.deepEqual(
    kinds([call("a"), result("a"), stop("PostToolUse:Read"), call("b")]),
    [["pending_tool_use", "b"]],
  );
});

Deno.test("classifyTurn() excuses calls linked to running background work", () => {
  const mcp = runningBackgroundTasks([{
    id: "t1",
    type: "MCP task",
    status: "running",
    server: "github",
    tool: "create_issue",
  }]);
  assert.deepEqual(
    kinds([call("a", "mcp__github__create_issue")], { backgroundTasks: mcp }),
    [],
  );
  assert.deepEqual(
    kinds([call("a", "mcp__github__list_issues")], { backgroundTasks: mcp }),
    [["hung_mcp_call", "a"]],
  );
  const quoted = runningBackgroundTasks([{
    id: "bash_42",
    type: "shell",
    status: "running",
  }]);
  const moved = result("a", {
    snippet: "Command running in background with ID: bash_42",
  });
  assert.deepEqual(
    kinds([call("a", "Bash"), moved], { backgroundTasks: quoted }),
    [],
  );
  const done = runningBackgroundTasks([{
    id: "bash_42",
    type: "shell",
    status: "completed",
  }]);
  assert.deepEqual(
    kinds([call("a", "Bash"), moved], { backgroundTasks: done }),
    [["missing_followup", "a"]],
  );
  const agent = runningBackgroundTasks([{
    id: "ag1",
    type: "subagent",
    status: "running",
  }]);
  assert.deepEqual(kinds([call("a", "Agent")], { backgroundTasks: agent }), []);
});

Deno.test("runningBackgroundTasks() tolerates any shape", () => {
  assert.deepEqual(runningBackgroundTasks("nope"), []);
  assert.deepEqual(runningBackgroundTasks([null, 3, { status: "killed" }]), []);
  assert.equal(runningBackgroundTasks([{ id: 5 }])[0]?.id, "");
});

Deno.test("provesFollowUp() accepts only new, non-blank text", () => {
  const turn = [say("Let me read the config."), call("a")];
  assert.equal(provesFollowUp(null, turn), false);
  assert.equal(provesFollowUp("   ", turn), false);
  assert.equal(
    provesFollowUp("Let me read   the config.\n", turn),
    false,
    "whitespace differences do not count",
  );
  assert.equal(provesFollowUp("The port is 8081.", turn), true);
  const split = [say("Part one."), say("Part two."), call("b")];
  assert.equal(
    provesFollowUp("Part one.\n\nPart two.", split),
    false,
    "joined texts of one message",
  );
});

const apiError = (): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: "3b7d2f9e-6c41-4a8b-9e05-7f1c3d5a2b86",
  texts: ["API Error: 500 Internal server error"],
  toolUses: [],
  apiError: true,
});

Deno.test("classifyTurn() never takes a synthetic API-error entry for the model's follow-up", () => {
  const stalled = classifyTurn([call("a"), result("a"), apiError()], none);
  assert.deepEqual(stalled.signatures.map((s) => [s.kind, s.toolUseId]), [[
    "missing_followup",
    "a",
  ]]);
  assert.equal(stalled.endedOnApiError, true);
  // An empty result stays empty, a pending call stays pending.
  assert.deepEqual(
    kinds([call("a"), result("a", { empty: true }), apiError()]),
    [["empty_tool_result", "a"]],
  );
  assert.deepEqual(kinds([call("a"), apiError()]), [["pending_tool_use", "a"]]);
});

Deno.test("classifyTurn() says a turn ended on an API error only when nothing the model did followed", () => {
  const retried = classifyTurn(
    [call("a"), result("a"), apiError(), say("Done")],
    none,
  );
  assert.deepEqual(retried.signatures, []);
  assert.equal("endedOnApiError" in retried, false);
  const noTools = classifyTurn([apiError(), note()], none);
  assert.deepEqual(noTools.signatures, []);
  assert.equal(noTools.endedOnApiError, true);
  assert.equal("endedOnApiError" in classifyTurn([say("Hi")], none), false);
});

/** A model line of message `id` that records `stopReason` and `texts`. */
const stopped = (
  id: string,
  stopReason: string | undefined,
  ...texts: string[]
): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: id,
  texts,
  toolUses: [],
  ...(stopReason === undefined ? {} : { stopReason }),
});
const synthetic = (): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: "8c0f6a52-2d7e-4f0b-93a1-5b6e4c2d1f07",
  texts: [],
  toolUses: [],
  synthetic: true,
});

Deno.test("classifyTurn() calls a turn that ends on a message stopped for tool_use, with no call on file, a lost tool call", () => {
  const lost = classifyTurn(
    [stopped("msg_9", "tool_use", "Let me call")],
    none,
  );
  assert.deepEqual(
    lost.signatures.map((s) => [s.kind, s.toolName, s.toolUseId]),
    [["lost_tool_call", "", "msg_9"]],
  );
  // Without text too (a thinking-only message), and after answered work:
  // the message is the model acting, so the result before it is answered.
  assert.deepEqual(
    kinds([call("a"), result("a"), stopped("msg_9", "tool_use")]),
    [["lost_tool_call", "msg_9"]],
  );
  // Claude Code's own entries after it change nothing.
  assert.deepEqual(
    kinds([stopped("msg_9", "tool_use", "Let me call"), apiError(), note()]),
    [["lost_tool_call", "msg_9"]],
  );
  assert.deepEqual(
    kinds([stopped("msg_9", "tool_use", "Let me call"), synthetic()]),
    [["lost_tool_call", "msg_9"]],
  );
  // An earlier call without a result on file is one the model moved past
  // (its later message proves the result was sent): only the lost call.
  assert.deepEqual(kinds([call("a"), stopped("msg_9", "tool_use", "Now")]), [
    ["lost_tool_call", "msg_9"],
  ]);
});

Deno.test("classifyTurn() finds no lost call where the call is on file, answered, or later work followed", () => {
  // 2.1.332 writes the message's final stop_reason on all of its lines: the
  // text line says tool_use too, and the call is on the next line.
  const split: Entry[] = [
    stopped("msg_1", "tool_use", "Calling Read."),
    call("a"),
  ];
  assert.deepEqual(kinds(split), [["pending_tool_use", "a"]]);
  assert.deepEqual(kinds([...split, result("a"), say("Done")]), []);
  // 2.0.x writes null on all but the last line; the last one has the call.
  assert.deepEqual(kinds([stopped("msg_1", undefined, "Calling"), call("a")]), [
    ["pending_tool_use", "a"],
  ]);
  // A result or an interrupt after it: something ran, or the user stopped.
  assert.deepEqual(kinds([stopped("msg_9", "tool_use", "x"), interrupt()]), []);
  // A later message of the model is the last word, not the lost one.
  assert.deepEqual(
    kinds([
      stopped("msg_9", "tool_use", "x"),
      stopped("msg_10", "end_turn", "y"),
    ]),
    [],
  );
  assert.deepEqual(kinds([stopped("msg_9", "end_turn", "All done.")]), []);
  assert.deepEqual(kinds([stopped("msg_9", "max_tokens", "Cut off")]), []);
});

Deno.test("classifyTurn() never takes Claude Code's own entries or placeholders for a follow-up", () => {
  // `No response requested.` (model <synthetic>) after a result.
  assert.deepEqual(kinds([call("a"), result("a"), synthetic()]), [[
    "missing_followup",
    "a",
  ]]);
  // Entries whose text was only a placeholder normalise to no text at all.
  assert.deepEqual(
    kinds([call("a"), result("a", { empty: true }), say()]),
    [["empty_tool_result", "a"]],
  );
});

Deno.test("provesFollowUp() takes none of Claude Code's own texts for proof", () => {
  const turn = [call("a"), result("a")];
  for (
    const claim of [
      "(no content)",
      " No response requested. ",
      "API Error: 500 Internal server error",
    ]
  ) {
    assert.equal(provesFollowUp(claim, turn), false, claim);
  }
  assert.equal(provesFollowUp("No response was needed here.", turn), true);
});
