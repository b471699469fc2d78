/**
 * Reads the Stop / SubagentStop payload by name: only `transcript_path` is required.
 *
 * @module
 */

import {
  type BackgroundTask,
  backgroundTasksOverBudget,
  MAX_BACKGROUND_TASKS,
  runningBackgroundTasks,
} from "../detection/background_tasks.ts";
import { eventOf } from "../claude_client/hook_events.ts";
import type { DoorPayload } from "../decision/run_handler.ts";
import {
  parsePayloadObject,
  requiredPath,
  stringField,
} from "../claude_client/hook_payload.ts";
import { cutOversizedArrays } from "./_oversized_array.ts";

/** The hook payload, reduced to what stall-watch uses. */
export interface HookInput {
  sessionId: string;
  hookEventName: string;
  transcriptPath: string;
  /** The file judged: `transcript_path`, or SubagentStop's `agent_transcript_path` (`null`: absent). */
  scanPath: string | null;
  isSubagent: boolean;
  /**
   * SubagentStop of Claude Code's own progress-summary fork (`agent_type` ""), file never written
   * (2.1.145-2.1.220 in `-p` with `CLAUDE_CODE_FORK_SUBAGENT=1`; interactive to 2.1.310).
   */
  claudeFork: boolean;
  /** A SubagentStop whose subagent `background_tasks` lists as running. */
  subagentRunning: boolean;
  stopHookActive: boolean;
  promptId: string | null;
  /** `null`: no such field (older Claude Code). */
  lastAssistantMessage: string | null;
  /** A field only 2.1.145+ sends is there: no `last_assistant_message` means a reply without text. */
  payloadSendsLastMessage: boolean;
  backgroundTasks: BackgroundTask[];
  /** More `background_tasks` than the budget (then `backgroundTasks` is empty). */
  backgroundTasksOverBudget: boolean;
  cwd: string;
}

/**
 * The payload's object, and its input read on demand.
 *
 * @throws {InputError} On empty input, bad JSON or a non-object; the input on a missing `transcript_path`.
 */
export function readStopPayload(text: string): DoorPayload<HookInput> {
  const tasks = cutOversizedArrays(
    text,
    "background_tasks",
    MAX_BACKGROUND_TASKS,
  );
  const payload = parsePayloadObject(tasks.text);
  return { payload, input: () => hookInputFrom(payload, tasks.cut) };
}

/** @throws {InputError} On a missing or non-string `transcript_path`. */
function hookInputFrom(
  payload: Record<string, unknown>,
  tasksCut = false,
): HookInput {
  const transcriptPath = requiredPath(payload, "transcript_path");
  const hookEventName = eventOf(payload, "hook");
  const isSubagent = hookEventName === "SubagentStop";
  const backgroundTasks = runningBackgroundTasks(payload.background_tasks);
  const agentId = stringField(payload, "agent_id");
  return {
    sessionId: stringField(payload, "session_id") ?? "",
    hookEventName,
    transcriptPath,
    scanPath: isSubagent
      ? stringField(payload, "agent_transcript_path")
      : transcriptPath,
    isSubagent,
    claudeFork: isSubagent && payload.agent_type === "",
    subagentRunning: isSubagent && agentId !== null &&
      backgroundTasks.some((task) =>
        task.id === agentId && task.type === "subagent"
      ),
    stopHookActive: payload.stop_hook_active === true,
    promptId: stringField(payload, "prompt_id"),
    lastAssistantMessage: typeof payload.last_assistant_message === "string"
      ? payload.last_assistant_message
      : null,
    payloadSendsLastMessage: "prompt_id" in payload ||
      "background_tasks" in payload,
    backgroundTasks,
    backgroundTasksOverBudget: tasksCut ||
      backgroundTasksOverBudget(payload.background_tasks),
    cwd: stringField(payload, "cwd") ?? "",
  };
}
