/**
 * Real Claude Code, a model that goes quiet after a tool result: an empty
 * reply to an empty MCP result, a thinking-only or whitespace reply, and a
 * model that stays silent even after the nudge.
 *
 * Since 2.1.182 Claude Code itself first retries an empty reply once with a
 * hidden note ("[Your previous response had no visible output. ...]"), and
 * Stop fires only after the second empty reply; older releases fire Stop
 * after the first (see `silence()`). 2.0.x writes a blank reply as an
 * assistant text `(no content)`, which is no answer either.
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
import { OWN_RETRY_NOTE } from "./support/probes.ts";
import { factsOf, has } from "./support/release_facts.ts";
import {
  assertAnswered,
  assertCarriesFeedback,
  blockLabel,
  claudeTest,
  type Client,
  codesOf,
  type Outcome,
  runScenario,
  runsOf,
  silence,
} from "./support/scenario.ts";

/** A call of `tool`, silence until Stop fires, then `answer`. */
function silentAfter(
  client: Client,
  tool: string,
  reply: Reply,
  answer: string,
): Promise<Outcome> {
  return runScenario(client, {
    prompt: `use ${tool}`,
    // echo gets a text: with none it would return a blank result.
    script: queue([
      toolCall(tool, tool.endsWith("echo") ? { text: "forty-two" } : {}),
      ...silence(client, reply),
      text(answer),
    ]),
    allowedTools: [tool],
  });
}

/** Asserts one block, its nudge in the next request, one allowed Stop after. */
function assertBlockedOnceThenAnswered(
  client: Client,
  outcome: Outcome,
  tool: string,
  answer: string,
): void {
  assertAnswered(outcome, answer);
  const silent = silence(client).length;
  assert.equal(outcome.requests.length, 2 + silent);
  const [call] = outcome.requests;
  const afterBlock = outcome.requests[1 + silent];
  if (silent === 2) {
    // Claude Code's own retry comes first and carries no hook text.
    const ownRetry = outcome.requests[2]!;
    assert.ok(lastUserText(ownRetry).includes(OWN_RETRY_NOTE));
    assert.doesNotMatch(lastUserText(ownRetry), /Stop hook feedback/);
  }
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
  if (has(client.release, "last_assistant_message")) {
    assert.equal(after!.payload.last_assistant_message, answer);
  }
  assert.equal(after!.stderr, "");
}

for (const tool of ["mcp__stub__empty", "mcp__stub__blank"]) {
  const shape = tool.endsWith("empty") ? "[]" : '[{type:"text",text:""}]';
  claudeTest(
    `${tool} (${shape}) then an empty reply: blocked once, the nudge reaches the model, it answers`,
    async (client) => {
      const answer = "Recovered: the tool returned nothing.";
      const outcome = await silentAfter(client, tool, empty(), answer);
      assertBlockedOnceThenAnswered(client, outcome, tool, answer);
      // What the model saw of the empty result: Claude Code's rewrite, or
      // before 2.1.73 the result as it came, with no text in it.
      assert.equal(
        lastUserText(outcome.requests[1]!),
        has(client.release, "empty_result_rewrite")
          ? `(${tool} completed with no output)`
          : "",
      );
    },
  );

  claudeTest(
    `${tool} (${shape}) then an empty reply: the block names an empty tool_result`,
    async (client) => {
      const outcome = await silentAfter(client, tool, empty(), "Recovered.");
      const [block] = runsOf(outcome.hookRuns, "Stop");
      assert.equal(block?.code, 2);
      assert.equal(blockLabel(block!.stderr), "empty tool_result");
      assert.match(block!.stderr, /^- \[empty_tool_result\] /m);
    },
  );
}

/** A reply of one text block with nothing in it (2.0.x writes `(no content)`). */
const EMPTY_TEXT: Reply = {
  kind: "message",
  blocks: [{ type: "text", text: "" }],
};

claudeTest(
  "mcp__stub__blank then a reply of one empty text block (2.0.x writes it as '(no content)'): blocked once as an empty tool_result, then answered",
  async (client) => {
    const tool = "mcp__stub__blank";
    const answer = "Recovered: the blank tool returned nothing.";
    const outcome = await silentAfter(client, tool, EMPTY_TEXT, answer);
    assertBlockedOnceThenAnswered(client, outcome, tool, answer);
    const [block] = runsOf(outcome.hookRuns, "Stop");
    assert.equal(blockLabel(block!.stderr), "empty tool_result");
    // The premise on the releases that write the placeholder.
    const placeholder = outcome.transcripts[0]!.text.includes(
      '"text":"(no content)"',
    );
    assert.equal(placeholder, !has(client.release, "blank_reply_unwritten"));
  },
);

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
    async (client) => {
      const tool = "mcp__stub__echo";
      const answer = "The echo tool answered.";
      const outcome = await silentAfter(client, tool, silence, answer);
      // The result had content: only the reply was silent.
      assert.match(lastUserText(outcome.requests[1]!), /forty-two/);
      assertBlockedOnceThenAnswered(client, outcome, tool, answer);
      const [block] = runsOf(outcome.hookRuns, "Stop");
      assert.equal(blockLabel(block!.stderr), "missing follow-up");
    },
  );
}

claudeTest(
  "a model that stays silent after the nudge is blocked once, not again",
  async (client) => {
    const tool = "mcp__stub__echo";
    const before = silence(client);
    const outcome = await runScenario(client, {
      prompt: `use ${tool}`,
      // Silent before the block (twice where Claude Code retries once), and
      // after it (no retry of its own this time: its hidden note is spent).
      script: queue([
        toolCall(tool, { text: "forty-two" }),
        ...before,
        empty(),
      ]),
      allowedTools: [tool],
    });
    assert.equal(outcome.run.code, 0, outcome.run.stderr);
    assert.equal(outcome.run.timedOut, false);
    assert.equal(outcome.overruns, 0);
    assert.equal(outcome.requests.length, 2 + before.length);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [2, 0]);
    const [block, second] = runsOf(outcome.hookRuns, "Stop");
    assertCarriesFeedback(outcome, outcome.requests.at(-1), block!);
    assert.equal(second!.payload.stop_hook_active, true);
    assert.equal(second!.stderr, "");
    // The session ends with nothing said: the result text is empty, and
    // 2.0.76 and 2.1.47 call such an end an error of their own.
    const isError = factsOf(client.release).silentEndIsError;
    assert.equal(
      outcome.run.result?.subtype,
      isError ? "error_during_execution" : "success",
    );
    // Their error result carries no `result` text at all (seen on both).
    assert.equal(outcome.run.result?.result, isError ? undefined : "");
  },
);

claudeTest(
  "a real block waits for a lagging transcript only where the Stop payload cannot carry the final reply (no last_assistant_message before 2.1.47)",
  async (client) => {
    const tool = "mcp__stub__empty";
    const outcome = await runScenario(client, {
      prompt: `use ${tool}`,
      script: queue([toolCall(tool), ...silence(client), text("Recovered.")]),
      allowedTools: [tool],
      env: { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" },
    });
    assertAnswered(outcome, "Recovered.");
    const [block] = runsOf(outcome.hookRuns, "Stop");
    assert.equal(block?.code, 2);
    assert.equal("last_assistant_message" in block!.payload, false);
    const detected = outcome.events.filter((e) => e.event === "stall_detected");
    assert.equal(detected.length, 1);
    const waited = Number(detected[0]!.waited_ms);
    const waitedFor = detected[0]!.waited_for;
    assert.equal(waited > 0, waitedFor !== undefined, "a wait names its cause");
    if (has(client.release, "last_assistant_message")) {
      // The field's absence says the final reply had no text: no line that
      // is still on its way could answer the call (issue 12, item 2). A
      // wait is due only where the file shows it is behind the Stop (a
      // busy machine can fire Stop before the result's line is written).
      assert.notEqual(waitedFor, "reply_unsent", "no wait for the reply");
      assert.notEqual(waitedFor, "text_unsent", "no wait for the reply");
    } else {
      // The payload says nothing about the reply: the hook gave the file
      // its lag window to grow before it blocked.
      assert.ok(waited > 0, "the lag wait ran");
    }
  },
);
