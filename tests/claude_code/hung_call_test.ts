/**
 * Real Claude Code and a call hung in flight. Such a call fires no hook (no
 * result, no PostToolUse, no Stop), and what a hook started at PreToolUse
 * says while the call runs (exit 2 with `asyncRewake`, a `systemMessage`)
 * shows nowhere until the call ends (measured on 2.1.90, 2.1.145, 2.1.214
 * and 2.1.332; docs/watchdog.md). What does reach the user: a status line
 * with `refreshInterval`, which Claude Code runs again every few seconds,
 * also while a call runs, from 2.1.97 (`status_line_refresh`).
 *
 * Here `stall-watch statusline` is the status line (refreshed every 2 s,
 * its threshold 4 s) while `mcp__stub__slow` runs for 25 s.
 */

import assert from "node:assert/strict";
import {
  type RecordedRequest,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import {
  appliesWhere,
  claudeTest,
  type Client,
  waitForInput,
} from "./support/scenario.ts";
import {
  type ClaudeSession,
  MAIN_TS,
  shellQuote,
  withClaudeSession,
} from "./support/session.ts";
import type { TmuxPane } from "./support/tmux.ts";
import { HOOK_PERMISSION_FLAGS } from "../../src/shared/permissions.ts";
import {
  featureSince,
  formatRelease,
} from "../../src/claude_client/release.ts";

const SLOW = "mcp__stub__slow";
const CALL_SECONDS = 25;
const DONE = "The slow call came back.";
/** What the status line says of the slow call, whatever the seconds. */
const NAMED =
  /stall-watch: mcp__stub__slow \(seconds=25\) has had no result for \d+ s/;

/** The status line command: stall-watch from source, release flags. */
function statusLineCommand(): string {
  return [Deno.execPath(), "run", "--quiet", ...HOOK_PERMISSION_FLAGS, MAIN_TS]
    .map(shellQuote).join(" ") + " statusline";
}

/** Runs `fn` in an interactive session with the status line registered. */
async function withStatusLine(
  client: Client,
  fn: (session: ClaudeSession, pane: TmuxPane) => Promise<void>,
): Promise<void> {
  const script = (_request: RecordedRequest, index: number): Reply =>
    index === 0 ? toolCall(SLOW, { seconds: CALL_SECONDS }) : text(DONE);
  await withClaudeSession({ claude: client.path, script }, async (session) => {
    const settings = JSON.parse(await Deno.readTextFile(session.settingsPath));
    settings.statusLine = {
      type: "command",
      command: statusLineCommand(),
      refreshInterval: 2,
    };
    await Deno.writeTextFile(session.settingsPath, JSON.stringify(settings));
    session.env.STALL_WATCH_STATUSLINE_AFTER_SECONDS = "4";
    const pane = await session.startInteractive({ allowedTools: [SLOW] });
    try {
      await waitForInput(pane, client);
      await fn(session, pane);
    } finally {
      await pane.close();
    }
  });
}

claudeTest(
  "a call running with no result is named on the status line while it runs, and the line goes once its result is in",
  (client) =>
    withStatusLine(client, async (session, pane) => {
      await pane.submit(`use ${SLOW}`);
      const during = await pane.waitFor(NAMED);
      // It showed while the call ran: the answer was not asked for yet.
      assert.equal(session.api.mainRequests().length, 1, during);
      await pane.waitFor(new RegExp(DONE));
      const after = await pane.settled();
      assert.doesNotMatch(after, /has had no result/);
    }),
  {
    tmux: true,
    applies: appliesWhere(
      "status_line_refresh",
      "Claude Code runs the status line again only after events there, not while a call runs",
    ),
  },
);

claudeTest(
  `before ${
    formatRelease(featureSince("status_line_refresh"))
  } the status line is not run while a call runs: nothing names the call`,
  (client) =>
    withStatusLine(client, async (session, pane) => {
      await pane.submit(`use ${SLOW}`);
      // Well past the threshold and several refresh intervals.
      await new Promise((r) => setTimeout(r, 12_000));
      assert.equal(session.api.mainRequests().length, 1);
      assert.doesNotMatch(await pane.screen(), /has had no result/);
      await pane.waitFor(new RegExp(DONE));
    }),
  {
    tmux: true,
    applies: {
      // The matrix release before the floor; older ones behave the same.
      since: "2.1.90",
      before: formatRelease(featureSince("status_line_refresh")),
      why: "one release before the floor shows it; from the floor on see above",
    },
  },
);
