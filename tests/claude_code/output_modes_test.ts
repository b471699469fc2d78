/**
 * Real Claude Code and stall-watch's output channels: exit 2 with the report
 * on stderr (the other scenarios) and `STALL_WATCH_OUTPUT=json`, exit 0 with
 * `{"decision":"block","reason":...}` on stdout. Claude Code feeds a JSON
 * reason to the model as `Stop hook feedback:\n<reason>`, without the
 * `[command]:` prefix it puts before stderr, and lists it under the
 * transcript's `hookErrors` just the same.
 */

import assert from "node:assert/strict";
import { lastUserText, queue, text, toolCall } from "./support/fake_api.ts";
import { factsOf } from "./support/release_facts.ts";
import {
  assertAnswered,
  claudeTest,
  type Client,
  codesOf,
  type Outcome,
  runScenario,
  runsOf,
  silence,
} from "./support/scenario.ts";

const TOOL = "mcp__stub__echo";
const ANSWER = "Recovered: echo said forty-two.";

function jsonModeRun(client: Client): Promise<Outcome> {
  return runScenario(client, {
    prompt: `use ${TOOL}`,
    script: queue([
      toolCall(TOOL, { text: "forty-two" }),
      ...silence(client),
      text(ANSWER),
    ]),
    allowedTools: [TOOL],
    env: { STALL_WATCH_OUTPUT: "json" },
  });
}

claudeTest(
  "STALL_WATCH_OUTPUT=json: exit 0 with a block decision, the reason reaches the model, it answers",
  async (client) => {
    const outcome = await jsonModeRun(client);
    assertAnswered(outcome, ANSWER);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0, 0]);
    const [block, after] = runsOf(outcome.hookRuns, "Stop");
    const decision = JSON.parse(block!.stdout);
    assert.equal(decision.decision, "block");
    assert.match(decision.reason, /^stall_watch recovery: /m);
    assert.equal(block!.stderr, "");
    assert.ok(
      lastUserText(outcome.requests[1 + silence(client).length]!).includes(
        `Stop hook feedback:\n${decision.reason}`,
      ),
    );
    assert.equal(after!.payload.stop_hook_active, true);
    assert.equal(after!.stdout, "");
    if (factsOf(client.release).stopHookSummaryLines) {
      // The user is shown the reason as a hook problem, as with exit 2.
      const summaries = outcome.transcripts[0]!.text.split("\n")
        .filter((l) => l.includes('"subtype":"stop_hook_summary"'))
        .map((l) => JSON.parse(l));
      assert.deepEqual(summaries[0].hookErrors, [decision.reason]);
    }
  },
);

claudeTest(
  "STALL_WATCH_OUTPUT=json: the model reads the recovery prompt alone, the report goes to the user in systemMessage",
  async (client) => {
    const outcome = await jsonModeRun(client);
    const [block] = runsOf(outcome.hookRuns, "Stop");
    const decision = JSON.parse(block!.stdout);
    const transcript = String(block!.payload.transcript_path);
    assert.match(decision.reason, /^stall_watch recovery: /);
    assert.equal(decision.reason.includes(transcript), false);
    assert.doesNotMatch(decision.reason, /\bline \d+/);
    assert.match(String(decision.systemMessage), /first stall = /);
    assertAnswered(outcome, ANSWER);
  },
);
