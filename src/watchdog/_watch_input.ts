/**
 * The watcher's PostToolUse(Failure) payload, read by name, and whether a
 * wake-up can reach the session at all.
 *
 * @module
 */

import { eventOf } from "../claude_client/hook_events.ts";
import type { DoorPayload } from "../decision/run_handler.ts";
import {
  parsePayloadObject,
  requiredPath,
  stringField,
} from "../claude_client/hook_payload.ts";

/** The PostToolUse(Failure) payload, reduced to what the watchdog uses. */
export interface WatchInput {
  sessionId: string;
  hookEventName: string;
  transcriptPath: string;
  /** The call whose result the watchdog waits to see answered. */
  toolUseId: string;
  toolName: string;
  /** 2.1.196+. */
  promptId: string | null;
  /** Set when the call ran inside a subagent. */
  agentId: string | null;
  /** PostToolUseFailure's `is_interrupt`. */
  interrupted: boolean;
}

/**
 * The payload's object, and its input read on demand.
 *
 * @throws {InputError} On empty input, bad JSON or a non-object; the input on an unusable `transcript_path` or `tool_use_id`.
 */
export function readWatchPayload(text: string): DoorPayload<WatchInput> {
  const payload = parsePayloadObject(text);
  return { payload, input: () => watchInputFrom(payload) };
}

function watchInputFrom(payload: Record<string, unknown>): WatchInput {
  return {
    sessionId: stringField(payload, "session_id") ?? "",
    hookEventName: eventOf(payload, "watch"),
    transcriptPath: requiredPath(payload, "transcript_path"),
    toolUseId: requiredPath(payload, "tool_use_id"),
    toolName: stringField(payload, "tool_name") ?? "",
    promptId: stringField(payload, "prompt_id"),
    agentId: stringField(payload, "agent_id"),
    interrupted: payload.is_interrupt === true,
  };
}

/** Entry points of runs driven by a program (`-p`, the Agent SDKs). */
const SDK_ENTRYPOINTS: ReadonlySet<string> = new Set([
  "sdk-cli",
  "sdk-ts",
  "sdk-py",
]);

/** Why a wake-up cannot reach this session (a `-p` or SDK run ends or kills the watcher), or `null`. */
export function unattendedRun(
  env: Readonly<Record<string, string>>,
): string | null {
  if (env.CLAUDE_CODE_SESSION_ATTENDED === "0") {
    return "CLAUDE_CODE_SESSION_ATTENDED=0";
  }
  const entrypoint = env.CLAUDE_CODE_ENTRYPOINT;
  if (entrypoint !== undefined && SDK_ENTRYPOINTS.has(entrypoint)) {
    return `CLAUDE_CODE_ENTRYPOINT=${entrypoint}`;
  }
  return null;
}
