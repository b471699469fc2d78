/**
 * Real Claude Code, a foreground subagent that goes silent on an empty MCP
 * result: SubagentStop judges the subagent's own file
 * (`agent_transcript_path`), blocks once, and the nudge reaches the
 * subagent's conversation, not the parent's.
 */

import assert from "node:assert/strict";
import {
  empty,
  firstMessageText,
  lastUserText,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import {
  assertAnswered,
  assertCarriesFeedback,
  claudeTest,
  codesOf,
  runScenario,
  runsOf,
} from "./support/scenario.ts";

const TASK = "SUBAGENT-TASK: call the empty tool and report.";

claudeTest(
  "silent subagent: SubagentStop blocks once on agent_transcript_path, the subagent answers, the parent is not nudged",
  async (claude) => {
    const main: Reply[] = [
      toolCall("Agent", {
        description: "check the empty tool",
        prompt: TASK,
        subagent_type: "general-purpose",
        run_in_background: false,
      }, "Delegating."),
      text("Main: the subagent reported back."),
    ];
    const sub: Reply[] = [
      toolCall("mcp__stub__empty", {}, "Subagent: calling empty."),
      empty(),
      empty(),
      text("Subagent recovered: the empty tool gave nothing."),
    ];
    let mainIndex = 0;
    let subIndex = 0;
    const outcome = await runScenario(claude, {
      prompt: "delegate the empty tool check to a subagent",
      // The subagent's requests start from its task prompt.
      script: (request) =>
        firstMessageText(request).includes(TASK)
          ? sub[subIndex++] ?? text("overrun")
          : main[mainIndex++] ?? text("overrun"),
      allowedTools: ["Agent", "mcp__stub__empty"],
    });
    assertAnswered(outcome, "Main: the subagent reported back.");
    assert.equal(mainIndex, 2);
    assert.equal(subIndex, 4);
    assert.deepEqual(codesOf(outcome.hookRuns, "SubagentStop"), [2, 0]);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0]);
    const [block, after] = runsOf(outcome.hookRuns, "SubagentStop");
    const agentFile = String(block!.payload.agent_transcript_path);
    assert.notEqual(agentFile, block!.payload.transcript_path);
    assert.match(agentFile, /\/subagents\/agent-[^/]+\.jsonl$/);
    assert.ok(outcome.transcripts.some((t) => t.path === agentFile));
    // The report names the subagent's file, not the parent's.
    assert.ok(block!.stderr.includes(` in ${agentFile}\n`), block!.stderr);
    assert.match(block!.stderr, /first stall = mcp__stub__empty \(id=toolu_/);
    const subRequests = outcome.requests.filter((r) =>
      firstMessageText(r).includes(TASK)
    );
    assertCarriesFeedback(outcome, subRequests[3], block!);
    assert.equal(after!.payload.stop_hook_active, true);
    assert.equal(after!.stderr, "");
    // The parent's follow-up carries the subagent's report and no nudge.
    const parentFollowUp = outcome.requests.at(-1)!;
    assert.equal(firstMessageText(parentFollowUp).includes(TASK), false);
    assert.match(lastUserText(parentFollowUp), /Subagent recovered/);
    assert.doesNotMatch(lastUserText(parentFollowUp), /Stop hook feedback/);
  },
);
