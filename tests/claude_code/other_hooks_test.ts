/**
 * Real Claude Code with a second hook that ends the turn on purpose: a
 * PostToolUse or PreToolUse hook returning `{"continue": false,
 * "stopReason": "policy"}` (a quality gate, a permission policy), beside
 * stall-watch's Stop hook and its watcher (interactive, in tmux). Claude
 * Code then ends the turn after the tool result and fires no Stop.
 *
 * - From 2.1.97 it writes a `hook_stopped_continuation` record after the
 *   result (then `turn_duration`): the watcher finishes silently
 *   (`hook_stopped`), and nothing reaches the model.
 * - Before, nothing on file tells that turn from a result nobody
 *   answered: where the watcher can wake a session (2.1.84+) it does, after
 *   its idle window (a known limit: `doctor` warns when another hook can
 *   stop turns, docs/watchdog.md says what happens).
 */

import assert from "node:assert/strict";
import {
  lastUserText,
  type RecordedRequest,
  type Reply,
  text,
  toolCall,
} from "./support/fake_api.ts";
import { STOP_CONTINUATION, stoppingHookSettings } from "./support/probes.ts";
import { appliesWhere, claudeTest, type Client } from "./support/scenario.ts";
import type { ClaudeSession } from "./support/session.ts";
import {
  interactive,
  nudged,
  type OtherHooks,
  waitUntil,
  watcherDone,
  watchEvents,
  watchOutcomes,
  watchRuns,
} from "./support/watch_session.ts";
import {
  featureSince,
  formatRelease,
} from "../../src/claude_client/release.ts";

const TOOL = "mcp__stub__echo";
const WOKEN = "Woken after the policy stop.";

/** The first release that leaves a record of the stop. */
const TRACE_SINCE = formatRelease(featureSince("hook_stopped_trace"));

/** The policy hook's settings under `event`, as hook groups. */
function policyHooks(event: "PreToolUse" | "PostToolUse"): OtherHooks {
  const settings = stoppingHookSettings(event) as { hooks: OtherHooks };
  return settings.hooks;
}

/**
 * Runs one session: the model calls the echo tool, the policy hook under
 * `event` ends the turn; any later request (a wake-up) gets `WOKEN`.
 */
async function policyStop(
  client: Client,
  event: "PreToolUse" | "PostToolUse",
  check: (session: ClaudeSession) => Promise<void>,
): Promise<void> {
  const script = (_request: RecordedRequest, index: number): Reply =>
    index === 0 ? toolCall(TOOL, { text: "forty-two" }) : text(WOKEN);
  await interactive(
    client,
    script,
    [TOOL],
    async (session, pane) => {
      await pane.submit(`use ${TOOL}`);
      await waitUntil(watcherDone(session), "the watcher to finish");
      await check(session);
      // The policy's reason is what the user sees.
      await pane.waitFor(/policy/);
    },
    {},
    policyHooks(event),
  );
}

for (const event of ["PostToolUse", "PreToolUse"] as const) {
  claudeTest(
    `another ${event} hook ends the turn on purpose (continue: false): Claude Code records it, and neither the watcher nor the Stop hook nudges`,
    (client) =>
      policyStop(client, event, async (session) => {
        const runs = await session.hookRuns();
        assert.deepEqual(
          watchRuns(runs).map((r) => [r.code, r.stderr]),
          [[0, ""]],
          JSON.stringify(await watchEvents(session)),
        );
        assert.deepEqual(await watchOutcomes(session), ["hook_stopped"]);
        // No Stop fires for such a turn, and no request went out after it.
        assert.deepEqual(runs.filter((r) => r.event === "Stop"), []);
        assert.equal(session.api.mainRequests().length, 1);
        assert.deepEqual(nudged(session), []);
      }),
    {
      tmux: true,
      applies: appliesWhere(
        "hook_stopped_trace",
        `before ${TRACE_SINCE} nothing on file records the stop (see the next scenario)`,
      ),
    },
  );
}

claudeTest(
  `another PostToolUse hook ends the turn on purpose: before ${TRACE_SINCE} nothing on file records it, and the watcher wakes the session after its idle window (the known limit doctor warns about)`,
  (client) =>
    policyStop(client, "PostToolUse", async (session) => {
      assert.deepEqual(watchRuns(await session.hookRuns()).map((r) => r.code), [
        2,
      ]);
      assert.deepEqual(await watchOutcomes(session), ["nudged"]);
      await waitUntil(
        () => Promise.resolve(nudged(session).length > 0),
        "the wake-up's request",
      );
      const wake = lastUserText(nudged(session)[0]!);
      assert.match(wake, /stall_watch: 1 missing follow-up/);
      assert.doesNotMatch(wake, new RegExp(STOP_CONTINUATION));
    }),
  {
    tmux: true,
    applies: {
      since: formatRelease(featureSince("async_rewake")),
      before: TRACE_SINCE,
      why:
        `a wake-up reaches no one before asyncRewake; from ${TRACE_SINCE} the stop is on file`,
    },
  },
);
