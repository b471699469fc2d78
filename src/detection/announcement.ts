/**
 * Announced, then stopped: the turn's last words announce an action of the
 * model's own ("Let me run the tests now:") and no call came (docs/detection.md).
 *
 * @module
 */

import {
  type BackgroundTask,
  launchedBackgroundTasks,
} from "./background_tasks.ts";
import type { StallSignature } from "./classify.ts";
import { provesFollowUp } from "./_lag_evidence.ts";
import { judgeClosingText, MAX_TEXT_CHARS } from "./_model_text.ts";
import {
  type AssistantEntry,
  type Entry,
  isModelActivity,
} from "../transcript/entry.ts";

/** An announcement the turn ended on. */
export interface AnnouncedStop {
  /** The announcing sentence, as the model wrote it (cut). */
  announcement: string;
  /** The final message's id, or `offset:<n>` without one (the retry key). */
  messageId: string;
  /** Of the final message's last line. */
  offset: number;
  /** 1-based, 0 when the reader did not count lines. */
  line: number;
}

interface AnnouncementContext {
  /** Running, from the Stop payload (none in history). */
  backgroundTasks: readonly BackgroundTask[];
}

/** The announcement the turn ended on, or null; `stalled`: another stall kind explains the stop. */
export function announcedStop(
  turn: readonly Entry[],
  context: AnnouncementContext,
  stalled: boolean,
): AnnouncedStop | null {
  const final = silentStop(turn, context, stalled);
  if (final === null) return null;
  const { announcement } = judgeClosingText(closingText(final));
  if (announcement === null || echoedInTurn(announcement, turn)) return null;
  const end = final.at(-1) as AssistantEntry;
  return {
    announcement,
    messageId: end.messageId ?? `offset:${end.offset}`,
    offset: end.offset,
    line: end.line,
  };
}

/** Stop reasons that were no choice to stop: the output limit, a lost call. */
const CUT_SHORT: ReadonlySet<string> = new Set(["max_tokens", "tool_use"]);

/** Entries after the model's last activity that explain the stop (an API error is an assistant entry). */
const STOP_EXPLAINED: ReadonlySet<string> = new Set(
  ["interrupt", "results", "hook_stop", "assistant", "prompt"],
);

/** The turn's final message when only its words can say it stopped short; null when its shape explains it. */
function silentStop(
  turn: readonly Entry[],
  context: AnnouncementContext,
  stalled: boolean,
): AssistantEntry[] | null {
  if (stalled || context.backgroundTasks.length > 0) return null;
  const last = turn.findLastIndex(isModelActivity);
  if (last < 0) return null;
  const final = finalMessage(turn, last);
  if (final.some((e) => e.toolUses.length > 0)) return null;
  if (final.some((e) => CUT_SHORT.has(e.stopReason ?? ""))) return null;
  const after = turn.slice(last + 1);
  if (after.some((e) => STOP_EXPLAINED.has(e.kind))) return null;
  const first = turn.indexOf(final[0] as Entry);
  const worked = turn.slice(0, first).some((e) =>
    isModelActivity(e) && e.toolUses.length > 0
  );
  if (!worked || launchedBackgroundTasks(turn).length > 0) return null;
  return final;
}

/** {@link announcedStop} where `last_assistant_message` has the last word (one not on file is at `endOffset`). */
export function announcedStopAtEnd(
  turn: readonly Entry[],
  context: AnnouncementContext,
  lastMessage: string | null,
  endOffset: number,
): AnnouncedStop | null {
  if (
    lastMessage !== null && judgeClosingText(lastMessage).announcement === null
  ) {
    return null;
  }
  const found = announcedStop(turn, context, false);
  if (found || lastMessage === null || !provesFollowUp(lastMessage, turn)) {
    return found;
  }
  const reply: AssistantEntry = {
    kind: "assistant",
    offset: endOffset,
    line: 0,
    promptId: null,
    sidechain: false,
    messageId: null,
    texts: [lastMessage],
    toolUses: [],
  };
  return announcedStop([...turn, reply], context, false);
}

function finalMessage(
  turn: readonly Entry[],
  last: number,
): AssistantEntry[] {
  const end = turn[last] as AssistantEntry;
  const lines: AssistantEntry[] = [end];
  if (end.messageId === null) return lines;
  for (let i = last - 1; i >= 0; i--) {
    const entry = turn[i] as Entry;
    if (entry.kind !== "assistant" || entry.messageId !== end.messageId) break;
    lines.push(entry);
  }
  return lines.reverse();
}

/** The end of a message's text, gathered backwards until the judge's window is full. */
function closingText(final: readonly AssistantEntry[]): string {
  const parts: string[] = [];
  let chars = 0;
  for (let i = final.length - 1; i >= 0 && chars <= MAX_TEXT_CHARS; i--) {
    const texts = (final[i] as AssistantEntry).texts;
    for (let j = texts.length - 1; j >= 0 && chars <= MAX_TEXT_CHARS; j--) {
      const text = texts[j] as string;
      parts.push(text);
      chars += text.length + 1;
    }
  }
  return parts.reverse().join("\n");
}

/** Shortest announcement looked for among the turn's results and inputs. */
const MIN_ECHO_CHARS = 12;

/** Most characters of an announcement looked for (results are cut too). */
const MAX_ECHO_CHARS = 80;

/** Whether the announcement stands in a result or call input: quoted from a tool. */
function echoedInTurn(announcement: string, turn: readonly Entry[]): boolean {
  const key = echoKey(announcement.replace(/…$/, ""));
  const needle = key.slice(0, MAX_ECHO_CHARS);
  if (needle.length < MIN_ECHO_CHARS) return false;
  for (const entry of turn) {
    if (entry.kind === "results") {
      for (const result of entry.results) {
        if (echoKey(result.snippet).includes(needle)) return true;
      }
    } else if (entry.kind === "assistant") {
      for (const use of entry.toolUses) {
        if (use.input && echoKey(use.input.value).includes(needle)) return true;
      }
    }
  }
  return false;
}

/** No markdown marks, quotes or spacing. */
function echoKey(text: string): string {
  return text.toLowerCase()
    .replace(/[*_`~>#"“”「」『』«»\u2019\u2018']/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The `announced_no_call` signature of a stop: its id is the turn's (the cap counts per turn). */
export function announcedSignature(
  stop: AnnouncedStop,
  turnKey: string,
): StallSignature {
  return {
    kind: "announced_no_call",
    toolName: "",
    toolUseId: `announced:${turnKey}`,
    offset: stop.offset,
    line: stop.line,
    rule: "the turn's last words announce an action of the model's own, " +
      "and it ended without a call",
    announcement: stop.announcement,
  };
}
