/**
 * Claude Code's timers as its environment sets them: the values the
 * watchdog waits by and `doctor` compares against.
 */

import assert from "node:assert/strict";
import {
  agentStallSeconds,
  apiTimeoutMs,
  mcpToolTimeoutSeconds,
  streamIdleSeconds,
} from "../../src/claude_client/timers.ts";

Deno.test("apiTimeoutMs() reads API_TIMEOUT_MS and falls back to Claude Code's 10 minutes", () => {
  assert.equal(apiTimeoutMs({}), 600_000);
  assert.equal(apiTimeoutMs({ API_TIMEOUT_MS: "45000" }), 45_000);
  for (const bad of ["", "0", "-5", "soon", "Infinity"]) {
    assert.equal(apiTimeoutMs({ API_TIMEOUT_MS: bad }), 600_000, bad);
  }
});

Deno.test("streamIdleSeconds() only raises Claude Code's 300 s, up to its 1800 s", () => {
  assert.equal(streamIdleSeconds({}), 300);
  assert.equal(
    streamIdleSeconds({ CLAUDE_STREAM_IDLE_TIMEOUT_MS: "60000" }),
    300,
  );
  assert.equal(
    streamIdleSeconds({ CLAUDE_STREAM_IDLE_TIMEOUT_MS: "900000" }),
    900,
  );
  assert.equal(
    streamIdleSeconds({ CLAUDE_STREAM_IDLE_TIMEOUT_MS: "9000000" }),
    1800,
  );
});

Deno.test("mcpToolTimeoutSeconds() and agentStallSeconds() follow their variables", () => {
  assert.equal(mcpToolTimeoutSeconds({}), null);
  assert.equal(mcpToolTimeoutSeconds({ MCP_TOOL_TIMEOUT: "2500" }), 3);
  assert.equal(agentStallSeconds({}), 600);
  assert.equal(
    agentStallSeconds({ CLAUDE_STREAM_IDLE_TIMEOUT_MS: "900000" }),
    1200,
  );
  assert.equal(
    agentStallSeconds({ CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS: "120000" }),
    120,
  );
});
