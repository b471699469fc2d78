/**
 * Real Claude Code, a subagent running a 90-second tool call, with
 * stall-watch judging subagents (`--subagents`: Stop and SubagentStop).
 *
 * While a background subagent works, Claude Code forks its conversation
 * now and then to write a progress summary ("Describe your most recent
 * action in 3-5 words"), and before the fix of that (measured: 2.1.145 to
 * 2.1.220 in `-p` with `CLAUDE_CODE_FORK_SUBAGENT=1`; interactive to
 * 2.1.310) the fork ends with a SubagentStop of its own: `agent_type` "",
 * its own `agent_id`, an `agent_transcript_path` never written. stall-watch
 * recognises it and allows it at once and silently, and never blocks the
 * subagent while its call runs. Run on 2.1.214 (which forks) and on the
 * newest (which no longer does).
 */

import assert from "node:assert/strict";
import {
  firstMessageText,
  lastUserText,
  type RecordedRequest,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import {
  claudeTest,
  type Client,
  runScenario,
  runsOf,
  since,
} from "./support/scenario.ts";
import { RUN_WAIT_MS } from "./support/patience.ts";

const SLOW = "mcp__stub__slow";
const CALL_SECONDS = 90;
const TASK = "SUBAGENT-TASK: run the slow tool and report.";
/** The fork's prompt, the last user text of its request. */
const FORK_PROMPT = "Describe your most recent action";
const SUB_DONE = "Subagent: the slow tool finished.";
const MAIN_DONE = "Main: the subagent reported back.";

/** The first release whose `-p` fork ends without a SubagentStop. */
const NO_FORK_STOP_FROM = "2.1.221";

/** The script: main delegates, the subagent calls the slow tool once. */
function script() {
  const used = { main: 0, sub: 0, fork: 0 };
  const answer = (request: RecordedRequest): Reply => {
    if (firstMessageText(request).includes(TASK)) {
      if (lastUserText(request).includes(FORK_PROMPT)) {
        used.fork++;
        return text("Running the slow tool");
      }
      return [
        toolCall(SLOW, { seconds: CALL_SECONDS }, "Subagent: calling slow."),
        text(SUB_DONE),
      ][used.sub++] ?? text("subagent overrun");
    }
    const tools = Array.isArray(request.body?.tools) ? request.body.tools : [];
    const agent = tools.some((t) => (t as { name?: unknown }).name === "Agent")
      ? "Agent"
      : "Task";
    return [
      toolCall(agent, {
        description: "run the slow tool",
        prompt: TASK,
        subagent_type: "general-purpose",
      }, "Delegating."),
      // The subagent runs in the background: the turn ends, and the task's
      // notification starts the next one.
      text("Main: the subagent is working."),
      text(MAIN_DONE),
    ][used.main++] ?? text("main overrun");
  };
  return { answer, used };
}

claudeTest(
  `a subagent running a ${CALL_SECONDS} s call is never blocked, and the SubagentStop of Claude Code's progress-summary fork is allowed silently`,
  async (client: Client) => {
    const { answer, used } = script();
    const outcome = await runScenario(client, {
      prompt: "delegate the slow check to a subagent",
      script: answer,
      allowedTools: ["Agent", "Task", SLOW],
      env: { CLAUDE_CODE_FORK_SUBAGENT: "1" },
      timeoutMs: RUN_WAIT_MS + CALL_SECONDS * 1000,
    });
    const { run } = outcome;
    assert.equal(run.timedOut, false, run.stderr);
    assert.equal(run.code, 0, run.stderr);
    const stops = runsOf(outcome.hookRuns, "SubagentStop");
    const report = JSON.stringify(
      stops.map((r) => [r.payload.agent_type, r.code, r.stderr]),
    );
    // Every SubagentStop allowed, silently; every Stop too.
    for (const run of [...stops, ...runsOf(outcome.hookRuns, "Stop")]) {
      assert.deepEqual([run.code, run.stdout, run.stderr], [0, "", ""], report);
    }
    const forks = stops.filter((r) => r.payload.agent_type === "");
    const subagent = stops.filter((r) => r.payload.agent_type !== "");
    // The subagent's own stop came once, after its call: it was never
    // nudged (two replies: the call, then its report).
    assert.equal(subagent.length, 1, report);
    assert.equal(used.sub, 2, report);
    assert.ok(
      outcome.transcripts.some((t) =>
        t.path === subagent[0]!.payload.agent_transcript_path
      ),
    );
    if (!since(client, NO_FORK_STOP_FROM)) {
      // The fork ran, and its SubagentStop named a file never written.
      assert.ok(forks.length >= 1 && used.fork >= 1, report);
      for (const fork of forks) {
        assert.equal(
          outcome.transcripts.some((t) =>
            t.path === fork.payload.agent_transcript_path
          ),
          false,
        );
      }
    } else {
      assert.deepEqual(forks, [], report);
    }
    assert.match(lastUserText(outcome.requests.at(-1)!), /task-notification/);
    assert.doesNotMatch(
      outcome.requests.map(lastUserText).join("\n"),
      /Stop hook feedback/,
    );
  },
  {
    applies: {
      since: "2.1.214",
      why:
        "2.1.214 forks (with CLAUDE_CODE_FORK_SUBAGENT=1) and the newest does not; the releases in between add nothing",
    },
  },
);
