/**
 * A script for the silent-subagent scenarios: the main conversation starts a
 * foreground subagent, the subagent calls the empty MCP tool and goes quiet
 * (twice: Claude Code retries an empty reply once), then answers.
 *
 * @module
 */

import {
  empty,
  firstMessageText,
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
}

/** A fresh silent-subagent script. */
export function silentSubagent(): SilentSubagent {
  const main: Reply[] = [
    toolCall("Agent", {
      description: "check the empty tool",
      prompt: SUBAGENT_TASK,
      subagent_type: "general-purpose",
      run_in_background: false,
    }, "Delegating."),
    text(MAIN_ANSWER),
  ];
  const sub: Reply[] = [
    toolCall("mcp__stub__empty", {}, "Subagent: calling empty."),
    empty(),
    empty(),
    text(SUBAGENT_ANSWER),
  ];
  let mainIndex = 0;
  let subIndex = 0;
  return {
    // The subagent's requests start from its task prompt.
    script: (request) =>
      firstMessageText(request).includes(SUBAGENT_TASK)
        ? sub[subIndex++] ?? text("overrun")
        : main[mainIndex++] ?? text("overrun"),
    used: () => [mainIndex, subIndex],
  };
}
