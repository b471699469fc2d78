/**
 * The watchdog's pure core: where the watched call stands in the turn, the
 * policy that turns that plus the clock into the next step, and the
 * background launches a PostToolUse watcher reads from results.
 */

import assert from "node:assert/strict";
import { resolve } from "node:path";
import { launchedBackgroundTasks } from "../../src/detection/background_tasks.ts";
import { classifyTurn } from "../../src/detection/classify.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { scanCurrentTurn } from "../../src/transcript/tail_scan.ts";
import { callState } from "../../src/watchdog/_watch_state.ts";
import {
  nextWatchStep,
  type WatchFacts,
  watchLimits,
} from "../../src/watchdog/_watch_step.ts";
import { FIXTURES_DIR } from "../support/cases.ts";

let offset = 0;
const base = () => ({
  offset: offset += 100,
  line: 0,
  promptId: null,
  sidechain: false,
});
const say = (text: string): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: null,
  texts: [text],
  toolUses: [],
});
const call = (...ids: string[]): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: null,
  texts: [],
  toolUses: ids.map((id) => ({ id, name: "Bash" })),
});
const thinking = (): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: null,
  texts: [],
  toolUses: [],
});
const result = (id: string): Entry => ({
  kind: "results",
  ...base(),
  results: [{ toolUseId: id, empty: false, userStopped: false, snippet: "ok" }],
});
const note = (): Entry => ({ kind: "note", ...base() });
const apiError = (): Entry => ({
  kind: "assistant",
  ...base(),
  messageId: null,
  texts: ["API Error: 500 Internal server error"],
  toolUses: [],
  apiError: true,
});
const interrupt = (): Entry => ({ kind: "interrupt", ...base() });

Deno.test("callState() finds the watched call and what followed its result", () => {
  const answer = result("A");
  assert.deepEqual(callState([say("Running it."), call("B")], "A"), {
    kind: "absent",
  });
  assert.deepEqual(callState([call("A")], "A"), { kind: "awaiting_result" });
  assert.deepEqual(callState([call("A"), answer], "A"), {
    kind: "answered",
    resultOffset: answer.offset,
    callsPending: false,
    apiError: false,
    openerPending: false,
  });
  // Claude Code's synthetic "API Error" entry is no follow-up: the result
  // is still unanswered, and the state says the request failed.
  assert.deepEqual(callState([call("A"), answer, apiError()], "A"), {
    kind: "answered",
    resultOffset: answer.offset,
    callsPending: false,
    apiError: true,
    openerPending: false,
  });
  // Text, or a new call, after the result is a follow-up.
  assert.deepEqual(callState([call("A"), answer, say("Done.")], "A"), {
    kind: "followed_up",
  });
  assert.deepEqual(callState([call("A"), result("A"), call("C")], "A"), {
    kind: "followed_up",
  });
  // A lone empty thinking block and hook feedback are not.
  assert.equal(
    callState([call("A"), result("A"), thinking(), note()], "A").kind,
    "answered",
  );
  // An interrupt ends the watch, before or after the result.
  assert.deepEqual(callState([call("A"), interrupt()], "A"), {
    kind: "interrupted",
  });
  assert.deepEqual(callState([call("A"), result("A"), interrupt()], "A"), {
    kind: "interrupted",
  });
  // Another hook ended the turn on purpose (continue: false) after the call.
  const hookStop: Entry = {
    kind: "hook_stop",
    ...base(),
    hookName: "PostToolUse:Bash",
  };
  assert.deepEqual(callState([call("A"), result("A"), hookStop], "A"), {
    kind: "hook_stopped",
    hookName: "PostToolUse:Bash",
  });
});

Deno.test("callState() says when the turn's prompt line is not on file yet, though its stamped result is", () => {
  const stamp = <E extends Entry>(entry: E, promptId: string): E => ({
    ...entry,
    promptId,
  });
  const prompt = stamp({ kind: "prompt", ...base() } as Entry, "p1");
  const answer = stamp(result("A"), "p1");
  const pendingOf = (turn: Entry[]) =>
    (callState(turn, "A") as { openerPending?: boolean }).openerPending;
  // Real 2.1.145 under load: the call and its result ahead of the prompt.
  assert.equal(pendingOf([call("A"), answer]), true);
  assert.equal(pendingOf([prompt, call("A"), answer]), false);
  assert.equal(pendingOf([call("A"), answer, prompt]), false);
  // The reader's opener (the prompt line it found the turn's start at).
  const opened = callState([call("A"), answer], "A", prompt);
  assert.equal((opened as { openerPending: boolean }).openerPending, false);
  // A wake-up's note opens its turn like a prompt.
  const wake = stamp(note(), "p2");
  assert.equal(pendingOf([wake, call("A"), stamp(result("A"), "p2")]), false);
  // An unstamped file (older releases) and a turn read back to a
  // compaction say nothing.
  assert.equal(pendingOf([call("A"), result("A")]), false);
  const boundary: Entry = { kind: "boundary", ...base() };
  assert.equal(pendingOf([boundary, call("A"), answer]), false);
});

Deno.test("callState() reads the turn another hook ended from real transcripts: 2.1.332 and 2.1.145 leave a record, 2.1.90 none", async () => {
  const stateOf = async (name: string) => {
    const turn = await fixtureTurn(`real/${name}`);
    const call = turn.find((e) => e.kind === "assistant" && e.toolUses[0]);
    const id = call?.kind === "assistant" ? call.toolUses[0]?.id ?? "" : "";
    return callState(turn, id);
  };
  assert.deepEqual(await stateOf("real_hook_stopped_post_tool_use.jsonl"), {
    kind: "hook_stopped",
    hookName: "PostToolUse:mcp__stub__echo",
  });
  assert.deepEqual(
    await stateOf("real_hook_stopped_pre_tool_use_2.1.145.jsonl"),
    { kind: "hook_stopped", hookName: "PreToolUse:mcp__stub__echo" },
  );
  assert.equal(
    (await stateOf("real_hook_stopped_post_tool_use_2.1.90.jsonl")).kind,
    "answered",
  );
});

Deno.test("callState() counts only what came after the call too as a follow-up, when the result's line is written first", () => {
  // 2.1.47's write queue put a result's line ahead of its call's: the call
  // line (and the text before it) answer nothing.
  const early = result("A");
  assert.deepEqual(callState([early, say("Calling."), call("A")], "A"), {
    kind: "answered",
    resultOffset: early.offset,
    callsPending: false,
    apiError: false,
    openerPending: false,
  });
  assert.equal(
    callState([result("A"), call("A"), say("Done.")], "A").kind,
    "followed_up",
  );
});

Deno.test("callState() reports a parallel call that is still running", () => {
  const turn = [call("A", "B"), result("A")];
  assert.deepEqual(callState(turn, "A"), {
    kind: "answered",
    resultOffset: (turn[1] as Entry).offset,
    callsPending: true,
    apiError: false,
    openerPending: false,
  });
  const done = [...turn, result("B")];
  assert.equal(
    (callState(done, "A") as { callsPending: boolean }).callsPending,
    false,
  );
});

const limits = {
  idleMs: 90_000,
  maxMs: 600_000,
  graceMs: 10_000,
  tickMs: 1000,
  pollMs: 100,
  requestMs: 600_000,
};
const answered = {
  kind: "answered",
  resultOffset: 0,
  callsPending: false,
  apiError: false,
  openerPending: false,
} as const;
function facts(over: Partial<WatchFacts>): WatchFacts {
  return {
    state: answered,
    turnEnded: false,
    requestOpen: false,
    seen: true,
    superseded: false,
    elapsedMs: 1000,
    quietMs: 1000,
    limits,
    ...over,
  };
}

Deno.test("nextWatchStep() waits, judges or finishes in the documented order", () => {
  assert.deepEqual(nextWatchStep(facts({})), { action: "wait" });
  assert.deepEqual(nextWatchStep(facts({ turnEnded: true })), {
    action: "judge",
    trigger: "turn_end",
  });
  assert.deepEqual(nextWatchStep(facts({ quietMs: 90_000 })), {
    action: "judge",
    trigger: "idle",
  });
  // A running parallel call is not idleness, but a turn end is still judged.
  const pending = { ...answered, callsPending: true };
  assert.deepEqual(
    nextWatchStep(facts({ state: pending, quietMs: 500_000 })),
    { action: "wait" },
  );
  assert.equal(
    nextWatchStep(facts({ state: pending, turnEnded: true })).action,
    "judge",
  );
  // A newer watcher wins over everything, even a turn end.
  const superseded = nextWatchStep(
    facts({ superseded: true, turnEnded: true }),
  );
  assert.equal(
    superseded.action === "finish" && superseded.outcome,
    "superseded",
  );
  // A turn end is judged even at the deadline.
  assert.equal(
    nextWatchStep(facts({ turnEnded: true, elapsedMs: 700_000 })).action,
    "judge",
  );
  const outcome = (over: Partial<WatchFacts>) => {
    const step = nextWatchStep(facts(over));
    return step.action === "finish" ? step.outcome : step.action;
  };
  assert.equal(outcome({ state: { kind: "followed_up" } }), "followed_up");
  assert.equal(outcome({ state: { kind: "interrupted" } }), "interrupted");
  const hookStopped = nextWatchStep(
    facts({
      state: { kind: "hook_stopped", hookName: "PostToolUse:Bash" },
      turnEnded: true,
    }),
  );
  assert.deepEqual(hookStopped, {
    action: "finish",
    outcome: "hook_stopped",
    reason: "PostToolUse:Bash ended the turn on purpose (continue: false)",
  });
  assert.equal(outcome({ state: { kind: "absent" } }), "new_turn");
  assert.equal(outcome({ elapsedMs: 600_000 }), "deadline");
  // Never seen: wait for a lagging call, then give up.
  assert.equal(outcome({ state: { kind: "absent" }, seen: false }), "wait");
  assert.equal(outcome({ state: null, seen: false }), "wait");
  assert.equal(
    outcome({ state: null, seen: false, elapsedMs: 10_000 }),
    "not_found",
  );
  // A model request still running is not idleness, up to its own timeout.
  assert.equal(outcome({ requestOpen: true, quietMs: 599_000 }), "wait");
  assert.equal(outcome({ requestOpen: true, quietMs: 600_000 }), "judge");
  assert.equal(
    outcome({ requestOpen: true, turnEnded: true, quietMs: 1 }),
    "judge",
  );
  // A turn whose prompt line is still on its way: quiet counts only past
  // the grace (10 s here), or past the idle window when that is longer.
  const behind = { ...answered, openerPending: true };
  assert.equal(
    outcome({
      state: behind,
      quietMs: 9_999,
      limits: { ...limits, idleMs: 2000 },
    }),
    "wait",
  );
  assert.equal(
    outcome({
      state: behind,
      quietMs: 10_000,
      limits: { ...limits, idleMs: 2000 },
    }),
    "judge",
  );
  assert.equal(outcome({ state: behind, quietMs: 89_999 }), "wait");
  assert.equal(outcome({ state: behind, quietMs: 90_000 }), "judge");
  // Waiting for the call's own result never turns into a stall.
  assert.equal(
    outcome({ state: { kind: "awaiting_result" }, quietMs: 500_000 }),
    "wait",
  );
});

Deno.test("watchLimits() looks ten times per idle window, at most once a second, and reads the marker every 100 ms", () => {
  assert.deepEqual(watchLimits({ idleSeconds: 90, watchMaxSeconds: 600 }), {
    idleMs: 90_000,
    maxMs: 600_000,
    graceMs: 10_000,
    tickMs: 1000,
    pollMs: 100,
    requestMs: 600_000,
  });
  assert.equal(
    watchLimits({ idleSeconds: 0.5, watchMaxSeconds: 5 }).tickMs,
    50,
  );
  assert.equal(
    watchLimits({ idleSeconds: 0.05, watchMaxSeconds: 5 }).tickMs,
    20,
  );
});

async function fixtureTurn(name: string): Promise<Entry[]> {
  const scan = await scanCurrentTurn(resolve(FIXTURES_DIR, name), {
    promptId: null,
    includeSidechains: false,
  });
  assert.ok(scan);
  return scan.entries;
}

Deno.test("launchedBackgroundTasks() reads background launches from fixture results", async () => {
  const ids = async (name: string) =>
    launchedBackgroundTasks(await fixtureTurn(name)).map((t) => [
      t.id,
      t.type,
    ]);
  assert.deepEqual(await ids("bash_run_in_background_then_eof.jsonl"), [[
    "b7e2k9",
    "shell",
  ]]);
  assert.deepEqual(await ids("mcp_slow_call_moved_to_background.jsonl"), [[
    "mcpt_4f9a2c",
    "mcp task",
  ]]);
  assert.deepEqual(
    await ids("prompt_id_turn_spans_feedback_and_task_notification.jsonl"),
    [["a7f3c21", "subagent"]],
  );
  assert.deepEqual(await ids("healthy_text_after_results.jsonl"), []);
});

Deno.test("a turn that ends on a background launch is healthy for the watchdog, a plain result is not", async () => {
  for (
    const name of [
      "bash_run_in_background_then_eof.jsonl",
      "mcp_slow_call_moved_to_background.jsonl",
    ]
  ) {
    const turn = await fixtureTurn(name);
    const context = { backgroundTasks: launchedBackgroundTasks(turn) };
    assert.deepEqual(classifyTurn(turn, context).signatures, [], name);
  }
  const stalled = await fixtureTurn("bash_no_output_marker_is_content.jsonl");
  const verdict = classifyTurn(stalled, {
    backgroundTasks: launchedBackgroundTasks(stalled),
  });
  assert.deepEqual(verdict.signatures.map((s) => s.kind), [
    "missing_followup",
  ]);
});
