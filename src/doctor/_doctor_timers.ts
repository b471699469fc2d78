/**
 * doctor's comparison of the watchdog's windows with Claude Code's own
 * timers: a watchdog that gives up first never wakes such a turn. Pure.
 *
 * @module
 */

import type { CheckResult } from "./doctor_report.ts";
import {
  agentStallSeconds,
  apiTimeoutMs,
  CLAUDE_TIMERS,
  mcpToolTimeoutSeconds,
  streamIdleSeconds,
} from "../claude_client/timers.ts";

/** What the comparison needs: the events `watch` is registered for, the settings, the environment (Claude Code's timer variables). */
export interface TimerFacts {
  watchEvents: readonly string[];
  idleSeconds: number;
  watchMaxSeconds: number;
  maxRetries: number;
  env: Readonly<Record<string, string>>;
}

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
  // Claude Code ends a stalled stream, retries, then writes its API error:
  // the watcher must outlast that plus the idle window.
  const streamIdle = streamIdleSeconds(facts.env);
  const apiTimeout = Math.round(apiTimeoutMs(facts.env) / 1000);
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
  const mcp = mcpToolTimeoutSeconds(facts.env);
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
  const agentStall = agentStallSeconds(facts.env);
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
