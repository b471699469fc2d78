/**
 * Real Claude Code with stall-watch registered under the wrong events: as a
 * PreToolUse hook an unanswered tool_use is the normal state, and as a
 * UserPromptSubmit hook any open call of the turn is; exit 2 there would
 * block every tool call or prompt. The hook must let both through.
 */

import assert from "node:assert/strict";
import {
  empty,
  lastUserText,
  queue,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { withClaudeSession } from "./support/session.ts";
import { factsOf } from "./support/release_facts.ts";
import {
  assertAnswered,
  assertNoFeedback,
  claudeTest,
  codesOf,
  runScenario,
  runsOf,
  silence,
} from "./support/scenario.ts";

claudeTest(
  "registered under PreToolUse (and UserPromptSubmit): the tool call goes through",
  async (client) => {
    const answer = "The echo tool said forty-two.";
    const outcome = await runScenario(client, {
      prompt: "use mcp__stub__echo",
      script: queue([
        toolCall("mcp__stub__echo", { text: "forty-two" }),
        text(answer),
      ]),
      allowedTools: ["mcp__stub__echo"],
      events: ["UserPromptSubmit", "PreToolUse", "Stop"],
    });
    assert.deepEqual(codesOf(outcome.hookRuns, "UserPromptSubmit"), [0]);
    assert.deepEqual(codesOf(outcome.hookRuns, "PreToolUse"), [0]);
    for (const run of outcome.hookRuns) {
      if (run.event === "Stop") continue;
      // Only a systemMessage for the user, once per event and session.
      assert.deepEqual(
        Object.keys(JSON.parse(run.stdout)),
        ["systemMessage"],
        `${run.event} printed more than a systemMessage`,
      );
      assert.match(run.stdout, new RegExp(`ran for ${run.event}, but it is`));
    }
    // Claude Code keeps it as a hook_system_message attachment: it never
    // reaches the model (plain stdout of UserPromptSubmit would).
    for (const request of outcome.requests) {
      assert.doesNotMatch(JSON.stringify(request.body), /ran for \w+, but/);
    }
    if (factsOf(client.release).systemMessageAttachments) {
      assert.match(
        outcome.transcripts[0]!.text,
        /"type":"hook_system_message"/,
      );
    }
    // The prompt reached the model and the tool really ran.
    assert.equal(outcome.requests.length, 2);
    assert.match(lastUserText(outcome.requests[1]!), /forty-two/);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0]);
    assertNoFeedback(outcome);
    assertAnswered(outcome, answer);
  },
);

claudeTest(
  "registered under UserPromptSubmit: a new prompt after a stalled turn goes through",
  async (client) => {
    const tool = "mcp__stub__echo";
    const answer = "Second prompt answered.";
    await withClaudeSession({
      claude: client.path,
      // Turn 1 stalls for good: silent before and after the Stop block.
      script: queue([
        toolCall(tool, { text: "forty-two" }),
        ...silence(client),
        empty(),
        text(answer),
      ]),
      events: ["UserPromptSubmit", "Stop"],
    }, async (session) => {
      const first = await session.runPrint(`use ${tool}`, {
        allowedTools: [tool],
      });
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(codesOf(await session.hookRuns(), "Stop"), [2, 0]);
      const second = await session.runPrint("what did the tool say?", {
        allowedTools: [tool],
        args: ["--continue"],
      });
      const runs = await session.hookRuns();
      const prompts = runsOf(runs, "UserPromptSubmit");
      assert.deepEqual(prompts.map((r) => r.code), [0, 0]);
      // The misregistration is told once per session, then nothing. 2.1.90's
      // --continue starts a new session (a new session_id), told again.
      assert.match(prompts[0]!.stdout, /^\{"systemMessage":"stall-watch: /);
      if (prompts[1]!.payload.session_id === prompts[0]!.payload.session_id) {
        assert.equal(prompts[1]!.stdout, "");
      } else {
        assert.equal(prompts[1]!.stdout, prompts[0]!.stdout);
      }
      // The second prompt reached the model, in the same conversation.
      const requests = session.api.mainRequests();
      assert.equal(requests.length, 3 + silence(client).length);
      assert.match(lastUserText(requests.at(-1)!), /what did the tool say\?/);
      assert.equal(second.code, 0, second.stderr);
      assert.equal(second.result?.result, answer);
      assert.equal(session.api.overruns, 0);
    });
  },
);
