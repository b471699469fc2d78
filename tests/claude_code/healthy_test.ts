/**
 * Real Claude Code, healthy turns: stall-watch must allow every stop
 * silently and never reach the model, on every release of the matrix.
 */

import assert from "node:assert/strict";
import { lastUserText, queue, text, toolCall } from "./support/fake_api.ts";
import { has } from "./support/release_facts.ts";
import {
  assertAnswered,
  assertNoFeedback,
  claudeTest,
  runScenario,
  runsOf,
} from "./support/scenario.ts";

claudeTest(
  "healthy text: one Stop, allowed silently, with the answer in the payload",
  async (client) => {
    const answer = "Hi! Nothing to do here.";
    const outcome = await runScenario(client, {
      prompt: "say hi",
      script: queue([text(answer)]),
    });
    assertAnswered(outcome, answer);
    assert.equal(outcome.requests.length, 1);
    const stops = runsOf(outcome.hookRuns, "Stop");
    assert.equal(outcome.hookRuns.length, 1);
    assert.equal(stops[0]?.code, 0);
    assert.equal(stops[0]?.stdout, "");
    assert.equal(stops[0]?.stderr, "");
    assert.equal(stops[0]?.payload.stop_hook_active, false);
    if (has(client.release, "last_assistant_message")) {
      assert.equal(stops[0]?.payload.last_assistant_message, answer);
    } else {
      // Older releases send no such key at all (probe last_assistant_message).
      assert.equal("last_assistant_message" in stops[0]!.payload, false);
    }
    assert.equal(
      stops[0]?.payload.transcript_path,
      outcome.transcripts[0]?.path,
    );
  },
);

claudeTest(
  "tool then text: the answered MCP call is not a stall",
  async (client) => {
    const answer = "The echo tool said forty-two.";
    const outcome = await runScenario(client, {
      prompt: "use mcp__stub__echo",
      script: queue([
        toolCall("mcp__stub__echo", { text: "forty-two" }),
        text(answer),
      ]),
      allowedTools: ["mcp__stub__echo"],
    });
    assertAnswered(outcome, answer);
    assert.equal(outcome.requests.length, 2);
    // The tool really ran: its output reached the model.
    assert.match(lastUserText(outcome.requests[1]!), /forty-two/);
    assert.deepEqual(outcome.hookRuns.map((r) => [r.event, r.code, r.stderr]), [
      ["Stop", 0, ""],
    ]);
    assertNoFeedback(outcome);
  },
);

claudeTest(
  "Bash with no output then text: the empty output (rewritten to '(Bash completed with no output)' since 2.1.73) is answered, not a stall",
  async (client) => {
    const answer = "The command ran and printed nothing, as expected.";
    const outcome = await runScenario(client, {
      prompt: "run true",
      script: queue([
        toolCall("Bash", { command: "true", description: "Run true" }),
        text(answer),
      ]),
      allowedTools: ["Bash"],
    });
    assertAnswered(outcome, answer);
    assert.equal(outcome.requests.length, 2);
    if (has(client.release, "empty_result_rewrite")) {
      assert.equal(
        lastUserText(outcome.requests[1]!),
        "(Bash completed with no output)",
      );
    } else {
      // Older releases pass the empty output on as it is: an empty result,
      // which the model answered all the same.
      assert.equal(lastUserText(outcome.requests[1]!), "");
    }
    assert.deepEqual(outcome.hookRuns.map((r) => [r.event, r.code, r.stderr]), [
      ["Stop", 0, ""],
    ]);
    assertNoFeedback(outcome);
  },
);
