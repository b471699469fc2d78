/**
 * Background work listed in the Stop payload (`background_tasks`, 2.1.145+).
 *
 * A turn may end legitimately while work it started keeps running: an MCP
 * call Claude Code moved to the background, a background agent, a shell.
 * A stall signature linked to such running work is not a stall.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";

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
 * A payload listing more background tasks than this is not judged: linking
 * calls against them could take too long, and leaving any out could nudge a
 * call that is still running in the background.
 */
export const MAX_BACKGROUND_TASKS = 10_000;

/** Whether a payload's `background_tasks` value is over the budget. */
export function backgroundTasksOverBudget(value: unknown): boolean {
  return Array.isArray(value) && value.length > MAX_BACKGROUND_TASKS;
}

/**
 * The running tasks in a payload's `background_tasks` value.
 *
 * Tolerates any shape: non-arrays and malformed items are ignored. A list
 * over {@link MAX_BACKGROUND_TASKS} yields nothing (the caller checks
 * {@link backgroundTasksOverBudget}).
 */
export function runningBackgroundTasks(value: unknown): BackgroundTask[] {
  if (!Array.isArray(value) || backgroundTasksOverBudget(value)) return [];
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

/** Finds the running task that accounts for a silent tool call. */
export type TaskLinker = (query: TaskLinkQuery) => BackgroundTask | null;

/**
 * Indexes `tasks` once, so linking many calls against many tasks stays
 * linear: by id, tool_use id and tool name, and by id length for ids quoted
 * in result text.
 *
 * A call links to the first listed task that shares its tool_use id, whose
 * id its result quotes ("moved to the background as task ..."), that runs
 * the same MCP server and tool, or, for an Agent/Task call, any running
 * subagent.
 */
export function taskLinker(tasks: readonly BackgroundTask[]): TaskLinker {
  if (tasks.length === 0) return () => null;
  const byId = new Map<string, number>();
  const byTool = new Map<string, number[]>();
  const quotable = new Map<number, Map<string, number>>(); // length -> id -> index
  let firstAgent = -1;
  tasks.forEach((task, index) => {
    for (const key of [task.id, task.toolUseId]) {
      if (key !== "" && !byId.has(key)) byId.set(key, index);
    }
    if (task.tool !== "") {
      const list = byTool.get(task.tool);
      if (list) list.push(index);
      else byTool.set(task.tool, [index]);
    }
    if (task.id.length >= MIN_ID_CHARS && task.id.length <= SNIPPET_CHARS) {
      const ids = quotable.get(task.id.length) ?? new Map<string, number>();
      if (!ids.has(task.id)) ids.set(task.id, index);
      quotable.set(task.id.length, ids);
    }
    if (firstAgent < 0 && (task.type === "subagent" || task.type === "agent")) {
      firstAgent = index;
    }
  });
  return (query) => {
    let best = Infinity;
    const consider = (index: number | undefined) => {
      if (index !== undefined && index < best) best = index;
    };
    if (query.toolUseId !== "") consider(byId.get(query.toolUseId));
    consider(quotedTask(query.resultSnippet, quotable));
    const mcp = mcpTool(query.toolName);
    if (mcp) {
      const candidates = byTool.get(mcp.tool) ?? [];
      consider(candidates.find((i) => serverMatches(mcp.server, tasks[i]!)));
    }
    const isAgentCall = query.toolName === "Agent" || query.toolName === "Task";
    if (isAgentCall && firstAgent >= 0) consider(firstAgent);
    return best === Infinity ? null : tasks[best] ?? null;
  };
}

/** Longest result text searched for quoted task ids (see `entry.ts`). */
const SNIPPET_CHARS = 400;

/** The first-listed task whose id appears in `snippet`, as an index. */
function quotedTask(
  snippet: string,
  quotable: Map<number, Map<string, number>>,
): number | undefined {
  let best: number | undefined;
  if (snippet.length < MIN_ID_CHARS) return best;
  for (const [length, ids] of quotable) {
    for (let at = 0; at + length <= snippet.length; at++) {
      const index = ids.get(snippet.slice(at, at + length));
      if (index !== undefined && (best === undefined || index < best)) {
        best = index;
      }
    }
  }
  return best;
}

/** `mcp__<server>__<tool>` split, or `null` for other tools. */
function mcpTool(toolName: string): { server: string; tool: string } | null {
  const parts = toolName.split("__");
  if (parts[0] !== "mcp" || parts.length < 3) return null;
  return { server: parts[1] as string, tool: parts.slice(2).join("__") };
}

/** Plugin servers are `plugin_<plugin>_<server>`. */
function serverMatches(server: string, task: BackgroundTask): boolean {
  return task.server === "" || server === task.server ||
    server.endsWith(`_${task.server}`);
}

function text(value: unknown): string {
  return typeof value === "string" ? value : "";
}
