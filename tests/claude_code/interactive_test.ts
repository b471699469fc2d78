/**
 * Real Claude Code in a terminal (tmux): the trusted project's hooks run; a
 * healthy answer is allowed without a word to the user or the model, and a
 * block is shown to the user as a problem, with all of stderr.
 */

import assert from "node:assert/strict";
import { queue, text, toolCall } from "./support/fake_api.ts";
import { factsOf, has } from "./support/release_facts.ts";
import {
  claudeTest,
  codesOf,
  silence,
  turnEndScreen,
  waitForInput,
} from "./support/scenario.ts";
import { withClaudeSession } from "./support/session.ts";
import { EVENT_WAIT_MS } from "./support/patience.ts";

claudeTest(
  "interactive healthy text: one Stop, allowed, nothing shown but the answer",
  async (client) => {
    const answer = "Hello from the fake model.";
    await withClaudeSession(
      { claude: client.path, script: queue([text(answer)]) },
      async (session) => {
        const pane = await session.startInteractive();
        try {
          await waitForInput(pane, client);
          await pane.submit("say hi");
          await pane.waitFor(new RegExp(`● ${answer}`));
          // The Stop hook ran and allowed; the turn is done, the session idle.
          await waitUntil(async () => (await session.hookRuns()).length === 1);
          const screen = await turnEndScreen(pane, client);
          const runs = await session.hookRuns();
          assert.deepEqual(codesOf(runs, "Stop"), [0]);
          assert.equal(runs[0]!.stderr, "");
          if (has(client.release, "last_assistant_message")) {
            assert.equal(runs[0]!.payload.last_assistant_message, answer);
          }
          assert.equal(runs[0]!.payload.stop_hook_active, false);
          assert.doesNotMatch(screen, /hook (reported|problem|error)/i);
          assert.equal(session.api.mainRequests().length, 1);
          assert.equal(await pane.alive(), true);
          // /exit ends it.
          await pane.submit("/exit");
          await waitUntil(async () => !(await pane.alive()));
        } finally {
          await pane.close();
        }
      },
    );
  },
  { tmux: true },
);

claudeTest(
  "interactive block: the user is shown the block as a hook problem with the whole report, then the answer",
  async (client) => {
    const tool = "mcp__stub__echo";
    const answer = "Recovered: echo said forty-two.";
    await withClaudeSession({
      claude: client.path,
      script: queue([
        toolCall(tool, { text: "forty-two" }),
        ...silence(client),
        text(answer),
      ]),
    }, async (session) => {
      const pane = await session.startInteractive({ allowedTools: [tool] });
      try {
        await waitForInput(pane, client);
        await pane.submit(`use ${tool}`);
        await pane.waitFor(new RegExp(`● ${answer}`));
        await waitUntil(async () => (await session.hookRuns()).length === 2);
        const screen = await turnEndScreen(pane, client);
        assert.deepEqual(codesOf(await session.hookRuns(), "Stop"), [2, 0]);
        const shown = factsOf(client.release).blockOnScreen;
        assert.ok(screen.includes(shown.headline), screen);
        // The status line shows for a few seconds only.
        assert.ok(await pane.everShown(shown.status), screen);
        assert.match(screen, /stall_watch recovery: a tool call in this turn/);
        assert.match(screen, /first stall = mcp__stub__echo \(id=toolu_/);
        assert.equal(
          session.api.mainRequests().length,
          2 + silence(client).length,
        );
      } finally {
        await pane.close();
      }
    });
  },
  { tmux: true },
);

async function waitUntil(
  condition: () => Promise<boolean>,
  timeoutMs = EVENT_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition never became true");
    await new Promise((r) => setTimeout(r, 100));
  }
}
