/**
 * The one definition of a silent tool stall: a turn's entries in, stall
 * signatures out. Pure; the hook, `scan` and `audit` all call it.
 *
 * @module
 */

import {
  type BackgroundTask,
  taskLinker,
  type TaskLinkQuery,
} from "./background_tasks.ts";
import {
  type AssistantEntry,
  type Entry,
  type HookStopEntry,
  isEmptyResult,
  isModelActivity,
  type ToolResult,
  type ToolUse,
} from "../transcript/entry.ts";
import type { ToolInputSummary } from "../transcript/tool_input.ts";
import { releaseOf, supports } from "../claude_client/release.ts";
import { judgeClosingText } from "./_model_text.ts";
import { unfixableApiError, USAGE_LIMIT } from "./_api_error.ts";

/**
 * The stall kinds; the identifiers are part of the public contract. The
 * classifier finds the first six; `announced_no_call` (the turn's last
 * words announced an action that never came) is found apart, by
 * `announcement.ts`, and blocks only when the settings say so.
 */
export type StallKind =
  | "pending_tool_use"
  | "hung_mcp_call"
  | "empty_tool_result"
  | "missing_followup"
  | "subagent_no_report"
  | "lost_tool_call"
  | "announced_no_call";

/** Every stall kind, in the order reports list them. */
export const STALL_KINDS: readonly StallKind[] = [
  "pending_tool_use",
  "empty_tool_result",
  "hung_mcp_call",
  "missing_followup",
  "subagent_no_report",
  "lost_tool_call",
  "announced_no_call",
];

/** One detected stall. */
export interface StallSignature {
  kind: StallKind;
  /** The call's tool; `""` for a `lost_tool_call` (no call is on file). */
  toolName: string;
  /**
   * The call's id; for a `lost_tool_call`, the id of the message that
   * stopped for it (the retry cap counts per id).
   */
  toolUseId: string;
  /** What the call was about (its file, command, URL...), when it was read. */
  toolInput?: ToolInputSummary;
  /** Byte offset of the line that shows the stall. */
  offset: number;
  /** 1-based line number, or 0 until resolved. */
  line: number;
  /** Which rule fired, in words. */
  rule: string;
  /** For `announced_no_call`: the announcing sentence, as written (cut). */
  announcement?: string;
}

/** What the classifier knows besides the turn itself. */
export interface ClassifyContext {
  /** Running background work from the Stop payload. */
  backgroundTasks: readonly BackgroundTask[];
  /**
   * The turn is a subagent's: its parent receives only what its final
   * message says (see `subagent_no_report`).
   */
  subagent?: boolean;
  /**
   * The turn's agent is still running (a SubagentStop whose subagent the
   * payload's `background_tasks` lists as running): a call without a
   * result is still running, never a stall.
   */
  callsRunning?: boolean;
}

/** The classifier's answer for one turn. */
export interface TurnVerdict {
  signatures: StallSignature[];
  /** Why the turn is healthy, or which rule fired first. */
  reason: string;
  /**
   * The turn ended on Claude Code's synthetic API-error entry (nothing the
   * model did came after it): the model never got to answer.
   */
  endedOnApiError?: true;
  /**
   * That API error is one no nudge can fix (see `_api_error.ts`: a usage
   * limit, a prompt too long, compaction thrashing, a bad request, login or
   * billing): the turn is an API-error ending, not a stall.
   */
  endedOnUnfixableError?: true;
  /**
   * That API error was a usage or session limit (one of the unfixable
   * ones: a nudge fails the same way until the limit resets).
   */
  endedOnUsageLimit?: true;
}

interface Located<T> {
  value: T;
  entry: Entry;
  index: number;
}

/** Lines of one API message share its id; without one, a line is a message. */
function messageKey(entry: Entry): string {
  return entry.kind === "assistant" && entry.messageId !== null
    ? entry.messageId
    : `line:${entry.offset}`;
}

/**
 * Classifies one turn.
 *
 * - `pending_tool_use` / `hung_mcp_call`: a call of this turn has no result.
 * - `empty_tool_result`: after the model's last text or call, a result came
 *   back empty and nothing answered it.
 * - `missing_followup`: every call was answered, and nothing meaningful (text
 *   or a new call) followed the last result.
 * - `lost_tool_call`: the turn ends on a model message that stopped for
 *   `tool_use` (its `stop_reason`), yet no call of it reached the file, so
 *   nothing ran.
 *
 * A turn the user interrupted, or whose trailing result is a user's refusal,
 * is not a stall; neither is a turn another hook ended on purpose
 * (`continue: false`, Claude Code's `hook_stopped_continuation` record after
 * the model's last move), nor a call linked to running background work.
 * Claude Code's own entries (model `<synthetic>`: its `API Error` entry,
 * `No response requested.`) and placeholders (`(no content)`) answer
 * nothing: a result they follow is still unanswered, and the verdict says
 * when the turn ended on an API error.
 *
 * @param turn The turn's entries in file order (no prompt, no boundary).
 */
export function classifyTurn(
  turn: readonly Entry[],
  context: ClassifyContext,
): TurnVerdict {
  const ending = apiErrorEnding(turn);
  const unfixable = ending === null ? null : unfixableApiError(ending);
  if (unfixable !== null) {
    const usageLimit = unfixable === USAGE_LIMIT;
    return {
      ...healthy(
        usageLimit
          ? "the turn ended on a usage limit: no nudge works until it resets"
          : `the turn ended on an API error no nudge can fix (${unfixable})`,
      ),
      endedOnApiError: true,
      endedOnUnfixableError: true,
      ...(usageLimit ? { endedOnUsageLimit: true as const } : {}),
    };
  }
  const verdict = judgeTurn(turn, context);
  if (ending) verdict.endedOnApiError = true;
  return verdict;
}

/**
 * Claude Code's synthetic API-error entry when it comes after everything
 * the model did in the turn, else null.
 */
function apiErrorEnding(turn: readonly Entry[]): AssistantEntry | null {
  for (let i = turn.length - 1; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant") continue;
    if (entry.apiError) return entry;
    if (isModelActivity(entry)) return null;
  }
  return null;
}

/** Whether Claude Code wrote the assistant entry itself. */
function isOwnEntry(entry: AssistantEntry): boolean {
  return entry.synthetic === true || entry.apiError === true;
}

/**
 * The lines of the turn's last model message when it stopped for
 * `tool_use` but none of its lines holds a call, and nothing (no result,
 * no interrupt) came after it; else null.
 */
function lostCallMessage(turn: readonly Entry[]): AssistantEntry[] | null {
  let last = -1;
  for (let i = turn.length - 1; i >= 0 && last < 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind === "results" || entry.kind === "interrupt") return null;
    if (entry.kind === "assistant" && !isOwnEntry(entry)) last = i;
  }
  if (last < 0) return null;
  const key = messageKey(turn[last] as Entry);
  const lines: AssistantEntry[] = [];
  for (let i = last; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant" || isOwnEntry(entry)) continue;
    if (messageKey(entry) !== key) break;
    // Collected newest first and turned round once: an unshift per line
    // made a message of N lines cost N² moves.
    lines.push(entry);
  }
  lines.reverse();
  const stoppedForCall = lines.some((e) => e.stopReason === "tool_use");
  const calls = lines.some((e) => e.toolUses.length > 0);
  return stoppedForCall && !calls ? lines : null;
}

function judgeTurn(
  turn: readonly Entry[],
  context: ClassifyContext,
): TurnVerdict {
  const uses = new Map<string, Located<ToolUse>>();
  const results = new Map<string, Located<ToolResult>>();
  let lastActivity = -1;
  let lastInterrupt = -1;
  // After a compaction the model sees only its summary: a call left open
  // before the turn's last compaction can no longer be answered.
  const sightFrom = turn.findLastIndex((entry) => entry.kind === "boundary");
  const calledInSight = new Set<string>();
  let lastHookStop: HookStopEntry | null = null;
  let lastHookStopAt = -1;
  turn.forEach((entry, index) => {
    // Claude Code's own entries ("API Error", ...) are not the model acting.
    if (entry.kind === "assistant" && !isOwnEntry(entry)) {
      for (const use of entry.toolUses) {
        if (!uses.has(use.id)) {
          uses.set(use.id, { value: use, entry, index });
        }
        if (index > sightFrom) calledInSight.add(use.id);
      }
      if (isModelActivity(entry)) lastActivity = index;
    } else if (entry.kind === "results") {
      for (const result of entry.results) {
        if (!results.has(result.toolUseId)) {
          results.set(result.toolUseId, { value: result, entry, index });
        }
      }
    } else if (entry.kind === "interrupt") {
      lastInterrupt = index;
    } else if (entry.kind === "hook_stop") {
      lastHookStop = entry;
      lastHookStopAt = index;
    }
  });

  const lost = lostCallMessage(turn);
  if (lost) {
    // The model acted (it meant to call a tool): results before are answered.
    lastActivity = Math.max(lastActivity, turn.indexOf(lost.at(-1) as Entry));
  }
  if (uses.size === 0 && results.size === 0 && !lost) {
    return healthy(
      lastActivity >= 0 ? "the turn has no tool calls" : "no model activity",
    );
  }
  if (lastInterrupt > lastActivity) return healthy("the user interrupted");
  if (lastHookStop !== null && lastHookStopAt > lastActivity) {
    return healthy(hookStopReason(lastHookStop));
  }
  // Only what the model did after a result and its call answers it: Claude
  // Code's write queue can put a result's line before its call's (2.1.47
  // wrote a subagent's result ahead of the call and of its prompt line).
  const trailing = [...results.values()].filter((r) =>
    Math.max(r.index, uses.get(r.value.toolUseId)?.index ?? -1) >=
      lastActivity
  );
  if (trailing.some((r) => r.value.userStopped)) {
    return healthy("the user declined or interrupted a tool call");
  }

  const lastEntry = turn[lastActivity];
  const lastMessage = lastEntry ? messageKey(lastEntry) : null;
  // A call the model has moved past: it wrote a later message, which the
  // API answers only once every call before has its result (the result was
  // sent, it just never reached the file). Only the calls of its last
  // message can be what the turn is stuck on.
  const superseded = (use: Located<ToolUse>): boolean =>
    use.index < lastActivity && messageKey(use.entry) !== lastMessage;
  const candidates: StallSignature[] = [];
  const running =
    [...uses.values()].filter((use) =>
      !results.has(use.value.id) && !superseded(use) &&
      calledInSight.has(use.value.id)
    ).length;
  if (context.callsRunning === true && running > 0) {
    // Its model answers nothing until every call of its message is back.
    return healthy(
      `the subagent is still running: ${running} call(s) without a result yet`,
    );
  }
  for (const [id, use] of uses) {
    if (results.has(id) || superseded(use) || !calledInSight.has(id)) continue;
    const hung = use.value.name.startsWith("mcp__");
    candidates.push({
      kind: hung ? "hung_mcp_call" : "pending_tool_use",
      toolName: use.value.name,
      toolUseId: id,
      ...inputOf(use.value),
      offset: use.entry.offset,
      line: use.entry.line,
      rule: hung
        ? "MCP tool_use has no tool_result in this turn"
        : "tool_use has no tool_result in this turn",
    });
  }
  const anyPending = candidates.length > 0;
  for (const result of trailing) {
    const toolName = uses.get(result.value.toolUseId)?.value.name ?? "";
    if (!isEmptyResult(result.value, toolName)) continue;
    candidates.push(resultSignature(
      "empty_tool_result",
      result,
      uses,
      "tool_result is empty and the model never answered it",
    ));
  }
  const last = trailing.at(-1);
  if (candidates.length === 0 && last && !lost) {
    if (answeredBeforeLastCall(turn, lastActivity)) {
      if (!context.subagent || parentGetsEarlierText(turn)) {
        return healthy(
          "the model had given its answer before its last call, whose " +
            "result needs none",
        );
      }
      // Its parent gets the final message's text only: the answer is lost.
      candidates.push(resultSignature(
        "subagent_no_report",
        last,
        uses,
        "the subagent's final message holds no text: its parent receives " +
          "no report",
      ));
    } else {
      candidates.push(resultSignature(
        "missing_followup",
        last,
        uses,
        "no assistant text or tool call after the last tool_result",
      ));
    }
  }

  const signatures: StallSignature[] = [];
  const covered: string[] = [];
  const linkedTask = taskLinker(context.backgroundTasks);
  for (const signature of candidates) {
    const task = linkedTask(linkQuery(signature, results));
    if (task) covered.push(task.id || task.type);
    else signatures.push(signature);
  }
  // Nothing ran for a lost call, so no background task can be its work.
  if (lost) signatures.push(lostCallSignature(lost));
  signatures.sort((a, b) =>
    a.offset - b.offset || a.kind.localeCompare(b.kind)
  );
  if (signatures.length > 0) {
    return { signatures, reason: (signatures[0] as StallSignature).rule };
  }
  if (covered.length > 0) {
    return healthy(`background work is still running (${covered.join(", ")})`);
  }
  return healthy(
    anyPending
      ? "pending calls belong to background work"
      : "the model answered",
  );
}

/**
 * Whether the text the model wrote in its last message, before that
 * message's calls, was already a complete answer (a report, or a question
 * handing the turn back) rather than the lead-in to more work: the call
 * after it was bookkeeping (updating a todo list, say), and a result nobody
 * answered is no stall. Judged by what the model said, never by the tool.
 */
function answeredBeforeLastCall(
  turn: readonly Entry[],
  lastActivity: number,
): boolean {
  const lastEntry = turn[lastActivity];
  if (lastEntry?.kind !== "assistant" || lastEntry.toolUses.length === 0) {
    return false;
  }
  const key = messageKey(lastEntry);
  // Newest line first, turned round once (an unshift per line is quadratic).
  const lines: (readonly string[])[] = [];
  for (let i = lastActivity; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant" || isOwnEntry(entry)) continue;
    if (messageKey(entry) !== key) break;
    lines.push(entry.texts);
  }
  const texts = lines.reverse().flat();
  return texts.length > 0 && judgeClosingText(texts.join("\n")).complete;
}

/**
 * Whether the parent of a subagent that ended silent after its last call
 * still gets the text the subagent wrote before that call: from the release
 * `subagent_last_text` names, Claude Code hands the parent the subagent's
 * last message with text when its final message has none; before, the
 * final message's text only (nothing). A file that names no release is
 * taken to be of the older kind.
 */
function parentGetsEarlierText(turn: readonly Entry[]): boolean {
  return supports(releaseOf(turn), "subagent_last_text") === true;
}

/** Why a turn a hook ended on purpose is healthy, naming the hook. */
function hookStopReason(stop: HookStopEntry): string {
  const hook = stop.hookName === "" ? "another hook" : stop.hookName;
  return `${hook} ended the turn on purpose (continue: false)`;
}

function resultSignature(
  kind: StallKind,
  result: Located<ToolResult>,
  uses: Map<string, Located<ToolUse>>,
  rule: string,
): StallSignature {
  const use = uses.get(result.value.toolUseId)?.value;
  return {
    kind,
    toolName: use?.name ?? "",
    toolUseId: result.value.toolUseId,
    ...inputOf(use),
    offset: result.entry.offset,
    line: result.entry.line,
    rule,
  };
}

function lostCallSignature(lines: readonly AssistantEntry[]): StallSignature {
  const last = lines.at(-1) as AssistantEntry;
  return {
    kind: "lost_tool_call",
    toolName: "",
    toolUseId: last.messageId ?? `offset:${last.offset}`,
    offset: last.offset,
    line: last.line,
    rule: "the model's last message stopped for tool_use, but no call of " +
      "it is on file",
  };
}

function inputOf(use: ToolUse | undefined): { toolInput?: ToolInputSummary } {
  return use?.input ? { toolInput: use.input } : {};
}

function linkQuery(
  signature: StallSignature,
  results: Map<string, Located<ToolResult>>,
): TaskLinkQuery {
  return {
    toolName: signature.toolName,
    toolUseId: signature.toolUseId,
    resultSnippet: results.get(signature.toolUseId)?.value.snippet ?? "",
  };
}

function healthy(reason: string): TurnVerdict {
  return { signatures: [], reason };
}

/** A signature as logged and printed by `scan --json`. */
export function signatureData(
  signature: StallSignature,
): Record<string, unknown> {
  return {
    kind: signature.kind,
    tool_name: signature.toolName,
    tool_use_id: signature.toolUseId,
    line: signature.line,
    ...(signature.announcement === undefined
      ? {}
      : { announcement: signature.announcement }),
  };
}
