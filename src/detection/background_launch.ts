/**
 * Background work a tool result says it started.
 *
 * The Stop payload lists running `background_tasks`; a PostToolUse payload
 * does not. The watchdog reads the same fact from the results themselves:
 * a background shell, a background subagent, or an MCP call Claude Code
 * moved to the background. Claude Code wakes the model itself when such
 * work finishes, so a turn that ends on one of these results is not stalled.
 *
 * @module
 */

import type { BackgroundTask } from "./background_tasks.ts";
import type { Entry } from "../transcript/entry.ts";

/**
 * Result texts that start background work, with the task id they name:
 * Claude Code's own words, which open the result, on a result whose
 * record has a launch's shape (`ToolResult.launchRecord`). A tool's
 * output may say the same words anywhere: it launches nothing.
 */
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
  // A command the client moved to the background on its own (its timeout,
  // a message that arrived while it ran) or the user did (2.1.2xx):
  // "Command did not complete within its 120s timeout and was moved to the
  // background (ID: b7e2k9)."
  {
    type: "shell",
    pattern:
      /^Command (?:was manually backgrounded by user with ID:\s*|(?:was|did not complete within its \d+s timeout and was) moved to the background \(ID:\s*)([\w-]+)/i,
    say: (id) => `Command moved to the background with ID: ${id}`,
  },
  // MCP calls over 2 minutes (2.1.212+): 'MCP tool "x" is still running
  // after 120s. It was moved to the background as task mcpt_4f9a2c.'
  {
    type: "mcp task",
    pattern:
      /^(?:MCP )?tool [^\n]{1,300}?moved to the background as task\s+([\w-]+)/i,
    say: (id) => `MCP tool moved to the background as task ${id}`,
  },
  // Background subagents (2.1.198+): "Async agent launched successfully.\nagentId: a7f3c21"
  {
    type: "subagent",
    pattern: /^Async agent launched[\s\S]*?agentId:\s*([\w-]+)/i,
    say: (id) => `Async agent launched agentId: ${id}`,
  },
];

/**
 * The background tasks the turn's tool results say they launched, as
 * running tasks linked to their call, for `classifyTurn`'s context.
 *
 * @param turn The current turn's entries.
 */
export function launchedBackgroundTasks(
  turn: readonly Entry[],
): BackgroundTask[] {
  const tasks: BackgroundTask[] = [];
  for (const entry of turn) {
    if (entry.kind !== "results") continue;
    for (const result of entry.results) {
      if (result.launchRecord !== true) continue;
      for (const { type, pattern } of LAUNCHES) {
        const id = pattern.exec(result.snippet)?.[1];
        if (id === undefined) continue;
        tasks.push({
          id,
          type,
          status: "running",
          server: "",
          tool: "",
          toolUseId: result.toolUseId,
        });
        break;
      }
    }
  }
  return tasks;
}

/** The longest task id a history keeps (ids seen are a few characters). */
const MAX_KEPT_ID_CHARS = 64;

/**
 * What a history needs of a result's snippet: the words of a background
 * launch with its id (few characters, whatever the snippet held), or
 * nothing. {@link launchedBackgroundTasks} finds the same launch in them.
 */
export function launchWords(snippet: string): string {
  for (const { pattern, say } of LAUNCHES) {
    const id = pattern.exec(snippet)?.[1];
    if (id === undefined) continue;
    return id.length <= MAX_KEPT_ID_CHARS ? say(id) : "";
  }
  return "";
}
