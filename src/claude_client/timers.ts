/**
 * Claude Code's own timers as its environment (which hooks inherit) sets them:
 * the one parse of `API_TIMEOUT_MS` and its siblings, defaults read from
 * 2.1.332's code (docs/watchdog.md). Pure.
 *
 * @module
 */

type Env = Readonly<Record<string, string>>;

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

function positiveMs(value: string | undefined): number | null {
  if (value === undefined || value === "") return null;
  const ms = Number(value);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}

function msAsSeconds(value: string | undefined): number | null {
  const ms = positiveMs(value);
  return ms === null ? null : Math.round(ms / 1000);
}

/** How long a model request may run (`API_TIMEOUT_MS`), in milliseconds. */
export function apiTimeoutMs(env: Env): number {
  return positiveMs(env.API_TIMEOUT_MS) ?? CLAUDE_TIMERS.apiTimeout * 1000;
}

/** How long a model stream may stay silent, in seconds (raised only, to the maximum). */
export function streamIdleSeconds(env: Env): number {
  const seconds = msAsSeconds(env.CLAUDE_STREAM_IDLE_TIMEOUT_MS);
  return seconds === null || seconds <= CLAUDE_TIMERS.streamIdle
    ? CLAUDE_TIMERS.streamIdle
    : Math.min(seconds, CLAUDE_TIMERS.streamIdleMax);
}

/** `MCP_TOOL_TIMEOUT` in seconds, or `null` when the idle limits apply. */
export function mcpToolTimeoutSeconds(env: Env): number | null {
  return msAsSeconds(env.MCP_TOOL_TIMEOUT);
}

/** After how many seconds Claude Code ends a stalled background agent. */
export function agentStallSeconds(env: Env): number {
  return msAsSeconds(env.CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS) ??
    streamIdleSeconds(env) + CLAUDE_TIMERS.agentStallExtra;
}
