/**
 * Real Claude Code, a foreground subagent that goes silent on an empty MCP
 * result: SubagentStop judges the subagent's own file
 * (`agent_transcript_path`), blocks once, and the nudge reaches the
 * subagent's conversation, not the parent's.
 */

import assert from "node:assert/strict";
import { firstMessageText, lastUserText } from "./support/fake_api.ts";
import { factsOf } from "./support/release_facts.ts";
import {
  assertAnswered,
  assertCarriesFeedback,
  claudeTest,
  codesOf,
  runScenario,
  runsOf,
  silence,
} from "./support/scenario.ts";
import {
  MAIN_ANSWER,
  silentSubagent,
  SUBAGENT_TASK,
} from "./support/silent_subagent.ts";

claudeTest(
  "silent subagent: SubagentStop blocks once on agent_transcript_path, the subagent answers, the parent is not nudged",
  async (client) => {
    const subagent = silentSubagent(silence(client));
    const outcome = await runScenario(client, {
      prompt: "delegate the empty tool check to a subagent",
      script: subagent.script,
      allowedTools: subagent.allowedTools,
    });
    assertAnswered(outcome, MAIN_ANSWER);
    // What each SubagentStop decided says why a nudge did not come.
    const decisions = runsOf(outcome.hookRuns, "SubagentStop").map((run) =>
      `exit ${run.code}: ${JSON.stringify(run.stderr.slice(0, 300))}`
    ).join("; ");
    assert.deepEqual(subagent.used(), subagent.expected, decisions);
    assert.deepEqual(
      codesOf(outcome.hookRuns, "SubagentStop"),
      [2, 0],
      decisions,
    );
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0]);
    const [block, after] = runsOf(outcome.hookRuns, "SubagentStop");
    const agentFile = String(block!.payload.agent_transcript_path);
    assert.notEqual(agentFile, block!.payload.transcript_path);
    assert.match(
      agentFile,
      factsOf(client.release).subagentsFolder
        ? /\/subagents\/agent-[^/]+\.jsonl$/
        : /\/[^/]+\/agent-[^/]+\.jsonl$/,
    );
    assert.ok(outcome.transcripts.some((t) => t.path === agentFile));
    // The report names the subagent's file, not the parent's.
    assert.ok(block!.stderr.includes(` in ${agentFile}\n`), block!.stderr);
    assert.match(block!.stderr, /first stall = mcp__stub__empty \(id=toolu_/);
    const subRequests = outcome.requests.filter((r) =>
      firstMessageText(r).includes(SUBAGENT_TASK)
    );
    assertCarriesFeedback(outcome, subRequests.at(-1), block!);
    assert.equal(after!.payload.stop_hook_active, true);
    assert.equal(after!.stderr, "");
    // The parent's follow-up carries the subagent's report and no nudge.
    const parentFollowUp = outcome.requests.at(-1)!;
    assert.equal(
      firstMessageText(parentFollowUp).includes(SUBAGENT_TASK),
      false,
    );
    assert.match(lastUserText(parentFollowUp), /Subagent recovered/);
    assert.doesNotMatch(lastUserText(parentFollowUp), /Stop hook feedback/);
  },
);
