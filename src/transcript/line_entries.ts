/**
 * Claude Code's transcript lines as entries: parsed, or when overlong sniffed
 * from their ends (`_entry_sniff.ts`).
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";
import {
  API_ERROR_PREFIX,
  type AssistantEntry,
  type Entry,
  type EntryBase,
  type HookStopEntry,
  isLaunchText,
  isPlaceholderText,
  isUserStopText,
  type LinePosition,
  SNIPPET_CHARS,
  type ToolResult,
  type ToolUse,
  userTextEntry,
} from "./entry.ts";
import { sniffEntry } from "./_entry_sniff.ts";
import { decodeUtf8, parseJsonObjects } from "./json_line.ts";
import type { RawLine } from "./line_reader.ts";
import { summarizeToolInput } from "./tool_input.ts";

/** The entries on one raw line, in file order (usually one or none); `lineNumber`: 1-based, 0 unknown. */
export function lineEntries(raw: RawLine, lineNumber = 0): Entry[] {
  const at = { offset: raw.offset, line: lineNumber };
  if (raw.clipped) {
    const entry = sniffEntry(
      decodeUtf8(raw.head),
      decodeUtf8(raw.tail),
      at,
      raw,
    );
    return entry ? [entry] : [];
  }
  const entries: Entry[] = [];
  for (const object of parseJsonObjects(decodeUtf8(raw.head))) {
    const entry = toEntry(object, at);
    if (entry) entries.push(entry);
  }
  return entries;
}

/**
 * One parsed line as an entry, `null` for metadata (snapshots, titles, most
 * attachments and `system` lines): an odd field makes it say less, never fail.
 */
export function toEntry(
  raw: Record<string, unknown>,
  at: LinePosition,
): Entry | null {
  const version = stringOrNull(raw.version);
  const base: EntryBase = {
    offset: at.offset,
    line: at.line,
    promptId: stringOrNull(raw.promptId),
    sidechain: raw.isSidechain === true,
  };
  if (version !== null) base.version = version;
  const time = typeof raw.timestamp === "string"
    ? Date.parse(raw.timestamp)
    : NaN;
  if (Number.isFinite(time)) base.time = time;
  switch (raw.type) {
    case "assistant":
      return assistantEntry(raw, base);
    case "user":
      return userEntry(raw, base);
    case "system":
      if (raw.subtype === "compact_boundary") {
        return { kind: "boundary", ...base };
      }
      return isTurnEndRecord(raw) ? { kind: "turn_end", ...base } : null;
    case "attachment":
      return hookStopEntry(raw.attachment, base);
    default:
      return null;
  }
}

function hookStopEntry(
  attachment: unknown,
  base: EntryBase,
): HookStopEntry | null {
  if (!isPlainObject(attachment)) return null;
  if (attachment.type !== "hook_stopped_continuation") return null;
  const hookName = attachment.hookName;
  return {
    kind: "hook_stop",
    ...base,
    hookName: typeof hookName === "string" ? hookName : "",
  };
}

function assistantEntry(
  raw: Record<string, unknown>,
  base: EntryBase,
): AssistantEntry {
  const message = isPlainObject(raw.message) ? raw.message : {};
  const texts: string[] = [];
  const toolUses: ToolUse[] = [];
  const content = message.content;
  if (typeof content === "string" && content.trim() !== "") texts.push(content);
  for (const block of Array.isArray(content) ? content : []) {
    if (!isPlainObject(block)) continue;
    if (block.type === "text" && isNonBlank(block.text)) {
      texts.push(block.text as string);
    } else if (block.type === "tool_use" && isNonBlank(block.id)) {
      const input = summarizeToolInput(block.input);
      toolUses.push({
        id: block.id as string,
        name: typeof block.name === "string" ? block.name : "",
        ...(input ? { input } : {}),
      });
    }
    // Thinking and server-side tools say nothing about client-side calls.
  }
  const synthetic = message.model === SYNTHETIC_MODEL;
  const entry: AssistantEntry = {
    kind: "assistant",
    ...base,
    messageId: stringOrNull(message.id),
    texts: texts.filter((text) => !isPlaceholderText(text)),
    toolUses,
  };
  const stopReason = stringOrNull(message.stop_reason);
  if (stopReason !== null) entry.stopReason = stopReason;
  if (synthetic) entry.synthetic = true;
  if (isApiErrorMessage(raw, synthetic, texts)) entry.apiError = true;
  if ((synthetic || entry.apiError) && texts.some(isUsageLimitText)) {
    entry.apiError = true;
    entry.usageLimit = true;
  }
  if (entry.apiError) {
    const category = stringOrNull(raw.error);
    if (category !== null) entry.apiErrorCategory = category.slice(0, 64);
    if (Number.isInteger(raw.apiErrorStatus)) {
      entry.apiErrorStatus = raw.apiErrorStatus as number;
    }
  }
  return entry;
}

/**
 * Claude Code's texts for a usage or session limit: 1.0.x `Claude AI usage
 * limit reached|<epoch>`, later `Session limit reached ∙ resets 10pm`, `You've
 * hit your session limit · resets 10pm`, `You're out of extra usage`.
 */
const USAGE_LIMIT_TEXTS: readonly RegExp[] = [
  /^Claude AI usage limit reached\|\d+\s*$/,
  /^[\w ]*limit reached\s*[∙·•|-]\s*resets\b/i,
  /^You['’]ve hit your [\w ]*limit\b/i,
  /^You['’]re out of extra usage\b/i,
];

function isUsageLimitText(text: string): boolean {
  const trimmed = text.trim();
  return USAGE_LIMIT_TEXTS.some((pattern) => pattern.test(trimmed));
}

const SYNTHETIC_MODEL = "<synthetic>";

/** Claude Code's API-error flag, or (before it) `<synthetic>` with an `API Error` text. */
function isApiErrorMessage(
  raw: Record<string, unknown>,
  synthetic: boolean,
  texts: readonly string[],
): boolean {
  if (raw.isApiErrorMessage === true) return true;
  return synthetic &&
    texts.some((text) => text.trimStart().startsWith(API_ERROR_PREFIX));
}

function userEntry(raw: Record<string, unknown>, base: EntryBase): Entry {
  const message = isPlainObject(raw.message) ? raw.message : {};
  const content = message.content;
  const blocks = Array.isArray(content) ? content : [];
  const resultBlocks = blocks.filter((block) =>
    isPlainObject(block) && block.type === "tool_result"
  ) as Record<string, unknown>[];
  const results = resultBlocks.flatMap((block) =>
    toolResult(block, raw.toolUseResult, resultBlocks.length) ?? []
  );
  if (results.length > 0) return { kind: "results", ...base, results };
  const text = typeof content === "string" ? content : blockText(blocks);
  const opening = text.trimStart();
  const compactSummary = raw.isCompactSummary === true;
  return userTextEntry(base, {
    opening,
    compactSummary,
    meta: raw.isMeta === true,
    // A parsed compaction summary never carries a launching call.
    launchedBy: compactSummary ? null : stringOrNull(raw.sourceToolUseID),
    empty: opening === "" &&
      !blocks.some((b) => isPlainObject(b) && b.type === "image"),
  });
}

/** A `system` line recording that a turn is over (a `turn_end` entry). */
function isTurnEndRecord(raw: Record<string, unknown>): boolean {
  if (raw.subtype === "stop_hook_summary" || raw.subtype === "turn_duration") {
    return true;
  }
  return typeof raw.content === "string" && STOP_HOOK_RAN.test(raw.content);
}

/**
 * 1.0.x's `system` line for a hook run, the event in bold: only `Stop` ends
 * the main turn (`SubagentStop` ends a subagent's).
 */
// deno-lint-ignore no-control-regex -- the bold escapes are in the text
const STOP_HOOK_RAN = /^(?:\u001b\[\d+m)?Stop(?:\u001b\[\d+m)? \[/;

function toolResult(
  block: Record<string, unknown>,
  toolUseResult: unknown,
  resultsInEntry: number,
): ToolResult | null {
  if (!isNonBlank(block.tool_use_id)) return null;
  const content = block.content;
  const text = typeof content === "string"
    ? content
    : blockText(Array.isArray(content) ? content : []);
  const opening = text.trimStart();
  const userStopped = toolUseResult === "User rejected tool use" ||
    (block.is_error === true && isUserStopText(opening));
  const noOutputOf = NO_OUTPUT.exec(text.trim())?.[1] ?? null;
  const result: ToolResult = {
    toolUseId: block.tool_use_id as string,
    // Claude Code rewrites an empty MCP result (`[]`, blank text blocks) to
    // its no-output text and keeps the raw result in `toolUseResult`, which
    // is the raw result of the entry's only call.
    empty: !("content" in block) || isEmptyContent(content) ||
      (noOutputOf !== null && resultsInEntry === 1 &&
        Array.isArray(toolUseResult) && isEmptyContent(toolUseResult)),
    userStopped,
    snippet: opening.slice(0, SNIPPET_CHARS),
  };
  if (noOutputOf !== null) result.noOutputOf = noOutputOf;
  if (isLaunchText(opening)) result.launch = true;
  // The entry's record is its only call's.
  if (resultsInEntry === 1 && isLaunchRecord(toolUseResult)) {
    result.launchRecord = true;
  }
  return result;
}

function isLaunchRecord(record: unknown): boolean {
  if (Array.isArray(record)) return true;
  if (!isPlainObject(record)) return false;
  return isNonBlank(record.backgroundTaskId) ||
    record.status === "async_launched" || record.status === "remote_launched";
}

/** The tool named by the no-output text Claude Code puts for a contentless result. */
const NO_OUTPUT = /^\(([^()\s]+) completed with no output\)$/;

/** Deeper nesting is no known shape: content, not a stack overflow. */
const MAX_CONTENT_DEPTH = 32;

/**
 * Whether a tool result's content carries nothing: null, blank, `[]`, blank
 * text blocks. Any other block or shape is content: a new format cannot
 * mass-flag healthy sessions.
 */
export function isEmptyContent(content: unknown): boolean {
  return isEmptyAt(content, 0);
}

/** {@link isEmptyContent} at `depth` blocks deep (kept out of the export: an `every` callback would pass its index). */
function isEmptyAt(content: unknown, depth: number): boolean {
  if (content === null || content === undefined) return true;
  if (typeof content === "string") return content.trim() === "";
  if (Array.isArray(content)) {
    if (depth >= MAX_CONTENT_DEPTH) return false;
    return content.every((block) => isEmptyBlock(block, depth + 1));
  }
  return false;
}

function isEmptyBlock(block: unknown, depth: number): boolean {
  if (typeof block === "string") return block.trim() === "";
  if (block === null || block === undefined) return true;
  if (!isPlainObject(block)) return false;
  if (block.type === "text") return !isNonBlank(block.text);
  if (block.type !== undefined) return false; // image, document, resource...
  if ("text" in block) return !isNonBlank(block.text);
  if ("content" in block) return isEmptyAt(block.content, depth);
  return true;
}

function blockText(blocks: unknown[]): string {
  let text = "";
  for (const block of blocks) {
    if (typeof block === "string") text += block;
    else if (isPlainObject(block) && typeof block.text === "string") {
      text += (text ? "\n" : "") + block.text;
    }
  }
  return text;
}

function isNonBlank(value: unknown): boolean {
  return typeof value === "string" && value.trim() !== "";
}

function stringOrNull(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
