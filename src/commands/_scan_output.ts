/**
 * What `scan` prints: the current turn's verdict, or every turn's, as a
 * report for a person or as `--json`.
 *
 * @module
 */

import type { StallSignature } from "../detection/classify.ts";
import { signatureData } from "../detection/classify.ts";
import { lineLabel } from "../recovery/recovery.ts";
import {
  countsAsAnnounced,
  type HistoryVerdict,
  type TurnEnding,
} from "../detection/history_turns.ts";
import { formatCount } from "../shared/number_format.ts";
import type { Style } from "../shared/term_style.ts";
import { type Cell, renderTable } from "../shared/text_table.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";

/** What `scan` found in the current turn. */
export interface CurrentTurn {
  path: string;
  subagent: boolean;
  promptId: string | null;
  signatures: StallSignature[];
  reason: string;
  endedOnApiError: boolean;
  /** That API error is one no nudge can fix: the stop is allowed. */
  endedOnUnfixableError: boolean;
  /** The turn ended on an announcement with no call (`announced_no_call`). */
  announced: StallSignature | null;
}

/** What scan says about a turn that shows no sign it ended. */
const UNFINISHED_NOTE: Readonly<Record<TurnEnding, string>> = {
  ended: "",
  no_end: "unfinished: nothing on file shows the turn ended",
  process_died: "unfinished: its process died and was resumed",
  agent_running:
    "unfinished: its parent was still waiting for this subagent when the session ended",
};

/** What scan says about a turn that ended on Claude Code's API-error entry. */
const API_ERROR_NOTE = "the turn ended on an API error (Claude Code's " +
  'synthetic "API Error" entry, not an answer from the model)';

function currentTurnJson(turn: CurrentTurn): Record<string, unknown> {
  return {
    path: turn.path,
    subagent: turn.subagent,
    prompt_id: turn.promptId,
    verdict: turn.signatures.length > 0 ? "block" : "allow",
    reason: turn.reason,
    ended_on_api_error: turn.endedOnApiError,
    ended_on_unfixable_error: turn.endedOnUnfixableError,
    signatures: turn.signatures.map(signatureData),
    announced: announcedJson(turn.announced),
  };
}

function announcedJson(
  announced: { line: number; announcement?: string } | null | undefined,
): Record<string, unknown> | null {
  return announced
    ? { line: announced.line, announcement: announced.announcement }
    : null;
}

function allTurnsJson(
  path: string,
  subagent: boolean,
  turns: readonly HistoryVerdict[],
  onlyStalled = false,
): Record<string, unknown> {
  const shown = onlyStalled
    ? turns.filter((t) => t.outcome === "stalled")
    : turns;
  return {
    path,
    subagent,
    turns: shown.map((t) => ({
      start_line: t.startLine,
      verdict: turnVerdict(t),
      reason: t.verdict.reason,
      ended_on_api_error: t.verdict.endedOnApiError === true,
      ended_on_unfixable_error: t.verdict.endedOnUnfixableError === true,
      ending: t.ending,
      signatures: t.verdict.signatures.map(signatureData),
      announced: announcedJson(t.announced),
    })),
    stalled_turns: turns.filter((t) => t.outcome === "stalled").length,
    unfinished_turns: turns.filter((t) => t.outcome === "unfinished").length,
    announced_turns: turns.filter(countsAsAnnounced).length,
  };
}

/** A history turn's verdict in a word: `block` (stalled), `unfinished` (no sign it ended), else `allow`. */
function turnVerdict(turn: HistoryVerdict): "block" | "unfinished" | "allow" {
  return turn.outcome === "stalled"
    ? "block"
    : turn.outcome === "unfinished"
    ? "unfinished"
    : "allow";
}

function formatJson(value: unknown): string {
  return JSON.stringify(value, null, 2) + "\n";
}

function verdictCell(
  verdict: "block" | "unfinished" | "allow",
  style: Style,
): Cell {
  const paint = verdict === "block"
    ? style.red
    : verdict === "unfinished"
    ? style.yellow
    : style.green;
  return { text: verdict, paint };
}

/** Signature rows: line, kind, tool, id, rule. */
function signatureCells(s: StallSignature, style: Style, note = ""): Cell[] {
  return [
    String(s.line),
    { text: s.kind, paint: style.yellow },
    s.toolName || "(unknown tool)",
    s.toolUseId || "<unknown>",
    s.rule + note,
  ];
}

function renderCurrentTurn(turn: CurrentTurn, style: Style): string {
  const blocked = turn.signatures.length > 0;
  const lines = [
    `${escapeTerminal(turn.path)}: current turn${
      turn.promptId ? ` (prompt_id ${escapeTerminal(turn.promptId)})` : ""
    }${turn.subagent ? ", subagent transcript" : ""}\n`,
    `  verdict: ${
      blocked
        ? style.red(
          `block (${turn.signatures.length} stalled call${
            turn.signatures.length === 1 ? "" : "s"
          })`,
        )
        : style.green("allow")
    }\n`,
    `  why: ${escapeTerminal(turn.reason)}\n`,
  ];
  if (turn.endedOnApiError) lines.push(`  note: ${API_ERROR_NOTE}\n`);
  if (turn.announced) {
    lines.push(
      `  note: announced, then stopped (announced_no_call, line ${
        lineLabel(turn.announced)
      }; the hook logs it, and blocks only when configured): ${
        escapeTerminal(turn.announced.announcement ?? "")
      }\n`,
    );
  }
  if (blocked) {
    lines.push(
      "\n",
      renderTable(
        ["line", "kind", "tool", "tool_use_id", "rule"],
        turn.signatures.map((s) => signatureCells(s, style)),
        { indent: "  ", rightAligned: [0], paintHeader: style.dim },
      ),
    );
  }
  return lines.join("");
}

function renderAllTurns(
  path: string,
  turns: readonly HistoryVerdict[],
  style: Style,
  onlyStalled: boolean,
): string {
  const stalled = turns.filter((t) => t.outcome === "stalled").length;
  const unfinished = turns.filter((t) => t.outcome === "unfinished").length;
  const rows: Cell[][] = [];
  turns.forEach((turn, i) => {
    if (onlyStalled && turn.outcome !== "stalled") return;
    const { signatures, reason, endedOnApiError } = turn.verdict;
    const note = (endedOnApiError && !turn.verdict.endedOnUnfixableError
      ? "; the turn ended on an API error"
      : "") +
      (turn.outcome === "unfinished"
        ? `; ${UNFINISHED_NOTE[turn.ending]}`
        : "") +
      (turn.announced && countsAsAnnounced(turn)
        ? `; announced, then stopped (line ${turn.announced.line}): ${turn.announced.announcement}`
        : "");
    const head: Cell[] = [
      String(i + 1),
      String(turn.startLine),
      verdictCell(turnVerdict(turn), style),
    ];
    if (signatures.length === 0) {
      rows.push([...head, "", "", "", "", {
        text: reason + note,
        paint: style.dim,
      }]);
    }
    signatures.forEach((s, j) => {
      rows.push([
        ...(j === 0 ? head : ["", "", ""]),
        ...signatureCells(s, style, j === 0 ? note : ""),
      ]);
    });
  });
  const summary = `${escapeTerminal(path)}: ${formatCount(turns.length)} turn${
    turns.length === 1 ? "" : "s"
  }, ${
    stalled > 0
      ? style.red(`${formatCount(stalled)} stalled`)
      : style.green("none stalled")
  }${
    unfinished > 0
      ? `, ${style.yellow(`${formatCount(unfinished)} unfinished`)}`
      : ""
  }\n`;
  return summary + (rows.length > 0 ? "\n" : "") + renderTable(
    ["turn", "line", "verdict", "at", "kind", "tool", "tool_use_id", "why"],
    rows,
    { indent: "  ", rightAligned: [0, 1, 3], paintHeader: style.dim },
  );
}

/** The `scan` output for the current turn: `--json`'s object, or the report. */
export function currentTurnOutput(
  turn: CurrentTurn,
  json: boolean,
  style: Style,
): string {
  return json
    ? formatJson(currentTurnJson(turn))
    : renderCurrentTurn(turn, style);
}

/** The `scan --all-turns` output (`--stalled`: only the stalled turns listed). */
export function allTurnsOutput(
  path: string,
  subagent: boolean,
  turns: readonly HistoryVerdict[],
  options: { json: boolean; onlyStalled: boolean; style: Style },
): string {
  return options.json
    ? formatJson(allTurnsJson(path, subagent, turns, options.onlyStalled))
    : renderAllTurns(path, turns, options.style, options.onlyStalled);
}
