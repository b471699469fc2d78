/**
 * doctor's timer comparison: the watchdog's windows against Claude Code's
 * own timers (request, stream idle, MCP tool, background agent, Stop cap).
 */

import assert from "node:assert/strict";
import {
  timerChecks,
  type TimerFacts,
} from "../../src/doctor/_doctor_timers.ts";

function facts(over: Partial<TimerFacts> = {}): TimerFacts {
  return {
    watchEvents: ["PostToolUse", "PostToolUseFailure"],
    idleSeconds: 30,
    watchMaxSeconds: 600,
    maxRetries: 3,
    env: {},
    ...over,
  };
}

const warnings = (f: TimerFacts) =>
  timerChecks(f).filter((r) => r.status === "warn");

Deno.test("timerChecks() says nothing when the watchdog is not registered", () => {
  assert.deepEqual(timerChecks(facts({ watchEvents: [] })), []);
});

Deno.test("timerChecks() passes the defaults and names Claude Code's timers", () => {
  const results = timerChecks(facts());
  assert.deepEqual(results.map((r) => r.status), ["ok", "ok", "ok", "ok"]);
  const text = results.map((r) => r.text).join("\n");
  assert.match(
    text,
    /stalled model stream .*\(300 s, CLAUDE_STREAM_IDLE_TIMEOUT_MS\)/,
  );
  assert.match(text, /API_TIMEOUT_MS \(600 s\)/);
  assert.match(text, /MCP idle limit 300 s network, 1800 s stdio/);
  assert.match(text, /error result starts a new watcher/);
  assert.match(text, /background agent after 600 s/);
  assert.match(text, /3 nudges per call, below Claude Code's cap of 8/);
});

Deno.test("timerChecks() warns where the watchdog would never wake a turn", () => {
  // Claude Code's stream limit raised to its maximum: the watcher is gone first.
  const long = warnings(facts({
    env: { CLAUDE_STREAM_IDLE_TIMEOUT_MS: "3600000" },
  }));
  assert.equal(long.length, 1);
  assert.match(
    long[0]!.text,
    /deadline \(600 s\) ends before Claude Code gives up on a stalled stream \(1800 s\) plus the idle window \(30 s\)/,
  );
  assert.equal(
    long[0]!.fix,
    'set watch.max_seconds above 1830, then run "stall-watch install --watch" after the change',
  );
  // Below Claude Code's default the variable changes nothing.
  assert.deepEqual(
    warnings(facts({ env: { CLAUDE_STREAM_IDLE_TIMEOUT_MS: "1000" } })),
    [],
  );
  assert.match(
    warnings(facts({ idleSeconds: 600 }))[0]!.text,
    /idle window \(600 s\) is not shorter than the watcher's deadline/,
  );
  assert.match(
    warnings(facts({ watchEvents: ["PostToolUse"] }))[0]!.text,
    /not registered for PostToolUseFailure/,
  );
  assert.match(
    warnings(facts({ maxRetries: 0 }))[0]!.text,
    /max_retries is 0/,
  );
});

Deno.test("timerChecks() reads MCP_TOOL_TIMEOUT and the agent stall timeout in milliseconds", () => {
  const text = timerChecks(facts({
    env: {
      MCP_TOOL_TIMEOUT: "120000",
      CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS: "900000",
      API_TIMEOUT_MS: "nonsense",
    },
  })).map((r) => r.text).join("\n");
  assert.match(text, /MCP_TOOL_TIMEOUT 120 s/);
  assert.match(text, /background agent after 900 s/);
  assert.match(
    text,
    /API_TIMEOUT_MS \(600 s\)/,
    "an unusable value is the default",
  );
});
