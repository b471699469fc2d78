/**
 * Reading a rollout line too long to parse from its first and last bytes:
 * Codex writes fields in a fixed order (`call_id` after `arguments`, before
 * `output`; the stamped turn id last). A line that matches none is no record.
 *
 * @module
 */

import type { Entry, LinePosition } from "../transcript/entry.ts";
import { decodeJsonFragment } from "../transcript/tool_input.ts";
import {
  INJECTED_USER_PREFIXES,
  type RolloutRecord,
  TURN_MARKERS,
  type TurnMarker,
} from "./_rollout_records.ts";

/** The top-level `type` and the payload's `type`, from a line's start. */
const OPENING =
  /^\s*\{"timestamp":"[^"]{0,64}",(?:"ordinal":\d{1,20},)?"type":"([a-z_]{1,40})"(?:,"payload":\{"type":"([a-z_]{1,60})")?/;

const SKIPPED_TYPES: ReadonlySet<string> = new Set([
  "session_meta",
  "turn_context",
  "world_state",
  "token_usage_record",
]);

function lineTypes(
  opening: string,
): { type: string; item: string | null } | null {
  const match = OPENING.exec(opening);
  return match ? { type: match[1] as string, item: match[2] ?? null } : null;
}

/** Whether the opening shows no record (metadata, `event_msg` but markers); unknown shapes are parsed. */
export function isSkippableOpening(opening: string): boolean {
  const types = lineTypes(opening);
  if (types === null) return false;
  if (SKIPPED_TYPES.has(types.type)) return true;
  return types.type === "event_msg" && types.item !== null &&
    !Object.hasOwn(TURN_MARKERS, types.item);
}

const CALL_ID = /"call_id":"((?:[^"\\]|\\.){1,200})"/;
const NAME = /"name":"((?:[^"\\]|\\.){0,200})"/;
const NAMESPACE = /"namespace":"((?:[^"\\]|\\.){1,200})"/;
const ROLE = /"role":"([a-z]{1,20})"/;
const TURN_ID = /"turn_id":"((?:[^"\\]|\\.){1,200})"/;
const FIRST_TEXT = /"text":"((?:[^"\\]|\\.){0,200})/;
const STAMPED_TURN =
  /"internal_chat_message_metadata_passthrough":\{"turn_id":"((?:[^"\\]|\\.){1,200})"/;

/** The record of a line too long to parse, from its ends, or null; never empty (that size is content). */
export function sniffRecord(
  head: string,
  tail: string,
  at: LinePosition,
): RolloutRecord | null {
  const types = lineTypes(head);
  if (types === null || types.item === null) return null;
  if (types.type === "event_msg") {
    if (!Object.hasOwn(TURN_MARKERS, types.item)) return null;
    const turnId = TURN_ID.exec(head)?.[1];
    return {
      kind: TURN_MARKERS[types.item] as TurnMarker["kind"],
      turnId: turnId === undefined ? "" : decodeJsonFragment(turnId),
      offset: at.offset,
      line: at.line,
    };
  }
  if (types.type !== "response_item") return null;
  const stamped = STAMPED_TURN.exec(tail)?.[1];
  const turnId = stamped === undefined ? null : decodeJsonFragment(stamped);
  const base = {
    offset: at.offset,
    line: at.line,
    promptId: turnId,
    sidechain: false,
  };
  const entry = sniffedEntry(types.item, head, tail, base);
  return entry === null ? null : { kind: "entry", entry, turnId };
}

function sniffedEntry(
  item: string,
  head: string,
  tail: string,
  base: Omit<Entry, "kind">,
): Entry | null {
  switch (item) {
    case "function_call":
    case "custom_tool_call":
    case "local_shell_call": {
      // `call_id` follows the arguments: in the tail of a huge call.
      const id = CALL_ID.exec(head)?.[1] ?? CALL_ID.exec(tail)?.[1];
      if (id === undefined) return null;
      const name = decodeJsonFragment(NAME.exec(head)?.[1] ?? "");
      const namespace = NAMESPACE.exec(head)?.[1];
      return {
        kind: "assistant",
        ...base,
        messageId: null,
        texts: [],
        toolUses: [{
          id: decodeJsonFragment(id),
          name: namespace === undefined
            ? name
            : `${decodeJsonFragment(namespace)}__${name}`,
        }],
      };
    }
    case "function_call_output":
    case "custom_tool_call_output":
    case "local_shell_call_output": {
      const id = CALL_ID.exec(head)?.[1];
      if (id === undefined) return null;
      return {
        kind: "results",
        ...base,
        results: [{
          toolUseId: decodeJsonFragment(id),
          empty: false,
          userStopped: false,
          snippet: "",
        }],
      };
    }
    case "message": {
      const role = ROLE.exec(head)?.[1];
      if (role === "assistant") {
        return {
          kind: "assistant",
          ...base,
          messageId: null,
          texts: ["(text)"],
          toolUses: [],
        };
      }
      if (role !== "user") return { kind: "note", ...base, source: "meta" };
      const opening = decodeJsonFragment(FIRST_TEXT.exec(head)?.[1] ?? "")
        .trimStart();
      if (opening.startsWith("<turn_aborted>")) {
        return { kind: "interrupt", ...base };
      }
      return INJECTED_USER_PREFIXES.some((prefix) => opening.startsWith(prefix))
        ? { kind: "note", ...base, source: "meta" }
        : { kind: "prompt", ...base };
    }
    default:
      return null;
  }
}
