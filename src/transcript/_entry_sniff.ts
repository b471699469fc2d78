/**
 * An overlong line's envelope (kind, ids, markers: written outside the large
 * payload) read from its head and tail. Inside a JSON string every quote is
 * escaped, so an unescaped `"key":"value"` is structural.
 *
 * @module
 */

import {
  type AssistantEntry,
  type Entry,
  isLaunchText,
  isUserStopText,
  type LinePosition,
  type ToolUse,
  userTextEntry,
} from "./entry.ts";
import { summarizeRawToolInput } from "./tool_input.ts";

const TOOL_USE =
  /(?<!\\)"type"\s*:\s*"tool_use"\s*,\s*"id"\s*:\s*"([^"\\]+)"\s*,\s*"name"\s*:\s*"([^"\\]*)"/g;
const TOOL_RESULT_ID = /(?<!\\)"tool_use_id"\s*:\s*"([^"\\]+)"/g;
const MESSAGE_ID = /(?<!\\)"id"\s*:\s*"(msg_[^"\\]*)"/;
const ENTRY_TYPE = /(?<!\\)"type"\s*:\s*"(user|assistant|system)"/;
const NO_OUTPUT_CONTENT =
  /(?<!\\)"content"\s*:\s*"\(([^"\\()\s]+) completed with no output\)"/;
const USER_REJECTED = /(?<!\\)"toolUseResult"\s*:\s*"User rejected tool use"/;
/** An error result's id, as Claude Code writes it after `is_error`. */
const ERROR_RESULT_ID =
  /(?<!\\)"is_error"\s*:\s*true\s*,\s*"tool_use_id"\s*:\s*"([^"\\]+)"/g;
const STOP_REASON = /(?<!\\)"stop_reason"\s*:\s*"([^"\\]+)"/;
const SYNTHETIC_MODEL_FIELD = /(?<!\\)"model"\s*:\s*"<synthetic>"/;
const USER_TEXT_START =
  /(?<!\\)"(?:content|text)"\s*:\s*"((?:[^"\\]|\\.){0,200})/;

/** What the line reader's byte search found in a whole overlong line (see `RawLine`). */
interface FoundInLine {
  toolUseIds?: readonly string[];
  errorToolUseIds?: readonly string[];
  hasTextBlock?: boolean;
}

/**
 * The entry of an overlong line, from its decoded ends and what the byte
 * search found in it. Its results are not empty unless they are the
 * no-output text, and its text is text.
 */
export function sniffEntry(
  head: string,
  tail: string,
  at: LinePosition,
  found: FoundInLine = {},
): Entry | null {
  const lineIds = found.toolUseIds ?? [];
  const type = ENTRY_TYPE.exec(head)?.[1] ?? ENTRY_TYPE.exec(tail)?.[1];
  if (type !== "user" && type !== "assistant") return null;
  // Envelope fields sit before or after the large payload.
  const field = (name: string) =>
    stringField(head, name) ?? stringField(tail, name);
  const isTrue = (name: string) => hasTrue(head, name) || hasTrue(tail, name);
  const base = {
    offset: at.offset,
    line: at.line,
    promptId: field("promptId"),
    sidechain: isTrue("isSidechain"),
  };
  if (type === "assistant") {
    const toolUses: ToolUse[] = [];
    for (const match of head.matchAll(TOOL_USE)) {
      const input = rawInputAfter(head, match.index + match[0].length);
      toolUses.push({
        id: match[1] as string,
        name: match[2] as string,
        ...(input ? { input } : {}),
      });
    }
    const entry: AssistantEntry = {
      kind: "assistant",
      ...base,
      messageId: MESSAGE_ID.exec(head)?.[1] ?? null,
      texts: found.hasTextBlock || /(?<!\\)"type"\s*:\s*"text"/.test(head)
        ? ["(long text)"]
        : [],
      toolUses,
    };
    const stopReason = STOP_REASON.exec(tail)?.[1] ??
      STOP_REASON.exec(head)?.[1];
    if (stopReason !== undefined) entry.stopReason = stopReason;
    if (SYNTHETIC_MODEL_FIELD.test(head)) entry.synthetic = true;
    if (isTrue("isApiErrorMessage")) entry.apiError = true;
    return entry;
  }
  if (
    lineIds.length > 0 || /(?<!\\)"type"\s*:\s*"tool_result"/.test(head)
  ) {
    // The ids the reader found anywhere in the line (an error result's id
    // comes after its content), then any the head shows in another spacing.
    const ids = new Set<string>(lineIds);
    for (const match of head.matchAll(TOOL_RESULT_ID)) ids.add(match[1] ?? "");
    ids.delete("");
    // A server tool's results (WebSearch's, inside `toolUseResult`) carry
    // the API's own ids: no call of the client's is answered by them.
    for (const id of ids) if (isServerToolId(id)) ids.delete(id);
    const snippet = unescapeJsonText(USER_TEXT_START.exec(head)?.[1] ?? "");
    const rejected = USER_REJECTED.test(head) || USER_REJECTED.test(tail);
    // The text the head shows is the first result's, and says the user
    // stopped the call only where that result is an error (as parsed).
    const errors = new Set(found.errorToolUseIds ?? []);
    for (const match of head.matchAll(ERROR_RESULT_ID)) {
      errors.add(match[1] ?? "");
    }
    const [first] = ids;
    const stoppedFirst = first !== undefined && errors.has(first) &&
      isUserStopText(snippet);
    // A lone result may be Claude Code's no-output text in a line made long
    // by other fields; the classifier decides by the call's tool name.
    const noOutputOf = ids.size === 1
      ? NO_OUTPUT_CONTENT.exec(head)?.[1] ?? null
      : null;
    return {
      kind: "results",
      ...base,
      results: [...ids].map((toolUseId) => ({
        toolUseId,
        empty: false,
        userStopped: rejected || (stoppedFirst && toolUseId === first),
        snippet,
        ...(toolUseId === first && isLaunchText(snippet)
          ? { launch: true as const }
          : {}),
        ...(noOutputOf === null ? {} : { noOutputOf }),
      })),
    };
  }
  return userTextEntry(base, {
    opening: unescapeJsonText(USER_TEXT_START.exec(head)?.[1] ?? ""),
    compactSummary: isTrue("isCompactSummary"),
    meta: isTrue("isMeta"),
    launchedBy: field("sourceToolUseID"),
  });
}

/**
 * The text of a JSON string's escaped start (as the head shows it, maybe
 * cut in the middle of an escape): what the parsed line would say.
 */
function unescapeJsonText(escaped: string): string {
  for (
    const text of [escaped, escaped.replace(/\\(?:u[0-9a-fA-F]{0,3})?$/, "")]
  ) {
    try {
      return JSON.parse(`"${text}"`) as string;
    } catch {
      // Cut inside an escape: try without its start.
    }
  }
  return escaped;
}

/** A server tool's call (`srvtoolu_...`), which the API answers itself. */
function isServerToolId(id: string): boolean {
  return id.startsWith("srvtoolu_");
}

const INPUT_KEY = /^\s*,\s*"input"\s*:\s*/;

/** The input summary of the tool_use ending at `end`, when its start is in `head`. */
function rawInputAfter(head: string, end: number) {
  const rest = head.slice(end, end + 1024);
  const key = INPUT_KEY.exec(rest);
  return key ? summarizeRawToolInput(rest.slice(key[0].length)) : null;
}

const FIELD_PATTERNS = new Map<string, RegExp>();

/** `"<name>": <value>` as a key, built once. */
function fieldPattern(name: string, value: string): RegExp {
  let pattern = FIELD_PATTERNS.get(name + value);
  if (!pattern) {
    pattern = new RegExp(`(?<!\\\\)"${name}"\\s*:\\s*${value}`);
    FIELD_PATTERNS.set(name + value, pattern);
  }
  return pattern;
}

function stringField(text: string, name: string): string | null {
  return fieldPattern(name, '"([^"\\\\]+)"').exec(text)?.[1] ?? null;
}

function hasTrue(text: string, name: string): boolean {
  return fieldPattern(name, "true").test(text);
}
