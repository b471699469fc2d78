/**
 * The one definition of a silent tool stall: a turn's entries in, signatures
 * out; pure. The kinds and their rules are listed in docs/detection.md.
 *
 * @module
 */

import { type BackgroundTask, taskLinker } from "./background_tasks.ts";
import {
  type AssistantEntry,
  type Entry,
  type HookStopEntry,
  isEmptyResult,
  isModelActivity,
  type ToolResult,
  type ToolUse,
} from "../transcript/entry.ts";
import { releaseOf, supports } from "../claude_client/release.ts";
import { judgeClosingText } from "./_model_text.ts";
import { unfixableApiError, USAGE_LIMIT } from "./_api_error.ts";
import type {
  StallKind,
  StallSignature,
  TurnVerdict,
} from "./_stall_signature.ts";

export {
  signatureData,
  STALL_KINDS,
  type StallKind,
  type StallSignature,
  type TurnVerdict,
} from "./_stall_signature.ts";

/** What the classifier knows besides the turn itself. */
export interface ClassifyContext {
  /** Running, from the Stop payload. */
  backgroundTasks: readonly BackgroundTask[];
  /** The turn is a subagent's: its parent receives only its final message. */
  subagent?: boolean;
  /** The turn's agent still runs (per the SubagentStop payload): an open call is no stall. */
  callsRunning?: boolean;
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

/** The model's lines of the message at `turn[at]`, in file order. */
function messageLines(turn: readonly Entry[], at: number): AssistantEntry[] {
  const key = messageKey(turn[at] as Entry);
  const lines: AssistantEntry[] = [];
  for (let i = at; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant" || isOwnEntry(entry)) continue;
    if (messageKey(entry) !== key) break;
    lines.push(entry);
  }
  return lines.reverse();
}

/**
 * Classifies one turn (its entries in file order) by the kinds and rules of
 * docs/detection.md; the client's own entries answer nothing.
 *
 * @example
 * ```ts
 * const verdict = classifyTurn(scan.entries, { backgroundTasks: [] });
 * for (const s of verdict.signatures) console.log(s.kind, s.toolName, s.line);
 * ```
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

/** The client's API-error entry when it comes after all the model did, else null. */
function apiErrorEnding(turn: readonly Entry[]): AssistantEntry | null {
  for (let i = turn.length - 1; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant") continue;
    if (entry.apiError) return entry;
    if (isModelActivity(entry)) return null;
  }
  return null;
}

function isOwnEntry(entry: AssistantEntry): boolean {
  return entry.synthetic === true || entry.apiError === true;
}

/** The lines of the model's last message when it stopped for `tool_use` with no call, and nothing followed. */
function lostCallMessage(turn: readonly Entry[]): AssistantEntry[] | null {
  let last = -1;
  for (let i = turn.length - 1; i >= 0 && last < 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind === "results" || entry.kind === "interrupt") return null;
    if (entry.kind === "assistant" && !isOwnEntry(entry)) last = i;
  }
  if (last < 0) return null;
  const lines = messageLines(turn, last);
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
  // A call left open before the last compaction can no longer be answered.
  const sightFrom = turn.findLastIndex((entry) => entry.kind === "boundary");
  const calledInSight = new Set<string>();
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
  if (lastHookStopAt > lastActivity) {
    const hook = (turn[lastHookStopAt] as HookStopEntry).hookName ||
      "another hook";
    return healthy(`${hook} ended the turn on purpose (continue: false)`);
  }
  // Only activity after a result and its call answers it (2.1.47 wrote results first).
  const trailing = [...results.values()].filter((r) =>
    Math.max(r.index, uses.get(r.value.toolUseId)?.index ?? -1) >=
      lastActivity
  );
  if (trailing.some((r) => r.value.userStopped)) {
    return healthy("the user declined or interrupted a tool call");
  }

  const lastEntry = turn[lastActivity];
  const lastMessage = lastEntry ? messageKey(lastEntry) : null;
  // A call the model moved past (a later message) is no stall.
  const superseded = (use: Located<ToolUse>): boolean =>
    use.index < lastActivity && messageKey(use.entry) !== lastMessage;
  const open = [...uses].filter(([id, use]) =>
    !results.has(id) && !superseded(use) && calledInSight.has(id)
  );
  if (context.callsRunning === true && open.length > 0) {
    return healthy(
      `the subagent is still running: ${open.length} call(s) without a result yet`,
    );
  }
  const candidates: StallSignature[] = [];
  for (const [id, use] of open) {
    const hung = use.value.name.startsWith("mcp__");
    candidates.push(signatureAt(
      hung ? "hung_mcp_call" : "pending_tool_use",
      use.value,
      id,
      use.entry,
      `${hung ? "MCP " : ""}tool_use has no tool_result in this turn`,
    ));
  }
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
      // From `subagent_last_text`, a parent gets the last message with text.
      if (
        !context.subagent ||
        supports(releaseOf(turn), "subagent_last_text") === true
      ) {
        return healthy(
          "the model had given its answer before its last call, whose " +
            "result needs none",
        );
      }
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
    const task = linkedTask({
      toolName: signature.toolName,
      toolUseId: signature.toolUseId,
      resultSnippet: results.get(signature.toolUseId)?.value.snippet ?? "",
    });
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
    open.length > 0
      ? "pending calls belong to background work"
      : "the model answered",
  );
}

/** Whether the model's last message was a complete answer before its calls (then their results need none). */
function answeredBeforeLastCall(
  turn: readonly Entry[],
  lastActivity: number,
): boolean {
  const lastEntry = turn[lastActivity];
  if (lastEntry?.kind !== "assistant" || lastEntry.toolUses.length === 0) {
    return false;
  }
  const texts = messageLines(turn, lastActivity).flatMap((e) => e.texts);
  return texts.length > 0 && judgeClosingText(texts.join("\n")).complete;
}

function resultSignature(
  kind: StallKind,
  result: Located<ToolResult>,
  uses: Map<string, Located<ToolUse>>,
  rule: string,
): StallSignature {
  const id = result.value.toolUseId;
  return signatureAt(kind, uses.get(id)?.value, id, result.entry, rule);
}

function signatureAt(
  kind: StallKind,
  use: ToolUse | undefined,
  toolUseId: string,
  at: Entry,
  rule: string,
): StallSignature {
  return {
    kind,
    toolName: use?.name ?? "",
    toolUseId,
    ...(use?.input ? { toolInput: use.input } : {}),
    offset: at.offset,
    line: at.line,
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

function healthy(reason: string): TurnVerdict {
  return { signatures: [], reason };
}
