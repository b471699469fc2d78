/**
 * Background work listed in the Stop payload (`background_tasks`, 2.1.145+).
 *
 * A turn may end legitimately while work it started keeps running: an MCP
 * call Claude Code moved to the background, a background agent, a shell.
 * A stall signature linked to such running work is not a stall.
 *
 * @module
 */

import { isPlainObject } from "../transcript/json_line.ts";

/** A running background task, reduced to what links it to a tool call. */
export interface BackgroundTask {
  id: string;
  type: string;
  status: string;
  /** MCP tasks: the server name. */
  server: string;
  /** MCP tasks: the tool name. */
  tool: string;
  /** A tool_use id, when the payload carries one. */
  toolUseId: string;
}

/** The tool call a signature is about, plus the start of its result text. */
export interface TaskLinkQuery {
  toolName: string;
  toolUseId: string;
  /** Start of the call's tool_result text, or "" when there is none. */
  resultSnippet: string;
}

/** Statuses meaning the task has stopped; anything else counts as running. */
const FINISHED_STATUSES = new Set([
  "completed",
  "complete",
  "done",
  "finished",
  "succeeded",
  "success",
  "failed",
  "failure",
  "error",
  "errored",
  "killed",
  "cancelled",
  "canceled",
  "stopped",
  "aborted",
  "timed_out",
  "timeout",
]);

/** Ids shorter than this are too generic to look for inside result text. */
const MIN_ID_CHARS = 4;

/**
 * The running tasks in a payload's `background_tasks` value.
 *
 * Tolerates any shape: non-arrays and malformed items are ignored.
 */
export function runningBackgroundTasks(value: unknown): BackgroundTask[] {
  if (!Array.isArray(value)) return [];
  const tasks: BackgroundTask[] = [];
  for (const item of value) {
    if (!isPlainObject(item)) continue;
    const status = text(item.status).toLowerCase();
    if (FINISHED_STATUSES.has(status)) continue;
    tasks.push({
      id: text(item.id),
      type: text(item.type).toLowerCase(),
      status,
      server: text(item.server),
      tool: text(item.tool),
      toolUseId: text(item.tool_use_id) || text(item.toolUseId),
    });
  }
  return tasks;
}

/**
 * The running task that accounts for a silent tool call, if any.
 *
 * Links by tool_use id, by MCP server and tool name, by the task id quoted in
 * the call's result ("moved to the background as task ..."), or, for an
 * Agent/Task call, by any running subagent.
 */
export function findLinkedTask(
  query: TaskLinkQuery,
  tasks: readonly BackgroundTask[],
): BackgroundTask | null {
  for (const task of tasks) {
    if (isLinked(query, task)) return task;
  }
  return null;
}

function isLinked(query: TaskLinkQuery, task: BackgroundTask): boolean {
  if (query.toolUseId !== "") {
    if (task.id === query.toolUseId || task.toolUseId === query.toolUseId) {
      return true;
    }
  }
  if (task.id.length >= MIN_ID_CHARS && query.resultSnippet.includes(task.id)) {
    return true;
  }
  if (task.tool !== "" && matchesMcpTool(query.toolName, task)) return true;
  const isAgentCall = query.toolName === "Agent" || query.toolName === "Task";
  return isAgentCall && (task.type === "subagent" || task.type === "agent");
}

/** `mcp__<server>__<tool>`; plugin servers are `plugin_<plugin>_<server>`. */
function matchesMcpTool(toolName: string, task: BackgroundTask): boolean {
  const parts = toolName.split("__");
  if (parts[0] !== "mcp" || parts.length < 3) return false;
  const server = parts[1] as string;
  const tool = parts.slice(2).join("__");
  if (tool !== task.tool) return false;
  return task.server === "" || server === task.server ||
    server.endsWith(`_${task.server}`);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
