/**
 * Stall signatures to the report and the instruction fed back to the model.
 *
 * @module
 */

import type { StallKind, StallSignature } from "../detection/classify.ts";
import { quoteForPrompt } from "./prompt_text.ts";
import type { ToolInputSummary } from "../transcript/tool_input.ts";
import {
  ANNOUNCED_HEADER,
  DEFAULT_TEXT,
  type RecoveryText,
} from "./nudge_texts.ts";
import { reportLine } from "./report_line.ts";

/** Human labels used in report lines; part of the public contract. */
export const KIND_LABELS: Readonly<Record<StallKind, string>> = Object.freeze({
  pending_tool_use: "pending tool_use",
  empty_tool_result: "empty tool_result",
  hung_mcp_call: "hung mcp call",
  missing_followup: "missing follow-up",
  subagent_no_report: "subagent without a report",
  lost_tool_call: "lost tool call",
  announced_no_call: "announced action without a call",
});

/** Claude Code replaces longer hook strings with a preview. */
export const MAX_REASON_CHARS = 9_500;

/** One signature's nudge template, filled (empty names and ids read as placeholders). */
export function nudgeFor(
  signature: StallSignature,
  text: RecoveryText = DEFAULT_TEXT,
): string {
  const template = text.nudges[signature.kind] ?? text.defaultNudge;
  return fillTemplate(template, signature);
}

/** Fills the known `{slot}`s (other braces are left alone), names quoted by {@link quoteForPrompt}. */
export function fillTemplate(
  template: string,
  signature: StallSignature,
): string {
  const slots: Record<string, string> = {
    tool_name: quotedOr(signature.toolName, "the pending tool"),
    tool_use_id: quotedOr(signature.toolUseId, "<unknown>"),
    tool_input: describeToolInput(signature.toolInput),
    line_number: lineLabel(signature),
    announcement: quoteForPrompt(signature.announcement ?? ""),
  };
  return template.replace(
    /\{(tool_name|tool_input|tool_use_id|line_number|announcement)\}/g,
    (_, slot: string) => slots[slot] ?? "",
  );
}

/** What `{tool_input}` says: `field=value`, `no input`, or `input not recorded` (line not read whole). */
export function describeToolInput(input: ToolInputSummary | undefined): string {
  if (!input) return "input not recorded";
  if (input.field === "") return "no input";
  return `${input.field}=${quoteForPrompt(input.value)}`;
}

/** `name` quoted for the prompt, or `fallback` when it is empty. */
function quotedOr(name: string, fallback: string): string {
  return name ? quoteForPrompt(name) : fallback;
}

/** Where the prompt is read: a blocked stop, or a session woken while idle. */
export type PromptWording = "stop" | "idle";

/** Options of {@link buildRecoveryPrompt} and {@link buildBlockMessage}. */
interface PromptOptions {
  /** Default `"stop"`; the watchdog uses `"idle"` (its own header). */
  wording?: PromptWording;
}

/** A signature's line, or its byte offset beyond the line-number pass's budget. */
export function lineLabel(signature: StallSignature): string {
  return signature.line > 0
    ? String(signature.line)
    : `? (byte offset ${signature.offset})`;
}

/** The recovery prompt: header, a `- [<kind>] <nudge>` bullet per signature, footer; `""` for none. */
export function buildRecoveryPrompt(
  signatures: readonly StallSignature[],
  text: RecoveryText = DEFAULT_TEXT,
  options: PromptOptions = {},
): string {
  if (signatures.length === 0) return "";
  const bullets = signatures.map((s) => `- [${s.kind}] ${nudgeFor(s, text)}`);
  // An announcement with no call is no tool trouble: its own words.
  if (signatures.every((s) => s.kind === "announced_no_call")) {
    return [ANNOUNCED_HEADER, ...bullets].join("\n") + "\n";
  }
  const header = options.wording === "idle" ? text.idleHeader : text.header;
  return [header, ...bullets, text.footer].join("\n") + "\n";
}

/** The report lines: a count per kind, then the first stall (`signatures` sorted by line). */
export function buildReportLines(
  signatures: readonly StallSignature[],
  transcriptPath: string,
): string[] {
  const counts = new Map<StallKind, number>();
  for (const s of signatures) counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
  const path = quoteForPrompt(transcriptPath);
  const lines = [...counts].map(([kind, count]) =>
    reportLine(`${count} ${KIND_LABELS[kind]} in ${path}`)
  );
  const first = signatures[0];
  if (first) {
    const tool = quotedOr(first.toolName, "unknown tool");
    const id = quotedOr(first.toolUseId, "<unknown>");
    lines.push(
      reportLine(
        `first stall = ${tool} (id=${id}) at line ${lineLabel(first)} ` +
          `[${KIND_LABELS[first.kind]}]`,
      ),
    );
  }
  return lines;
}

/** The block message for stderr: report lines and prompt, fitted to Claude Code's size limit. */
export function buildBlockMessage(
  signatures: readonly StallSignature[],
  transcriptPath: string,
  text: RecoveryText = DEFAULT_TEXT,
  options: PromptOptions = {},
): string {
  const report = buildReportLines(signatures, transcriptPath).join("\n") + "\n";
  return fitPrompt(report, signatures, text, options);
}

/** The recovery prompt alone, fitted to the size limit (the JSON output modes). */
export function buildFittedPrompt(
  signatures: readonly StallSignature[],
  text: RecoveryText = DEFAULT_TEXT,
  options: PromptOptions = {},
): string {
  return fitPrompt("", signatures, text, options);
}

/** `before` and the prompt, bullets summarised to fit; a cut never takes the footer (when to stop). */
function fitPrompt(
  before: string,
  signatures: readonly StallSignature[],
  text: RecoveryText,
  options: PromptOptions,
): string {
  let shown = signatures.length;
  let message = before + buildRecoveryPrompt(signatures, text, options);
  while (message.length > MAX_REASON_CHARS && shown > 1) {
    shown = Math.max(1, Math.floor(shown / 2));
    const kept = signatures.slice(0, shown);
    const more = signatures.length - shown;
    const prompt = buildRecoveryPrompt(kept, text, options).replace(
      `\n${text.footer}`,
      `\n- (${more} more stalled calls not listed)\n${text.footer}`,
    );
    message = before + prompt;
  }
  if (message.length <= MAX_REASON_CHARS) return message;
  // Still too long with one bullet (long config templates): cut before the footer.
  const footer = `\n${text.footer}\n`;
  const room = MAX_REASON_CHARS - footer.length - 1;
  return message.endsWith(footer) && room > 0
    ? message.slice(0, room) + "…" + footer
    : message.slice(0, MAX_REASON_CHARS - 1) + "…";
}
