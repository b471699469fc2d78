/**
 * One Codex rollout line as the entries stall-watch judges, plus the turn
 * markers (the table in docs/codex.md, "The rollout reader"; Codex 0.171.0).
 * A missing or mistyped field makes a record less informative, never an error.
 *
 * @module
 */

import type {
  AssistantEntry,
  Entry,
  LinePosition,
  ToolResult,
  ToolUse,
} from "../transcript/entry.ts";
import { isPlainObject } from "../shared/plain_object.ts";
import { summarizeToolInput } from "../transcript/tool_input.ts";
import { isUserAbortText, readToolOutput } from "./_tool_output.ts";

/** A turn marker: `task_started`, `task_complete` or `turn_aborted`. */
export interface TurnMarker {
  kind: "turn_started" | "turn_complete" | "turn_aborted";
  /** `""` when the line named none. */
  turnId: string;
  offset: number;
  line: number;
}

/** An entry, with the turn Codex stamped on it (when it did). */
export interface EntryRecord {
  kind: "entry";
  entry: Entry;
  /** `internal_chat_message_metadata_passthrough.turn_id`, else null. */
  turnId: string | null;
}

/** What one rollout line says. */
export type RolloutRecord = TurnMarker | EntryRecord;

/** How `user` messages Codex injected open (0.171.0; `<user_instructions>` and AGENTS.md of older releases). */
export const INJECTED_USER_PREFIXES: readonly string[] = Object.freeze([
  "<environment_context>",
  "<hook_prompt",
  "<turn_aborted>",
  "<user_instructions>",
  "<user_shell_command>",
  "<subagent_notification>",
  "<skills_instructions>",
  "<INSTRUCTIONS>",
  "<user_action>",
  "<collaboration_mode>",
  "<model_switch>",
  "# AGENTS.md instructions for ",
]);

const MAX_PARTS = 64;

/** The record of one parsed rollout line, or null (metadata, reasoning, unknown types). */
export function rolloutRecord(
  raw: Record<string, unknown>,
  at: LinePosition,
): RolloutRecord | null {
  const payload = raw.payload;
  if (!isPlainObject(payload)) return null;
  switch (raw.type) {
    case "event_msg":
      return turnMarker(payload, at);
    case "response_item":
      return responseItem(payload, raw, at);
    case "compacted": {
      const entry: Entry = { kind: "boundary", ...base(raw, at, null) };
      return { kind: "entry", entry, turnId: null };
    }
    default:
      return null;
  }
}

/** The entry a `task_complete` (`turn_end`) or `turn_aborted` (`interrupt`) stands for. */
export function markerEntry(marker: TurnMarker): Entry {
  return {
    kind: marker.kind === "turn_complete" ? "turn_end" : "interrupt",
    offset: marker.offset,
    line: marker.line,
    promptId: marker.turnId === "" ? null : marker.turnId,
    sidechain: false,
  };
}

/** The `event_msg` payload types that are turn markers, and their kinds. */
export const TURN_MARKERS: Readonly<Record<string, TurnMarker["kind"]>> = {
  task_started: "turn_started",
  task_complete: "turn_complete",
  turn_aborted: "turn_aborted",
};

function turnMarker(
  payload: Record<string, unknown>,
  at: LinePosition,
): TurnMarker | null {
  // Own keys only: `toString` would find Object's method (threat model 43).
  const kind = typeof payload.type === "string" &&
      Object.hasOwn(TURN_MARKERS, payload.type)
    ? TURN_MARKERS[payload.type]
    : undefined;
  if (kind === undefined) return null;
  return {
    kind,
    turnId: typeof payload.turn_id === "string" ? payload.turn_id : "",
    offset: at.offset,
    line: at.line,
  };
}

function stampedTurnId(payload: Record<string, unknown>): string | null {
  const meta = payload.internal_chat_message_metadata_passthrough;
  if (!isPlainObject(meta)) return null;
  return typeof meta.turn_id === "string" && meta.turn_id !== ""
    ? meta.turn_id
    : null;
}

type Base = Omit<AssistantEntry, "kind" | "messageId" | "texts" | "toolUses">;

function base(
  raw: Record<string, unknown>,
  at: LinePosition,
  turnId: string | null,
): Base {
  const entry: Base = {
    offset: at.offset,
    line: at.line,
    promptId: turnId,
    sidechain: false,
  };
  const time = typeof raw.timestamp === "string"
    ? Date.parse(raw.timestamp)
    : NaN;
  if (Number.isFinite(time)) entry.time = time;
  return entry;
}

function responseItem(
  payload: Record<string, unknown>,
  raw: Record<string, unknown>,
  at: LinePosition,
): EntryRecord | null {
  const turnId = stampedTurnId(payload);
  const entry = itemEntry(payload, base(raw, at, turnId));
  return entry === null ? null : { kind: "entry", entry, turnId };
}

function itemEntry(payload: Record<string, unknown>, b: Base): Entry | null {
  switch (payload.type) {
    case "message":
      return messageEntry(payload, b);
    case "function_call":
    case "custom_tool_call":
    case "local_shell_call": {
      const use = toolUse(payload);
      if (use === null) return null;
      return {
        kind: "assistant",
        ...b,
        messageId: stringOrNull(payload.id),
        texts: [],
        toolUses: [use],
      };
    }
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output": {
      const result = toolResult(payload);
      return result === null
        ? null
        : { kind: "results", ...b, results: [result] };
    }
    default:
      // reasoning, web and tool searches (run by the API), unknown items
      return null;
  }
}

function messageEntry(payload: Record<string, unknown>, b: Base): Entry {
  const texts = messageTexts(payload.content);
  switch (payload.role) {
    case "assistant":
      return {
        kind: "assistant",
        ...b,
        messageId: stringOrNull(payload.id),
        texts: texts.filter((text) => text.trim() !== ""),
        toolUses: [],
      };
    case "user":
      return userEntry(payload, texts.join("\n"), b);
    default:
      // developer and system messages: instructions, never a prompt
      return { kind: "note", ...b, source: "meta" };
  }
}

function userEntry(
  payload: Record<string, unknown>,
  text: string,
  b: Base,
): Entry {
  const opening = text.trimStart();
  if (opening.startsWith("<turn_aborted>")) return { kind: "interrupt", ...b };
  if (isInjected(payload, opening)) {
    return { kind: "note", ...b, source: "meta" };
  }
  const hasImage = Array.isArray(payload.content) &&
    payload.content.slice(0, MAX_PARTS).some((part) =>
      isPlainObject(part) && part.type === "input_image"
    );
  if (opening === "" && !hasImage) return { kind: "note", ...b };
  return { kind: "prompt", ...b };
}

/** Whether a user message is Codex's: it opens as injected text, or its provenance is not `user` (0.171.0). */
function isInjected(
  payload: Record<string, unknown>,
  opening: string,
): boolean {
  if (INJECTED_USER_PREFIXES.some((prefix) => opening.startsWith(prefix))) {
    return true;
  }
  const meta = payload.internal_chat_message_metadata_passthrough;
  if (!isPlainObject(meta) || !Array.isArray(meta.content_item_metadata)) {
    return false;
  }
  const kinds = meta.content_item_metadata.slice(0, MAX_PARTS).flatMap(
    (item) =>
      isPlainObject(item) && isPlainObject(item.provenance) &&
        typeof item.provenance.type === "string"
        ? [item.provenance.type]
        : [],
  );
  return kinds.length > 0 && !kinds.includes("user");
}

/** The texts of a message's content: a string, or parts with `text`. */
function messageTexts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  const texts: string[] = [];
  for (const part of content.slice(0, MAX_PARTS)) {
    if (isPlainObject(part) && typeof part.text === "string") {
      texts.push(part.text);
    }
  }
  return texts;
}

/** A call by `call_id`; an MCP tool named as Claude Code's (`mcp__<server>` namespace + `__<tool>`). */
function toolUse(payload: Record<string, unknown>): ToolUse | null {
  const id = stringOrNull(payload.call_id) ?? stringOrNull(payload.id);
  if (id === null) return null;
  const name = typeof payload.name === "string"
    ? payload.name
    : payload.type === "local_shell_call"
    ? "local_shell"
    : "";
  const namespace = stringOrNull(payload.namespace);
  const use: ToolUse = {
    id,
    name: namespace === null ? name : `${namespace}__${name}`,
  };
  const input = callInput(payload);
  if (input) use.input = input;
  return use;
}

const MAX_ARGUMENTS_CHARS = 64 * 1024;

function callInput(payload: Record<string, unknown>) {
  if (payload.type === "function_call") {
    const args = payload.arguments;
    if (typeof args !== "string" || args.length > MAX_ARGUMENTS_CHARS) {
      return null;
    }
    try {
      return summarizeToolInput(JSON.parse(args));
    } catch {
      return null;
    }
  }
  if (payload.type === "local_shell_call" && isPlainObject(payload.action)) {
    const command = payload.action.command;
    if (Array.isArray(command)) {
      return summarizeToolInput({
        command: command.slice(0, MAX_PARTS).filter((w) =>
          typeof w === "string"
        ).join(" "),
      });
    }
  }
  return null;
}

function toolResult(payload: Record<string, unknown>): ToolResult | null {
  const id = stringOrNull(payload.call_id);
  if (id === null) return null;
  const output = readToolOutput(payload.output);
  return {
    toolUseId: id,
    empty: output.empty,
    userStopped: isUserAbortText(output.snippet),
    snippet: output.snippet,
  };
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
