/**
 * Real Claude Code and each of stall-watch's output modes (`output`):
 * `stderr` (exit 2), `json` (`decision: "block"`) and `context`
 * (`hookSpecificOutput.additionalContext`). For each: what the next API
 * request carried (the model's text), how the session ended, and what the
 * user was shown (stream-json events in `-p`; the screen in a terminal).
 *
 * Measured: all three continue the turn; only `context` does so without
 * "Stop hook reported a problem" and its status line.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  contentText,
  empty,
  firstMessageText,
  queue,
  type RecordedRequest,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { factsOf } from "./support/release_facts.ts";
import {
  type Applies,
  appliesWhere,
  assertAnswered,
  assertCarriesFeedback,
  claudeTest,
  type Client,
  codesOf,
  type Outcome,
  runScenario,
  runsOf,
  silence,
} from "./support/scenario.ts";
import { type HookRun, withClaudeSession } from "./support/session.ts";
import {
  MAIN_ANSWER,
  silentSubagent,
  SUBAGENT_TASK,
} from "./support/silent_subagent.ts";
import type { TmuxPane } from "./support/tmux.ts";

const TOOL = "mcp__stub__echo";
const ANSWER = "Recovered: echo said forty-two.";
const PROBLEM_NOTICE = "stop-hook-error";

/** A call, then silence until Stop fires (see `silence()`). */
function silentAfterEcho(client: Client): Reply[] {
  return [toolCall(TOOL, { text: "forty-two" }), ...silence(client)];
}

/** The request after the block: the first after the silent replies. */
function afterBlock(client: Client, outcome: Outcome): RecordedRequest {
  return outcome.requests[1 + silence(client).length]!;
}

type Mode = "stderr" | "json" | "context";

function runMode(client: Client, mode: Mode): Promise<Outcome> {
  return runScenario(client, {
    prompt: `use ${TOOL}`,
    script: queue([...silentAfterEcho(client), text(ANSWER)]),
    allowedTools: [TOOL],
    env: { STALL_WATCH_OUTPUT: mode },
  });
}

/** Where Stop takes `hookSpecificOutput.additionalContext`. */
const CONTEXT: Applies = appliesWhere(
  "stop_additional_context",
  "older releases reject hookSpecificOutput on Stop",
);

/** The releases before it, where `context` falls back to stderr. */
const NO_CONTEXT: Applies = {
  before: CONTEXT.since as string,
  why: "from this release on, context mode writes additionalContext",
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The text of the request's messages after the conversation's last tool result. */
function textAfterResults(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as {
    role?: string;
    content?: unknown;
  }[];
  return messages.slice(-2).map((m) => `[${m.role}] ${contentText(m.content)}`)
    .join("\n");
}

/** The stream-json `system` events other than `init`: what `-p` shows the user. */
function userEvents(outcome: Outcome): Record<string, unknown>[] {
  return outcome.run.events.filter((e) =>
    e.type === "system" && e.subtype !== "init"
  );
}

function stopSummary(outcome: Outcome): Record<string, unknown> {
  const line = outcome.transcripts[0]!.text.split("\n").find((l) =>
    l.includes('"subtype":"stop_hook_summary"')
  );
  assert.ok(line, "no stop_hook_summary in the transcript");
  return JSON.parse(line);
}

/** The report lines a block writes, from its first line to the first stall. */
function assertReport(report: string, block: HookRun): void {
  const transcript = String(block.payload.transcript_path);
  assert.match(
    report,
    new RegExp(
      `^stall_watch: 1 [a-z -_]+ in ${
        transcript.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      }\\nstall_watch: first stall = ${TOOL} \\(id=toolu_\\w+\\) at line \\d+ \\[`,
    ),
  );
}

/** Asserts the model's text names the call and carries no path or line. */
function assertPromptAlone(prompt: string, block: HookRun): void {
  assert.match(prompt, /^stall_watch recovery: /);
  assert.match(prompt, /^- \[\w+\] mcp__stub__echo \(text=forty-two\) /m);
  assert.equal(prompt.includes(String(block.payload.transcript_path)), false);
  assert.doesNotMatch(prompt, /^stall_watch: \d/m);
  assert.doesNotMatch(prompt, /\bline \d+|\.jsonl/);
}

claudeTest(
  "output stderr: exit 2, the model reads report and prompt as Stop hook feedback, the user is shown a hook problem",
  async (client) => {
    const outcome = await runMode(client, "stderr");
    assertAnswered(outcome, ANSWER);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [2, 0]);
    const [block, after] = runsOf(outcome.hookRuns, "Stop");
    assert.equal(block!.stdout, "");
    assertReport(block!.stderr, block!);
    assertCarriesFeedback(outcome, afterBlock(client, outcome), block!);
    assert.equal(after!.payload.stop_hook_active, true);
    const facts = factsOf(client.release);
    if (facts.systemMessageEvents) {
      assert.deepEqual(userEvents(outcome).map((e) => e.key), [
        PROBLEM_NOTICE,
      ]);
    }
    if (facts.stopHookSummaryLines) {
      assert.equal(
        (stopSummary(outcome).hookErrors as string[]).length,
        1,
        "listed as a hook error",
      );
    }
  },
);

claudeTest(
  "output json: exit 0, the model reads the prompt alone (twice), the user gets the report and still a hook problem",
  async (client) => {
    const outcome = await runMode(client, "json");
    assertAnswered(outcome, ANSWER);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0, 0]);
    const [block] = runsOf(outcome.hookRuns, "Stop");
    const output = JSON.parse(block!.stdout);
    assert.deepEqual(Object.keys(output), [
      "decision",
      "reason",
      "systemMessage",
    ]);
    assertPromptAlone(output.reason, block!);
    assertReport(output.systemMessage, block!);
    const seen = textAfterResults(afterBlock(client, outcome)!);
    assert.ok(seen.includes(`Stop hook feedback:\n${output.reason}`), seen);
    const facts = factsOf(client.release);
    if (facts.jsonReasonAsSystemMessage) {
      assert.ok(
        seen.includes(
          `[system] Stop hook blocking error from command: "${outcome.hookCommand}": ${output.reason}`,
        ),
        seen,
      );
    }
    assert.doesNotMatch(seen, /^stall_watch: \d/m);
    if (facts.systemMessageEvents) {
      const events = userEvents(outcome);
      assert.deepEqual(
        events.map((e) => e.subtype),
        ["informational", "notification"],
      );
      assert.equal(
        events[0]!.content,
        output.systemMessage.split("\n").map((l: string) => `Stop says: ${l}`)
          .join("\n"),
      );
      assert.equal(events[1]!.key, PROBLEM_NOTICE);
    }
  },
);

claudeTest(
  "output context: exit 0, the model reads the prompt alone as additional context, the user gets the report and no problem",
  async (client) => {
    const outcome = await runMode(client, "context");
    assertAnswered(outcome, ANSWER);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0, 0]);
    const [block, after] = runsOf(outcome.hookRuns, "Stop");
    const output = JSON.parse(block!.stdout);
    assert.deepEqual(Object.keys(output), [
      "hookSpecificOutput",
      "systemMessage",
    ]);
    assert.equal(output.hookSpecificOutput.hookEventName, "Stop");
    const prompt = output.hookSpecificOutput.additionalContext;
    assertPromptAlone(prompt, block!);
    assertReport(output.systemMessage, block!);
    const seen = textAfterResults(afterBlock(client, outcome)!);
    assert.ok(
      seen.endsWith(`[system] Stop hook additional context: ${prompt}`),
      seen,
    );
    assert.doesNotMatch(seen, /Stop hook feedback|^stall_watch: \d/m);
    // The loop fence still holds: the next Stop knows it follows a nudge.
    assert.equal(after!.payload.stop_hook_active, true);
    const facts = factsOf(client.release);
    if (facts.systemMessageEvents) {
      assert.deepEqual(userEvents(outcome).map((e) => e.subtype), [
        "informational",
      ]);
    } else {
      // No hook problem is shown either way.
      assert.deepEqual(userEvents(outcome), []);
    }
    if (facts.stopHookSummaryLines) {
      const summary = stopSummary(outcome);
      assert.deepEqual(summary.hookErrors, []);
      assert.deepEqual(summary.hookAdditionalContext, [prompt]);
    }
  },
  { applies: CONTEXT },
);

claudeTest(
  "output context on a release without Stop additionalContext: the block falls back to exit 2 and stderr, the model reads it as Stop hook feedback and answers",
  async (client) => {
    const outcome = await runMode(client, "context");
    assertAnswered(outcome, ANSWER);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [2, 0]);
    const [block, after] = runsOf(outcome.hookRuns, "Stop");
    assert.equal(block!.stdout, "");
    assertReport(block!.stderr, block!);
    assertCarriesFeedback(outcome, afterBlock(client, outcome), block!);
    assert.equal(after!.payload.stop_hook_active, true);
  },
  { applies: NO_CONTEXT },
);

claudeTest(
  "output context: a model that stays silent after the nudge is nudged once and the session ends",
  async (client) => {
    const outcome = await runScenario(client, {
      prompt: `use ${TOOL}`,
      script: queue([...silentAfterEcho(client), empty()]),
      allowedTools: [TOOL],
      env: { STALL_WATCH_OUTPUT: "context" },
    });
    assert.equal(outcome.run.code, 0, outcome.run.stderr);
    assert.equal(outcome.run.timedOut, false);
    assert.equal(outcome.overruns, 0);
    assert.equal(outcome.requests.length, 2 + silence(client).length);
    assert.deepEqual(codesOf(outcome.hookRuns, "Stop"), [0, 0]);
    const [, second] = runsOf(outcome.hookRuns, "Stop");
    assert.equal(second!.payload.stop_hook_active, true);
    assert.equal(second!.stdout, "");
    assert.equal(outcome.run.result?.subtype, "success");
  },
  { applies: CONTEXT },
);

claudeTest(
  "output context: a silent subagent gets the prompt as SubagentStop additional context and answers",
  async (client) => {
    const subagent = silentSubagent(silence(client));
    const outcome = await runScenario(client, {
      prompt: "delegate the empty tool check to a subagent",
      script: subagent.script,
      allowedTools: subagent.allowedTools,
      env: { STALL_WATCH_OUTPUT: "context" },
    });
    assertAnswered(outcome, MAIN_ANSWER);
    assert.deepEqual(subagent.used(), subagent.expected);
    assert.deepEqual(codesOf(outcome.hookRuns, "SubagentStop"), [0, 0]);
    const [block] = runsOf(outcome.hookRuns, "SubagentStop");
    const output = JSON.parse(block!.stdout);
    assert.equal(output.hookSpecificOutput.hookEventName, "SubagentStop");
    const subRequests = outcome.requests.filter((r) =>
      firstMessageText(r).includes(SUBAGENT_TASK)
    );
    assert.match(
      textAfterResults(subRequests.at(-1)!),
      /Stop hook additional context: stall_watch recovery: /,
    );
  },
  { applies: CONTEXT },
);

/**
 * An interactive session with `output` set in the project's config file:
 * the screen once the turn is over, and whether the block's status line
 * (shown for a few seconds only) was ever on screen.
 */
async function interactiveScreen(
  client: Client,
  mode: Mode,
): Promise<{ screen: string; statusShown: boolean }> {
  let screen = "";
  let statusShown = false;
  await withClaudeSession({
    claude: client.path,
    script: queue([...silentAfterEcho(client), text(ANSWER)]),
  }, async (session) => {
    await Deno.mkdir(join(session.project, ".claude"));
    await Deno.writeTextFile(
      join(session.project, ".claude/stall-watch.jsonc"),
      JSON.stringify({ output: mode }),
    );
    const pane = await session.startInteractive({ allowedTools: [TOOL] });
    const facts = factsOf(client.release);
    try {
      await pane.waitFor(new RegExp(`^${facts.promptMark}\\s`, "m"));
      await submit(pane, facts.promptMark, `use ${TOOL}`);
      await pane.waitFor(new RegExp(`● ${ANSWER}`));
      screen = facts.doneLine
        ? await pane.waitFor(/· done /)
        : await pane.settled();
      assert.deepEqual(
        codesOf(await session.hookRuns(), "Stop"),
        mode === "stderr" ? [2, 0] : [0, 0],
      );
      statusShown = await pane.everShown(facts.blockOnScreen.status);
    } finally {
      await pane.close();
    }
  });
  return { screen, statusShown };
}

/**
 * Types a prompt and presses Enter once the input box shows it: keys typed
 * while Claude Code is still starting are dropped, so typing is retried.
 */
async function submit(
  pane: TmuxPane,
  mark: string,
  prompt: string,
): Promise<void> {
  for (let attempt = 1;; attempt++) {
    await pane.type(prompt);
    try {
      // Claude Code puts a no-break space after the ❯.
      await pane.waitFor(new RegExp(`${mark}\\s${prompt}`), 3_000);
      break;
    } catch (error) {
      if (attempt === 5) throw error;
      await pane.keys("C-u"); // clear whatever part arrived
    }
  }
  await pane.keys("Enter");
}

claudeTest(
  "interactive output context: the user sees 'Stop says' with the report and the prompt as the hook's words, no problem",
  async (client) => {
    const { screen, statusShown } = await interactiveScreen(client, "context");
    const facts = factsOf(client.release);
    assert.match(screen, /Stop says: stall_watch: 1 /);
    assert.ok(
      screen.includes(`${facts.contextOnScreen}: stall_watch recovery: `),
      screen,
    );
    assert.equal(screen.includes(facts.blockOnScreen.headline), false);
    assert.equal(statusShown, false);
  },
  { tmux: true, applies: CONTEXT },
);

claudeTest(
  "interactive output json: the user sees the report, then the prompt as a hook problem",
  async (client) => {
    const { screen, statusShown } = await interactiveScreen(client, "json");
    const shown = factsOf(client.release).blockOnScreen;
    assert.match(screen, /Stop says: stall_watch: 1 /);
    // The headline, then the prompt (on the same line or the next).
    assert.match(
      screen,
      new RegExp(`${escapeRegExp(shown.headline)}\\s*stall_watch recovery:`),
    );
    assert.ok(statusShown, screen);
  },
  { tmux: true },
);
