/**
 * A transcript's lines as the readers see them, for tests of the turn
 * rule: every turn as the audit reads it, and the current turn as the hook
 * reads it at a stop, each by line numbers.
 *
 * @module
 */

import {
  classifyTurn,
  type TurnVerdict,
} from "../../src/detection/classify.ts";
import { detectStalls } from "../../src/detection/detect.ts";
import {
  HISTORY_CONTEXT,
  readHistoryTurns,
  type TurnEnding,
  turnEnding,
} from "../../src/detection/history_turns.ts";
import { scanCurrentTurn } from "../../src/transcript/tail_scan.ts";
import { type Line, transcriptText } from "./real_lines.ts";
import { tempTranscript } from "./temp_project.ts";

/** One turn as the audit reads it. */
export interface HistoryView {
  startLine: number;
  /** 1-based lines of its entries. */
  lines: number[];
  verdict: TurnVerdict;
  ending: TurnEnding;
}

/** The current turn as the hook reads it at a stop. */
export interface HookView {
  /** 1-based lines of its entries. */
  lines: number[];
  /** `<kind> <line>` of each stall found. */
  signatures: string[];
  reason: string;
}

/** Which reading: a main transcript's, or a subagent's own file's. */
export interface ViewOptions {
  subagent?: boolean;
}

/** Every turn of `lines` as the audit reads them: start line and entry lines. */
export async function historyOf(
  lines: readonly Line[],
  options: ViewOptions = {},
): Promise<HistoryView[]> {
  const subagent = options.subagent ?? false;
  await using file = await tempTranscript(transcriptText(lines));
  const handle = await Deno.open(file.path);
  try {
    const turns: HistoryView[] = [];
    for await (const turn of readHistoryTurns(handle, { subagent })) {
      turns.push({
        startLine: turn.startLine,
        lines: turn.entries.map((e) => e.line),
        verdict: classifyTurn(turn.entries, HISTORY_CONTEXT),
        ending: turnEnding(turn, subagent),
      });
    }
    return turns;
  } finally {
    handle.close();
  }
}

/** The current turn as the hook reads it: entry offsets mapped to lines. */
export async function hookTurnOf(
  lines: readonly Line[],
  options: ViewOptions = {},
): Promise<HookView> {
  const subagent = options.subagent ?? false;
  const text = transcriptText(lines);
  await using file = await tempTranscript(text);
  const scan = await scanCurrentTurn(file.path, {
    promptId: null,
    includeSidechains: subagent,
  });
  const bytes = new TextEncoder().encode(text);
  const starts = [0];
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) {
    starts.push(i + 1);
  }
  const lineOf = (offset: number) => starts.indexOf(offset) + 1;
  const detection = await detectStalls({
    scanPath: file.path,
    promptId: null,
    isSubagent: subagent,
    lastAssistantMessage: null,
    backgroundTasks: [],
  }, { lagWaitMs: 0, sleep: () => Promise.resolve() });
  return {
    lines: scan?.entries.map((e) => lineOf(e.offset)) ?? [],
    signatures: detection.signatures.map((s) => `${s.kind} ${s.line}`),
    reason: detection.reason,
  };
}
