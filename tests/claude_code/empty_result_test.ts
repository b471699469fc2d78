/**
 * Real Claude Code, a model that goes quiet after a tool result: an empty
 * reply to an empty MCP result, a thinking-only or whitespace reply, and a
 * model that stays silent even after the nudge.
 *
 * Claude Code itself first retries an empty reply once with a hidden note
 * ("[Your previous response had no visible output. ...]"); Stop fires only
 * after the second empty reply, so each silent turn costs two requests.
 */

import assert from "node:assert/strict";
import {
  empty,
  lastUserText,
  queue,
  type Reply,
  sentToolUseId,
  text,
  toolCall,
} from "./support/fake_api.ts";
import {
  assertAnswered,
  assertCarriesFeedback,
  blockLabel,
  claudeTest,
  codesOf,
  type Outcome,
  runScenario,
  runsOf,
} from "./support/scenario.ts";

const OWN_RETRY_NOTE = "[Your previous response had no visible output.";

/** A call of `tool`, silence (twice: Claude Code retries once), then `answer`. */
function silentAfter(
  claude: string,
  tool: string,
  silence: Reply,
  answer: string,
): Promise<Outcome> {
  return runScenario(claude, {
    prompt: `use ${tool}`,
    // echo gets a text: with none it would return a blank result.
    script: queue([
      toolCall(tool, tool.endsWith("echo") ? { text: "forty-two" } : {}),
      silence,
      silence,
      text(answer),
    ]),
    allowedTools: [tool],
  });
}

/** Asserts one block, its nudge in the next request, one allowed Stop after. */
function assertBlockedOnceThenAnswered(
  outcome: Outcome,
  tool: string,
  answer: string,
): void {
  assertAnswered(outcome, answer);
  assert.equal(outcome.requests.length, 4);
  const [call, , ownRetry, afterBlock] = outcome.requests;
  // Claude Code's own retry comes first and carries no hook text.
  assert.ok(lastUserText(ownRetry!).includes(OWN_RETRY_NOTE));
  assert.doesNotMatch(lastUserText(ownRetry!), /Stop hook feedback/);
  const stops = runsOf(outcome.hookRuns, "Stop");
  assert.deepEqual(stops.map((s) => s.code), [2, 0]);
  const [block, after] = stops;
  assert.equal(block!.payload.stop_hook_active, false);
  assert.equal("last_assistant_message" in block!.payload, false);
  assert.equal(block!.stdout, "");
  assert.ok(
    block!.stderr.includes(
      `first stall = ${tool} (id=${sentToolUseId(call)}) at line `,
    ),
    block!.stderr,
  );
  assert.match(block!.stderr, /^stall_watch recovery: /m);
  assertCarriesFeedback(outcome, afterBlock, block!);
  // The second Stop knows it follows a block and lets the answer through.
  assert.equal(after!.payload.stop_hook_active, true);
  assert.equal(after!.payload.last_assistant_message, answer);
  assert.equal(after!.stderr, "");
}

for (const tool of ["mcp__stub__empty", "mcp__stub__blank"]) {
  const shape = tool.endsWith("empty") ? "[]" : '[{type:"text",text:""}]';
  claudeTest(
    `${tool} (${shape}) then an empty reply: blocked once, the nudge reaches the model, it answers`,
    async (claude) => {
      const answer = "Recovered: the tool returned nothing.";
      const outcome = await silentAfter(claude, tool, empty(), answer);
      assertBlockedOnceThenAnswered(outcome, tool, answer);
      // What the model saw of the empty result: Claude Code's rewrite.
      assert.ok(
        lastUserText(outcome.requests[1]!).includes(
          `(${tool} completed with no output)`,
        ),
      );
    },
  );

  claudeTest(
    `${tool} (${shape}) then an empty reply: the block names an empty tool_result`,
    async (claude) => {
      const outcome = await silentAfter(claude, tool, empty(), "Recovered.");
      const [block] = runsOf(outcome.hookRuns, "Stop");
      assert.equal(block?.code, 2);
      assert.equal(blockLabel(block!.stderr), "empty tool_result");
      assert.match(block!.stderr, /^- \[empty_tool_result\] /m);
    },
  );
}

const THINKING_ONLY: Reply = {
  kind: "message",
  blocks: [{ type: "thinking", thinking: "" }],
};
const WHITESPACE_ONLY: Reply = {
  kind: "message",
  blocks: [{ type: "text", text: "\n\n  \n" }],
};

for (
  const [what, silence] of [
    ["an empty thinking block", THINKING_ONLY],
    ["whitespace", WHITESPACE_ONLY],
  ] as const
) {
  claudeTest(
    `a reply of only ${what} after a tool result: blocked once as missing follow-up, then answered`,
    async (claude) => {
      const tool = "mcp__stub__echo";
      const answer = "The echo tool answered.";
      const outcome = await silentAfter(claude, tool, silence, answer);
      // The result had content: only the reply was silent.
      assert.match(lastUserText(outcome.requests[1]!), /forty-two/);
      assertBlockedOnceThenAnswered(outcome, tool, answer);
      const [block] = runsOf(outcome.hookRuns, "Stop");
      assert.equal(blockLabel(block!.stderr), "missing follow-up");
    },
  );
}

claudeTest(
  "a model that stays silent after the nudge is blocked once, not again",
  async (claude) => {
    const tool = "mcp__stub__echo";
    const outcome = await runScenario(claude, {
      prompt: `use ${tool}`,
      // Silent before the block (Claude Code retries once), and after it (no
      // retry of its own this time: its hidden note is spent).
      script: queue([
        toolCall(tool, { text: "forty-two" }),
        empty(),
        empty(),
        empty(),
      ]),
      allowedTools: [tool],
    });
    assert.equal(outcome.run.code, 0, outcome.run.stderr);
    assert.equal(outcome.run.timedOut, false);
    assert.equal(outcome.overruns, 0);
    assert.equal(outcome.requests.length, 4);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [2, 0]);
    const [block, second] = runsOf(outcome.hookRuns, "Stop");
    assertCarriesFeedback(outcome, outcome.requests[3], block!);
    assert.equal(second!.payload.stop_hook_active, true);
    assert.equal(second!.stderr, "");
    // The session ends with nothing said: the result text is empty.
    assert.equal(outcome.run.result?.subtype, "success");
    assert.equal(outcome.run.result?.result, "");
  },
);

claudeTest(
  "a real block is decided without the transcript-lag wait (Claude Code 2.1.332 omits last_assistant_message on every silent reply)",
  async (claude) => {
    const tool = "mcp__stub__empty";
    const outcome = await runScenario(claude, {
      prompt: `use ${tool}`,
      script: queue([toolCall(tool), empty(), empty(), text("Recovered.")]),
      allowedTools: [tool],
      env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
    });
    assertAnswered(outcome, "Recovered.");
    const [block] = runsOf(outcome.hookRuns, "Stop");
    assert.equal(block?.code, 2);
    assert.equal("last_assistant_message" in block!.payload, false);
    const detected = outcome.events.filter((e) => e.event === "stall_detected");
    assert.equal(detected.length, 1);
    // The default wait is 300 ms; on a current transcript there is no lag
    // to wait for (issue 12, item 2).
    assert.ok(
      Number(detected[0]!.waited_ms) < 100,
      `waited ${detected[0]!.waited_ms} ms`,
    );
  },
);
