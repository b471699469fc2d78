/**
 * The recovery builder: turns stall signatures into the report and the
 * instruction Claude Code feeds back to the model when the hook blocks.
 *
 * @module
 */

import type { StallKind, StallSignature } from "../detection/classify.ts";
import { quoteForPrompt } from "./prompt_text.ts";

/** The texts of a recovery prompt; the config file may override each. */
export interface RecoveryText {
  header: string;
  footer: string;
  /** Per-kind templates with `{tool_name}`, `{tool_use_id}`, `{line_number}`. */
  nudges: Readonly<Record<StallKind, string>>;
  /** Template for a kind without its own nudge. */
  defaultNudge: string;
}

/** The seed's recovery texts. */
export const DEFAULT_RECOVERY_TEXT: RecoveryText = Object.freeze({
  header: "stall_watch recovery: a silent tool stall was detected before you " +
    "tried to stop. Do NOT end the turn yet — act on the guidance below.",
  footer: "Take the smallest concrete action that unblocks the task, then " +
    "produce the assistant follow-up the user was waiting for. Only stop " +
    "after that follow-up is on the transcript.",
  nudges: Object.freeze({
    pending_tool_use: "Retry the {tool_name} call (id {tool_use_id}) or fall " +
      "back to a safer alternative — it started at line {line_number} and " +
      "never produced a tool_result.",
    empty_tool_result: "The {tool_name} call at line {line_number} returned " +
      "an empty tool_result. Re-run it with verbose output (or inspect " +
      "stderr) and report what actually came back.",
    hung_mcp_call: "The MCP tool {tool_name} (id {tool_use_id}) hung at line " +
      "{line_number}. Restart the MCP server or fall back to a native tool " +
      "before responding.",
    missing_followup: "The tool_result for {tool_name} at line " +
      "{line_number} was never interpreted. Summarize what the tool returned " +
      "and continue the task the user asked for.",
  }),
  defaultNudge: "A silent stall was detected on {tool_name} at line " +
    "{line_number}. Investigate and produce a follow-up before stopping.",
});

/** Human labels used in report lines; part of the public contract. */
export const KIND_LABELS: Readonly<Record<StallKind, string>> = Object.freeze({
  pending_tool_use: "pending tool_use",
  empty_tool_result: "empty tool_result",
  hung_mcp_call: "hung mcp call",
  missing_followup: "missing follow-up",
});

/** Claude Code replaces longer hook strings with a preview. */
export const MAX_REASON_CHARS = 9_500;

/**
 * Fills one signature's nudge template.
 *
 * Empty tool names and ids degrade to readable placeholders.
 */
export function nudgeFor(
  signature: StallSignature,
  text: RecoveryText = DEFAULT_RECOVERY_TEXT,
): string {
  const template = text.nudges[signature.kind] ?? text.defaultNudge;
  return fillTemplate(template, signature);
}

/**
 * Replaces the `{tool_name}`, `{tool_use_id}` and `{line_number}` slots.
 * Other braces are left alone, so a template cannot break the hook. Names
 * and ids come from the transcript, so they go in through
 * {@link quoteForPrompt}: one line, quoted unless plain.
 */
export function fillTemplate(
  template: string,
  signature: StallSignature,
): string {
  const slots: Record<string, string> = {
    tool_name: signature.toolName
      ? quoteForPrompt(signature.toolName)
      : "the pending tool",
    tool_use_id: signature.toolUseId
      ? quoteForPrompt(signature.toolUseId)
      : "<unknown>",
    line_number: String(signature.line),
  };
  return template.replace(
    /\{(tool_name|tool_use_id|line_number)\}/g,
    (_, slot: string) => slots[slot] ?? "",
  );
}

/**
 * The recovery prompt: header, one `- [<kind>] <nudge>` bullet per
 * signature, footer. Empty when there are no signatures.
 */
export function buildRecoveryPrompt(
  signatures: readonly StallSignature[],
  text: RecoveryText = DEFAULT_RECOVERY_TEXT,
): string {
  if (signatures.length === 0) return "";
  const bullets = signatures.map((s) => `- [${s.kind}] ${nudgeFor(s, text)}`);
  return [text.header, ...bullets, text.footer].join("\n") + "\n";
}

/**
 * The report lines that precede the prompt: one count line per kind, then
 * a pointer to the first stall.
 *
 * @param signatures Sorted by line, as the classifier returns them.
 * @param transcriptPath The transcript the lines refer to.
 */
export function buildReportLines(
  signatures: readonly StallSignature[],
  transcriptPath: string,
): string[] {
  const counts = new Map<StallKind, number>();
  for (const s of signatures) counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
  const path = quoteForPrompt(transcriptPath);
  const lines = [...counts].map(([kind, count]) =>
    `stall_watch: ${count} ${KIND_LABELS[kind]} in ${path}`
  );
  const first = signatures[0];
  if (first) {
    const tool = first.toolName
      ? quoteForPrompt(first.toolName)
      : "unknown tool";
    const id = first.toolUseId ? quoteForPrompt(first.toolUseId) : "<unknown>";
    lines.push(
      `stall_watch: first stall = ${tool} ` +
        `(id=${id}) at line ${first.line} ` +
        `[${KIND_LABELS[first.kind]}]`,
    );
  }
  return lines;
}

/**
 * The whole block message: report lines and recovery prompt, kept under
 * Claude Code's size limit by summarising bullets that do not fit.
 */
export function buildBlockMessage(
  signatures: readonly StallSignature[],
  transcriptPath: string,
  text: RecoveryText = DEFAULT_RECOVERY_TEXT,
): string {
  const report = buildReportLines(signatures, transcriptPath).join("\n") + "\n";
  let shown = signatures.length;
  let message = report + buildRecoveryPrompt(signatures, text);
  while (message.length > MAX_REASON_CHARS && shown > 1) {
    shown = Math.max(1, Math.floor(shown / 2));
    const kept = signatures.slice(0, shown);
    const more = signatures.length - shown;
    const prompt = buildRecoveryPrompt(kept, text).replace(
      `\n${text.footer}`,
      `\n- (${more} more stalled calls not listed)\n${text.footer}`,
    );
    message = report + prompt;
  }
  return message.length > MAX_REASON_CHARS
    ? message.slice(0, MAX_REASON_CHARS - 1) + "…"
    : message;
}
