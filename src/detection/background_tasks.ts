/**
 * Background work still running (the payload's `background_tasks`, 2.1.145+,
 * and launches results report): a stall linked to it is no stall.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";
import { type Entry, SNIPPET_CHARS } from "../transcript/entry.ts";

/** A running background task, reduced to what links it to a tool call. */
export interface BackgroundTask {
  id: string;
  type: string;
  status: string;
  /** MCP tasks' server and tool. */
  server: string;
  tool: string;
  /** When the payload carries one. */
  toolUseId: string;
}

/** The tool call a signature is about, plus the start of its result text. */
export interface TaskLinkQuery {
  toolName: string;
  toolUseId: string;
  resultSnippet: string;
}

/** Statuses meaning the task has stopped; anything else counts as running. */
const FINISHED_STATUSES = new Set(
  "completed complete done finished succeeded success failed failure error errored killed cancelled canceled stopped aborted timed_out timeout"
    .split(" "),
);

/** Ids shorter than this are too generic to look for inside result text. */
const MIN_ID_CHARS = 4;

/** A payload listing more background tasks is not judged (leaving any out could nudge a running call). */
export const MAX_BACKGROUND_TASKS = 10_000;

/** Whether a payload's `background_tasks` lists more than {@link MAX_BACKGROUND_TASKS}. */
export function backgroundTasksOverBudget(value: unknown): boolean {
  return Array.isArray(value) && value.length > MAX_BACKGROUND_TASKS;
}

/** The running tasks in a payload's `background_tasks` (malformed items ignored; over budget: none). */
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
type TaskLinker = (query: TaskLinkQuery) => BackgroundTask | null;

/**
 * Indexes `tasks` once (linear linking): a call links to the first task that
 * shares its tool_use id, whose id its result quotes, that runs its MCP
 * server and tool, or (an Agent/Task call) any subagent.
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

/** Claude Code's words opening a launch's result (`ToolResult.launchRecord`), with the task id. */
const LAUNCHES: readonly {
  type: string;
  pattern: RegExp;
  /** The words that say it, with the task's id: what a history keeps. */
  say: (id: string) => string;
}[] = [
  // Bash with run_in_background: "Command running in background with ID: b7e2k9."
  {
    type: "shell",
    pattern: /^Command running in (?:the )?background with ID:\s*([\w-]+)/i,
    say: (id) => `Command running in background with ID: ${id}`,
  },
  // Moved by the client or the user (2.1.2xx): "... moved to the background (ID: b7e2k9)."
  {
    type: "shell",
    pattern:
      /^Command (?:was manually backgrounded by user with ID:\s*|(?:was|did not complete within its \d+s timeout and was) moved to the background \(ID:\s*)([\w-]+)/i,
    say: (id) => `Command was moved to the background (ID: ${id})`,
  },
  // MCP calls over 2 minutes (2.1.212+): '... moved to the background as task mcpt_4f9a2c.'
  {
    type: "mcp task",
    pattern:
      /^(?:MCP )?tool [^\n]{1,300}?moved to the background as task\s+([\w-]+)/i,
    say: (id) => `MCP tool (kept) was moved to the background as task ${id}`,
  },
  // Background subagents (2.1.198+): "Async agent launched successfully.\nagentId: a7f3c21"
  {
    type: "subagent",
    pattern: /^Async agent launched[\s\S]*?agentId:\s*([\w-]+)/i,
    say: (id) => `Async agent launched agentId: ${id}`,
  },
];

/** The background tasks the turn's results launched, linked to their call. */
export function launchedBackgroundTasks(
  turn: readonly Entry[],
): BackgroundTask[] {
  const tasks: BackgroundTask[] = [];
  for (const entry of turn) {
    if (entry.kind !== "results") continue;
    for (const result of entry.results) {
      const found = result.launchRecord === true
        ? launchIn(result.snippet)
        : null;
      if (found === null) continue;
      tasks.push({
        id: found.id,
        type: found.launch.type,
        status: "running",
        server: "",
        tool: "",
        toolUseId: result.toolUseId,
      });
    }
  }
  return tasks;
}

/** The longest task id a history keeps (ids seen are a few characters). */
const MAX_KEPT_ID_CHARS = 64;

/** What a history keeps of a result's snippet: a launch's words with its id, or "". */
export function launchWords(snippet: string): string {
  const found = launchIn(snippet);
  return found !== null && found.id.length <= MAX_KEPT_ID_CHARS
    ? found.launch.say(found.id)
    : "";
}

/** The first launch whose words open `snippet`, with the id they name. */
function launchIn(snippet: string) {
  for (const launch of LAUNCHES) {
    const id = launch.pattern.exec(snippet)?.[1];
    if (id !== undefined) return { launch, id };
  }
  return null;
}
