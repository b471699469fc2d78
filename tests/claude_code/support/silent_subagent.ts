/**
 * A script for the silent-subagent scenarios: the main conversation starts a
 * foreground subagent, the subagent calls the empty MCP tool and goes quiet
 * (twice: Claude Code retries an empty reply once), then answers.
 *
 * @module
 */

import {
  firstMessageText,
  type RecordedRequest,
  type Reply,
  type Script,
  text,
  toolCall,
} from "./fake_api.ts";

/** The subagent's task, by which its requests are told apart. */
export const SUBAGENT_TASK = "SUBAGENT-TASK: call the empty tool and report.";

/** The main conversation's final answer. */
export const MAIN_ANSWER = "Main: the subagent reported back.";

/** The subagent's answer after the nudge. */
export const SUBAGENT_ANSWER =
  "Subagent recovered: the empty tool gave nothing.";

/** The script and how many replies of each conversation it gave. */
export interface SilentSubagent {
  script: Script;
  /** `[main replies, subagent replies]` given so far. */
  used(): [number, number];
  /** The replies of each conversation when all went as scripted. */
  expected: [number, number];
  /** The tools the run may use without asking. */
  allowedTools: string[];
}

/**
 * The subagent tool a request offers: `Agent`, or `Task` in older releases
 * (2.0.76 and 2.1.47 offer `Task`).
 */
export function subagentTool(request: RecordedRequest): string {
  const tools = Array.isArray(request.body?.tools) ? request.body.tools : [];
  const names = tools.map((t) => (t as { name?: unknown })?.name);
  return names.includes("Agent") ? "Agent" : "Task";
}

/**
 * A fresh silent-subagent script: the subagent stays silent `silence`
 * times (once, or twice where Claude Code retries an empty reply itself).
 */
export function silentSubagent(silence: readonly Reply[]): SilentSubagent {
  const sub: Reply[] = [
    toolCall("mcp__stub__empty", {}, "Subagent: calling empty."),
    ...silence,
    text(SUBAGENT_ANSWER),
  ];
  let mainIndex = 0;
  let subIndex = 0;
  const main = (request: RecordedRequest): Reply =>
    [
      toolCall(subagentTool(request), {
        description: "check the empty tool",
        prompt: SUBAGENT_TASK,
        subagent_type: "general-purpose",
        run_in_background: false,
      }, "Delegating."),
      text(MAIN_ANSWER),
    ][mainIndex++] ?? text("overrun");
  return {
    // The subagent's requests start from its task prompt.
    script: (request) =>
      firstMessageText(request).includes(SUBAGENT_TASK)
        ? sub[subIndex++] ?? text("overrun")
        : main(request),
    used: () => [mainIndex, subIndex],
    expected: [2, sub.length],
    allowedTools: ["Agent", "Task", "mcp__stub__empty"],
  };
}
