/**
 * Reads Codex CLI's Stop payload (docs/codex.md) into the shape of Claude
 * Code's, so one code path judges both.
 *
 * @module
 */

import { InputError } from "../shared/errors.ts";
import type { DoorPayload } from "../decision/run_handler.ts";
import {
  parsePayloadObject,
  requiredPath,
  stringField,
} from "../claude_client/hook_payload.ts";
import type { HookInput } from "./_hook_input.ts";

/** A Codex Stop payload, reduced to what stall-watch uses. */
export interface CodexStopInput {
  turnId: string;
  stopHookActive: boolean;
  /** The turn as the judge reads a stop; `null` when Codex wrote no rollout. */
  turn: HookInput | null;
}

/**
 * The payload's object, and its input read on demand.
 *
 * @throws {InputError} On empty input, bad JSON or a non-object; the input on a payload without `turn_id` or `transcript_path`.
 */
export function readCodexStopPayload(
  text: string,
): DoorPayload<CodexStopInput> {
  const payload = parsePayloadObject(text);
  return { payload, input: () => codexStopInput(payload) };
}

function codexStopInput(payload: Record<string, unknown>): CodexStopInput {
  if (!("turn_id" in payload)) {
    throw new InputError(
      'Cannot parse hook input: it is not Codex\'s Stop payload ("turn_id" ' +
        'is missing); "stall-watch codex-stop" is the Stop hook for ' +
        'OpenAI\'s Codex CLI, and Claude Code runs "stall-watch" alone',
    );
  }
  const turnId = requiredPath(payload, "turn_id");
  if (!("transcript_path" in payload)) {
    throw new InputError(
      'Cannot parse hook input: "transcript_path" is missing (Codex sends ' +
        "it on every Stop, null when it writes no rollout)",
    );
  }
  const stopHookActive = payload.stop_hook_active === true;
  if (payload.transcript_path === null) {
    return { turnId, stopHookActive, turn: null };
  }
  const rollout = requiredPath(payload, "transcript_path");
  return {
    turnId,
    stopHookActive,
    turn: {
      sessionId: stringField(payload, "session_id") ?? "",
      hookEventName: "Stop",
      transcriptPath: rollout,
      scanPath: rollout,
      isSubagent: false,
      claudeFork: false,
      subagentRunning: false,
      stopHookActive,
      promptId: turnId,
      lastAssistantMessage: typeof payload.last_assistant_message === "string"
        ? payload.last_assistant_message
        : null,
      payloadSendsLastMessage: true,
      backgroundTasks: [],
      backgroundTasksOverBudget: false,
      cwd: stringField(payload, "cwd") ?? "",
    },
  };
}
