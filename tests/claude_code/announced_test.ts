/**
 * Real Claude Code, a model that announces its next step after tool work
 * and then ends the turn without it (`announced_no_call`): with blocking
 * on, the stop is nudged once, quoting the announcement, and the model
 * makes the call (in English, and in Chinese as a lead-in to a list); a
 * question is never nudged; with blocking off (the default) both stops are
 * allowed and the announcement is logged.
 */

import assert from "node:assert/strict";
import {
  lastUserText,
  queue,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import {
  assertAnswered,
  assertCarriesFeedback,
  assertNoFeedback,
  claudeTest,
  type Client,
  codesOf,
  type Outcome,
  runScenario,
  runsOf,
} from "./support/scenario.ts";

const TOOL = "mcp__stub__echo";
const ANNOUNCEMENT = "Let me run the tests now:";
const QUESTION = "The echo works. Shall I run the tests now?";
const LOG = { STALL_WATCH_LOG_FILE: ".claude/stall_watch/events.jsonl" };

/** The events of the session's Stops (2.0.x's Warmup subagents log too). */
function stopEvents(outcome: Outcome): Record<string, unknown>[] {
  return outcome.events.filter((e) => e.hook_event === "Stop");
}

/** A call, its result answered by `closing`, then what `more` scripts. */
function turnEndingOn(
  client: Client,
  closing: string,
  env: Record<string, string>,
  more: Reply[] = [],
): Promise<Outcome> {
  return runScenario(client, {
    prompt: `use ${TOOL}`,
    script: queue([
      toolCall(TOOL, { text: "forty-two" }),
      text(`The echo said forty-two. ${closing}`),
      ...more,
    ]),
    allowedTools: [TOOL],
    env: { ...LOG, ...env },
  });
}

claudeTest(
  "announced_no_call set to block: 'Let me run the tests now:' after tool work is nudged once, quoting it, and the model makes the call",
  async (client) => {
    const answer = "The tests pass.";
    const outcome = await turnEndingOn(
      client,
      ANNOUNCEMENT,
      { STALL_WATCH_ANNOUNCED_NO_CALL: "block" },
      [
        toolCall(TOOL, { text: "tests" }, "Running them now."),
        text(answer),
      ],
    );
    assertAnswered(outcome, answer);
    assert.equal(outcome.requests.length, 4);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [2, 0]);
    const [block, after] = runsOf(outcome.hookRuns, "Stop");
    assert.match(
      block!.stderr,
      /^stall_watch: 1 announced action without a call in /m,
    );
    assert.ok(
      block!.stderr.includes(
        `- [announced_no_call] Your message ended with "${ANNOUNCEMENT}". If that was a step you meant to take, take it now.`,
      ),
      block!.stderr,
    );
    assertCarriesFeedback(outcome, outcome.requests[2], block!);
    // The model made the call the nudge asked for: its result went out.
    assert.match(lastUserText(outcome.requests[3]!), /tests/);
    assert.equal(after!.payload.stop_hook_active, true);
    assert.equal(after!.stderr, "");
    const detected = stopEvents(outcome).filter((e) =>
      e.event === "stall_detected"
    );
    assert.equal(detected.length, 1);
  },
);

claudeTest(
  "announced_no_call set to block: a Chinese lead-in to a list ('现在我来更新计划文件：' and its points) is nudged once, and the model makes the call",
  async (client) => {
    const lead = "现在我来更新计划文件：";
    const outcome = await turnEndingOn(
      client,
      `${lead}\n\n- 第二点：补充错误处理\n- 第三点：同步文档`,
      { STALL_WATCH_ANNOUNCED_NO_CALL: "block" },
      [toolCall(TOOL, { text: "plan" }, "更新中。"), text("计划文件已更新。")],
    );
    assertAnswered(outcome, "计划文件已更新。");
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [2, 0]);
    const [block] = runsOf(outcome.hookRuns, "Stop");
    assert.ok(
      block!.stderr.includes(`Your message ended with "${lead}".`),
      block!.stderr,
    );
    assertCarriesFeedback(outcome, outcome.requests[2], block!);
  },
);

claudeTest(
  "announced_no_call set to block: a turn that ends on a question is never nudged",
  async (client) => {
    const outcome = await turnEndingOn(client, "Shall I run the tests now?", {
      STALL_WATCH_ANNOUNCED_NO_CALL: "block",
    });
    assertAnswered(
      outcome,
      `The echo said forty-two. Shall I run the tests now?`,
    );
    assert.equal(outcome.requests.length, 2);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0]);
    assertNoFeedback(outcome);
    assert.deepEqual(stopEvents(outcome).map((e) => e.event), ["healthy_stop"]);
  },
);

claudeTest(
  "announced_no_call by default: the announcement and the question are both allowed, the announcement logged",
  async (client) => {
    const announced = await turnEndingOn(client, ANNOUNCEMENT, {});
    assertAnswered(announced, `The echo said forty-two. ${ANNOUNCEMENT}`);
    assert.deepEqual(codesOf(announced.hookRuns, "Stop"), [0]);
    assertNoFeedback(announced);
    const [logged] = stopEvents(announced);
    assert.equal(logged?.event, "announced_stop");
    assert.equal(logged?.announcement, ANNOUNCEMENT);
    assert.equal(logged?.mode, "log");
    const asked = await turnEndingOn(client, QUESTION.slice(16), {});
    assert.deepEqual(codesOf(asked.hookRuns, "Stop"), [0]);
    assert.deepEqual(stopEvents(asked).map((e) => e.event), ["healthy_stop"]);
  },
);
