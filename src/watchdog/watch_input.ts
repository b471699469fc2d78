/**
 * Parses the PostToolUse payload the watchdog (`stall-watch watch`) reads on
 * stdin. Fields are read by name; unknown fields (and the possibly large
 * `tool_input` / `tool_response`) are ignored.
 *
 * @module
 */

import {
  parsePayloadObject,
  requiredPath,
  stringField,
} from "../hook/hook_input.ts";

/** The PostToolUse payload, reduced to what the watchdog uses. */
export interface WatchInput {
  sessionId: string;
  /** `PostToolUse` unless the payload says otherwise. */
  hookEventName: string;
  /** The session's main transcript. */
  transcriptPath: string;
  /** The call whose result the watchdog waits to see answered. */
  toolUseId: string;
  toolName: string;
  /** The turn's id (2.1.196+), when the payload has one. */
  promptId: string | null;
  /** Set when the call ran inside a subagent (`agent_id`). */
  agentId: string | null;
}

/**
 * Parses the payload text.
 *
 * @throws {InputError} On empty input, invalid JSON, a non-object, or a
 * missing or unusable `transcript_path` or `tool_use_id`.
 */
export function parseWatchInput(text: string): WatchInput {
  const payload = parsePayloadObject(text);
  return {
    sessionId: stringField(payload, "session_id") ?? "",
    hookEventName: stringField(payload, "hook_event_name") ?? "PostToolUse",
    transcriptPath: requiredPath(payload, "transcript_path"),
    toolUseId: requiredPath(payload, "tool_use_id"),
    toolName: stringField(payload, "tool_name") ?? "",
    promptId: stringField(payload, "prompt_id"),
    agentId: stringField(payload, "agent_id"),
  };
}
