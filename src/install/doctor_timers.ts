/**
 * doctor's comparison of the watchdog's windows with Claude Code's own
 * timers: where Claude Code recovers by itself first, the watchdog should
 * wait for it; where the watchdog gives up before Claude Code's recovery
 * is over, it never wakes such a turn. Pure: settings and the environment
 * in, checklist lines out.
 *
 * Claude Code 2.1.332's timers, read from its own code: a model request
 * times out after `API_TIMEOUT_MS` (600 s); a stream without bytes after
 * `CLAUDE_STREAM_IDLE_TIMEOUT_MS` (300 s, at most 1800 s); an MCP tool call
 * after `MCP_TOOL_TIMEOUT`, else its idle limit (5 min for network servers,
 * 30 min for stdio ones); a background agent that stalls after
 * `CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS` (stream idle + 300 s); and it stops
 * honouring Stop hooks after 8 blocks in a row.
 *
 * @module
 */

import type { CheckResult } from "./doctor_checks.ts";

/** What the comparison needs. */
export interface TimerFacts {
  /** The watch events stall-watch's `watch` is registered for. */
  watchEvents: readonly string[];
  idleSeconds: number;
  watchMaxSeconds: number;
  maxRetries: number;
  /** The environment doctor runs in (Claude Code's timer variables). */
  env: Readonly<Record<string, string>>;
}

/** Claude Code's defaults, in seconds. */
export const CLAUDE_TIMERS = Object.freeze({
  apiTimeout: 600,
  streamIdle: 300,
  streamIdleMax: 1800,
  mcpNetworkIdle: 300,
  mcpStdioIdle: 1800,
  /** Added to the stream idle timeout for a background agent's stall. */
  agentStallExtra: 300,
  /** Consecutive Stop-hook blocks Claude Code honours. */
  stopBlockCap: 8,
});

/** The checklist lines about timers; none when the watchdog is not registered. */
export function timerChecks(facts: TimerFacts): CheckResult[] {
  const watched = new Set(facts.watchEvents);
  if (watched.size === 0) return [];
  const results: CheckResult[] = [];
  const { idleSeconds: idle, watchMaxSeconds: max } = facts;
  const reinstall = 'run "stall-watch install --watch" after the change';
  if (idle >= max) {
    results.push({
      status: "warn",
      text:
        `watchdog: the idle window (${idle} s) is not shorter than the watcher's deadline (${max} s): it never wakes a session`,
      fix: `set watch.idle_seconds below watch.max_seconds`,
    });
  }
  if (watched.has("PostToolUse") && !watched.has("PostToolUseFailure")) {
    results.push({
      status: "warn",
      text:
        "watchdog: not registered for PostToolUseFailure: a tool call that fails, or an MCP call Claude Code ends at its timeout, starts no watcher",
      fix: 'run "stall-watch install --watch"',
    });
  }
  // A stalled stream: Claude Code gives up on it, retries, and at last
  // writes its API error; the watcher must still be there, idle window
  // included, to wake the session after that.
  const streamIdle = clampedSeconds(
    facts.env.CLAUDE_STREAM_IDLE_TIMEOUT_MS,
    CLAUDE_TIMERS.streamIdle,
    CLAUDE_TIMERS.streamIdleMax,
  );
  const apiTimeout = msSeconds(facts.env.API_TIMEOUT_MS) ??
    CLAUDE_TIMERS.apiTimeout;
  const needed = streamIdle + idle;
  results.push(
    max > needed
      ? {
        status: "ok",
        text:
          `watchdog: a stalled model stream is Claude Code's to end first (${streamIdle} s, CLAUDE_STREAM_IDLE_TIMEOUT_MS); the watcher (${max} s) is still there to wake the session after its API error; an open request is never judged before API_TIMEOUT_MS (${apiTimeout} s)`,
      }
      : {
        status: "warn",
        text:
          `watchdog: the watcher's deadline (${max} s) ends before Claude Code gives up on a stalled stream (${streamIdle} s) plus the idle window (${idle} s): such a turn is never woken`,
        fix: `set watch.max_seconds above ${needed}, then ${reinstall}`,
      },
  );
  const mcp = msSeconds(facts.env.MCP_TOOL_TIMEOUT);
  results.push({
    status: "ok",
    text: `watchdog: a hung tool call is Claude Code's to end (${
      mcp === null
        ? `MCP idle limit ${CLAUDE_TIMERS.mcpNetworkIdle} s network, ${CLAUDE_TIMERS.mcpStdioIdle} s stdio`
        : `MCP_TOOL_TIMEOUT ${mcp} s`
    }): the watcher never judges a turn while a call runs${
      watched.has("PostToolUseFailure")
        ? ", and the timeout's error result starts a new watcher"
        : ""
    }`,
  });
  const agentStall = msSeconds(facts.env.CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS) ??
    streamIdle + CLAUDE_TIMERS.agentStallExtra;
  results.push({
    status: "ok",
    text:
      `watchdog: a turn waiting on background work is left to Claude Code, which ends a stalled background agent after ${agentStall} s (CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS)`,
  });
  results.push(
    facts.maxRetries === 0
      ? {
        status: "warn",
        text: "watchdog: max_retries is 0: neither hook ever nudges",
        fix: "set max_retries to 1 or more",
      }
      : {
        status: "ok",
        text:
          `watchdog: ${facts.maxRetries} nudges per call, below Claude Code's cap of ${CLAUDE_TIMERS.stopBlockCap} Stop blocks in a row`,
      },
  );
  return results;
}

/** A millisecond variable as whole seconds, or `null` when unset or invalid. */
function msSeconds(value: string | undefined): number | null {
  const ms = Number(value);
  return value !== undefined && value !== "" && Number.isFinite(ms) && ms > 0
    ? Math.round(ms / 1000)
    : null;
}

/** Claude Code raises the stream idle limit only, up to its maximum. */
function clampedSeconds(
  value: string | undefined,
  fallback: number,
  maximum: number,
): number {
  const seconds = msSeconds(value);
  return seconds === null || seconds <= fallback
    ? fallback
    : Math.min(seconds, maximum);
}
