/**
 * Real Claude Code, foreground subagents judged at SubagentStop on their
 * own file (`agent_transcript_path`): one that goes silent on an empty MCP
 * result is blocked once, and the nudge reaches the subagent's
 * conversation, not the parent's; one that gives its report with a last
 * call and then ends without text is blocked where its parent would get
 * nothing (`subagent_no_report`).
 */

import assert from "node:assert/strict";
import {
  firstMessageText,
  lastUserText,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { factsOf, has } from "./support/release_facts.ts";
import {
  assertAnswered,
  assertCarriesFeedback,
  blockLabel,
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
  subagentTool,
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

/** The subagent's task in the report scenario. */
const REPORT_TASK = "SUBAGENT-TASK: look at the parser and report.";

/** The subagent's report (a complete answer: long, no lead-in to more). */
const REPORT = [
  "Report: the parser handles every case in the spec.",
  "",
  "- Quoted strings, escapes and nested arrays parse as documented.",
  "- Errors name the line and column, and the tests cover each kind.",
  "- Two helper functions are unused; removing them is safe but optional.",
  "- Performance is linear in the input, measured on a 10 MB file.",
  "- The fuzz tests ran for a minute without a crash or a hang.",
  "",
  "In short: nothing needs fixing, and I changed nothing.",
].join("\n");

/** Its report again, once the nudge told it to end with it. */
const REPORT_AGAIN = "Report (again, as my final message): the parser " +
  "handles every case in the spec; nothing needs fixing.";

claudeTest(
  "subagent report, then a last call, then no text: blocked once at SubagentStop where the parent gets only the final message (before 2.1.72), and the parent gets the report either way",
  async (client) => {
    const parentGetsEarlierText = has(client.release, "subagent_last_text");
    // The report comes with a last call; after its result, silence (twice
    // where Claude Code retries an empty reply itself); after a nudge,
    // the report again.
    const sub: Reply[] = [
      toolCall("mcp__stub__echo", { text: "noted" }, REPORT),
      ...silence(client),
      text(REPORT_AGAIN),
    ];
    let subIndex = 0;
    let mainIndex = 0;
    const outcome = await runScenario(client, {
      prompt: "delegate a look at the parser to a subagent",
      script: (request) => {
        if (firstMessageText(request).includes(REPORT_TASK)) {
          return sub[subIndex++] ?? text("overrun");
        }
        return [
          toolCall(subagentTool(request), {
            description: "look at the parser",
            prompt: REPORT_TASK,
            subagent_type: "general-purpose",
            run_in_background: false,
          }, "Delegating."),
          text(MAIN_ANSWER),
        ][mainIndex++] ?? text("overrun");
      },
      allowedTools: ["Agent", "Task", "mcp__stub__echo"],
    });
    assertAnswered(outcome, MAIN_ANSWER);
    const stops = runsOf(outcome.hookRuns, "SubagentStop");
    const decisions = stops.map((run) =>
      `exit ${run.code}: ${JSON.stringify(run.stderr.slice(0, 300))}`
    ).join("; ");
    const parentResult = lastUserText(outcome.requests.at(-1)!);
    if (parentGetsEarlierText) {
      // Claude Code hands the parent the report: nothing to nudge.
      assert.deepEqual(
        codesOf(outcome.hookRuns, "SubagentStop"),
        [0],
        decisions,
      );
      assert.equal(subIndex, sub.length - 1, "the subagent was not nudged");
      assert.ok(parentResult.includes("nothing needs fixing, and I changed"));
    } else {
      // The parent would get nothing: blocked once, the nudge reaches the
      // subagent, and it ends with its report as text.
      assert.deepEqual(
        codesOf(outcome.hookRuns, "SubagentStop"),
        [2, 0],
        decisions,
      );
      const [block] = stops;
      assert.equal(blockLabel(block!.stderr), "subagent without a report");
      assert.match(block!.stderr, /first stall = mcp__stub__echo \(id=toolu_/);
      assert.match(block!.stderr, /\[subagent_no_report\] You are a subagent/);
      const subRequests = outcome.requests.filter((r) =>
        firstMessageText(r).includes(REPORT_TASK)
      );
      assertCarriesFeedback(outcome, subRequests.at(-1), block!);
      assert.equal(subIndex, sub.length);
      assert.ok(parentResult.includes(REPORT_AGAIN), parentResult);
    }
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0]);
    assert.doesNotMatch(parentResult, /Stop hook feedback/);
  },
);
