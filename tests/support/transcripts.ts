/**
 * Real-shaped transcript pieces for tests that need a fresh or growing
 * transcript: built from the bundled fixtures, not invented.
 *
 * @module
 */

import { resolve } from "node:path";
import { FIXTURES_DIR } from "./cases.ts";

/** The fixture's stalled call: a `Read` with no result, at line 6. */
export const FIXTURE_TOOL_ID = "toolu_01febJA2HSNq4ucUzZdf1fiM";
const PROMPT_ID = "7ee0c538-756a-4584-912b-46b6df669f47";
const SESSION = "13710829-1cee-4bbe-a4fc-8a26816f2033";

/** `pending_tool_use_split_lines.jsonl` with its stalled call renamed to `toolUseId`. */
export function pendingTranscript(toolUseId: string): string {
  const text = Deno.readTextFileSync(
    resolve(FIXTURES_DIR, "pending_tool_use_split_lines.jsonl"),
  );
  return text.replaceAll(FIXTURE_TOOL_ID, toolUseId);
}

function envelope(type: string, extra: Record<string, unknown>): string {
  return JSON.stringify({
    parentUuid: crypto.randomUUID(),
    isSidechain: false,
    userType: "external",
    cwd: "/home/dev/projects/invoice-api",
    sessionId: SESSION,
    version: "2.1.230",
    gitBranch: "fix/invoice-total",
    type,
    ...extra,
    uuid: crypto.randomUUID(),
    timestamp: "2026-03-14T09:13:00.000Z",
    promptId: PROMPT_ID,
  }) + "\n";
}

/** A `tool_result` line answering `toolUseId`. */
export function resultLine(toolUseId: string, content: string): string {
  return envelope("user", {
    message: {
      role: "user",
      content: [{ tool_use_id: toolUseId, type: "tool_result", content }],
    },
    toolUseResult: {
      type: "text",
      file: { filePath: "/home/dev/projects/invoice-api/config/default.json" },
    },
  });
}

/** An assistant text line ending the turn. */
export function assistantTextLine(text: string): string {
  return envelope("assistant", {
    message: {
      model: "claude-opus-4-5-20251101",
      id: `msg_${crypto.randomUUID().replaceAll("-", "")}`,
      type: "message",
      role: "assistant",
      content: [{ type: "text", text }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 40 },
    },
    requestId: `req_${crypto.randomUUID().replaceAll("-", "")}`,
  });
}

/** The stop payload for a transcript in a project. */
export function stopPayload(
  sessionId: string,
  transcriptPath: string,
  cwd: string,
): Record<string, unknown> {
  return {
    session_id: sessionId,
    transcript_path: transcriptPath,
    cwd,
    hook_event_name: "Stop",
    stop_hook_active: false,
    prompt_id: PROMPT_ID,
  };
}

/**
 * A Claude Code from before `last_assistant_message` (2.1.47): its Stop
 * payload cannot say whether a reply is still on its way to the file, so
 * the hook's lag wait is for it.
 */
export const PRE_LAST_MESSAGE_VERSION = "2.1.30";

/** Transcript text as that version wrote it: its version, no promptId. */
export function asPreLastMessageClient(text: string): string {
  return text.replace(
    /"version":"[^"]*"/g,
    `"version":"${PRE_LAST_MESSAGE_VERSION}"`,
  )
    .replace(/,"promptId":"[^"]*"/g, "").replace(/"promptId":"[^"]*",/g, "");
}

/** The Stop payload that version sends: no prompt_id, no background_tasks. */
export function preLastMessageStopPayload(
  sessionId: string,
  transcriptPath: string,
  cwd: string,
): Record<string, unknown> {
  const { prompt_id: _, ...payload } = stopPayload(
    sessionId,
    transcriptPath,
    cwd,
  );
  return payload;
}

/** The background subagent the fork of {@link forkStopPayload} summarises. */
export const FORKED_SUBAGENT_ID = "aa35b3df2876b7baa";

/**
 * The SubagentStop payload of Claude Code's progress-summary fork, as real
 * 2.1.214 sent it (`-p`, `CLAUDE_CODE_FORK_SUBAGENT=1`, +30 s into a
 * subagent's call): `agent_type` "", its own `agent_id`, an
 * `agent_transcript_path` never written, the running subagent in
 * `background_tasks`. Paths below `dir`.
 */
export function forkStopPayload(dir: string): Record<string, unknown> {
  return {
    session_id: "67879565-a1e9-44c3-9e64-55e249cc927b",
    transcript_path: `${dir}/session.jsonl`,
    cwd: dir,
    prompt_id: "d1f0a288-0566-4963-b607-db74a6cf03a4",
    permission_mode: "default",
    agent_id: "a75de7d3f75434c57",
    agent_type: "",
    hook_event_name: "SubagentStop",
    stop_hook_active: false,
    agent_transcript_path:
      `${dir}/session/subagents/agent-a75de7d3f75434c57.jsonl`,
    last_assistant_message: "Calling the slow tool",
    background_tasks: [{
      id: FORKED_SUBAGENT_ID,
      type: "subagent",
      status: "running",
      description: "slow check",
      agent_type: "general-purpose",
    }],
    session_crons: [],
  };
}
