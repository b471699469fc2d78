/**
 * Normalises transcript lines into the few entry kinds stall detection needs.
 *
 * Claude Code's transcript format is internal and changes between releases,
 * so every field is read defensively: a missing or wrongly typed field makes
 * an entry less informative, never an error. Metadata lines (snapshots,
 * titles, queue operations, most attachments and `system` lines) become
 * `null`.
 *
 * @module
 */

import { isPlainObject } from "../shared/plain_object.ts";
import { summarizeToolInput, type ToolInputSummary } from "./tool_input.ts";

/** A `tool_use` block: a call the model made. */
export interface ToolUse {
  id: string;
  name: string;
  /** What the call was about, when its input could be read. */
  input?: ToolInputSummary;
}

/** A `tool_result` block: the answer to one call. */
export interface ToolResult {
  toolUseId: string;
  /** Content missing, null, blank, `[]` or blocks without content. */
  empty: boolean;
  /** The user rejected or interrupted the call: the turn ended on purpose. */
  userStopped: boolean;
  /** The start of the result's text, to link it to background tasks. */
  snippet: string;
  /**
   * A launching tool's result (see {@link LAUNCH_RESULT_PREFIXES}): the
   * model ran a slash command or skill, whose lines follow.
   */
  launch?: true;
  /**
   * The tool named by Claude Code's rewrite of an empty result, the text
   * `(<tool> completed with no output)`. Whether that means empty depends
   * on the tool (see `isEmptyResult`), which only the tool_use names.
   */
  noOutputOf?: string;
  /**
   * Claude Code's record of the call (`toolUseResult`) has a shape it
   * records a background launch in: a shell's `backgroundTaskId`, an
   * agent's `async_launched`, an MCP result's content blocks (where its
   * "moved to the background" words go). A command's output is none of
   * these, so its words cannot pose as a launch (`background_launch.ts`).
   */
  launchRecord?: true;
}

interface EntryBase {
  /** Byte offset of the line in the file. */
  offset: number;
  /** 1-based line number, or 0 when the reader did not count lines. */
  line: number;
  /**
   * The `promptId` Claude Code stamps on user entries (2.1.x: present in
   * 2.1.90, absent in 2.1.47), if any: the session's current prompt when
   * the line was written, not always the turn the entry belongs to (see
   * `transcript/turn_rule.ts`).
   */
  promptId: string | null;
  /** Entry belongs to a subagent (`isSidechain: true`). */
  sidechain: boolean;
  /**
   * The Claude Code version that wrote the entry (`version`, on every entry
   * of current releases); absent when the line did not say or was sniffed.
   */
  version?: string;
  /**
   * When Claude Code made the entry (its `timestamp`, ms since the epoch);
   * absent when the line did not say or was sniffed. Lines reach the file
   * through a write queue, so file order and this order can differ.
   */
  time?: number;
}

/** A `compact_boundary`: nothing before it is visible to the model. */
export interface BoundaryEntry extends EntryBase {
  kind: "boundary";
}

/** A prompt a human typed: the start of a turn. */
export interface PromptEntry extends EntryBase {
  kind: "prompt";
}

/** One assistant line (one or more content blocks of one API message). */
export interface AssistantEntry extends EntryBase {
  kind: "assistant";
  messageId: string | null;
  /**
   * Non-blank text blocks, without Claude Code's placeholders
   * (`(no content)`, `No response requested.`). A `synthetic` entry keeps
   * its text (`API Error: ...`), which the model did not write either.
   */
  texts: string[];
  toolUses: ToolUse[];
  /**
   * The API message's `stop_reason` as this line records it; absent when
   * it is `null` (older releases write that on all but a message's last
   * line) or missing.
   */
  stopReason?: string;
  /**
   * Claude Code wrote this entry itself (model `<synthetic>`): an API
   * error, `No response requested.`, ... It is not the model acting.
   */
  synthetic?: true;
  /**
   * Claude Code wrote this entry itself after an API failure
   * (`isApiErrorMessage`, model `<synthetic>`, text `API Error: ...`): it is
   * not the model's answer to anything.
   */
  apiError?: true;
  /**
   * The API failure was a usage or session limit (Claude Code's own text,
   * such as `Claude AI usage limit reached|<epoch>` or `You've hit your
   * session limit · resets 10pm`): nothing works again until it resets.
   * Such an entry is an `apiError` too.
   */
  usageLimit?: true;
  /**
   * For an `apiError` entry: the kind of failure Claude Code recorded with
   * it (its `error` field, written since 2.0.x: `invalid_request`,
   * `rate_limit`, `server_error`, `authentication_failed`, ...), when it did.
   */
  apiErrorCategory?: string;
  /** For an `apiError` entry: the HTTP status it records (`apiErrorStatus`). */
  apiErrorStatus?: number;
}

/** A user line carrying tool results. */
export interface ResultsEntry extends EntryBase {
  kind: "results";
  results: ToolResult[];
}

/**
 * `[Request interrupted by user...]`: the user stopped the turn. Claude
 * Code writes it from the query it aborts, so it always ends the turn in
 * progress, whatever `promptId` it carries (from 2.1.1xx it also names the
 * API message it cut off, `interruptedMessageId`).
 */
export interface InterruptEntry extends EntryBase {
  kind: "interrupt";
}

/**
 * Claude Code's record that a hook ended the turn on purpose (an
 * `attachment` line of type `hook_stopped_continuation`, written from
 * 2.1.97 on when a PreToolUse or PostToolUse hook returns
 * `continue: false`): the turn is over by someone's policy, not stalled.
 */
export interface HookStopEntry extends EntryBase {
  kind: "hook_stop";
  /** Which hook ended it, e.g. `PostToolUse:Bash` (`""` when unnamed). */
  hookName: string;
}

/**
 * Where a note came from, when that matters to where turns start and end:
 *
 * - `command`: a slash command's line (`<command-name>`,
 *   `<command-message>`), typed by the user or launched by the model (see
 *   `NoteEntry.launchedBy`); it starts model work when its expanded prompt
 *   follows it (see `transcript/turn_rule.ts`).
 * - `meta`: text Claude Code sent on the user's behalf (`isMeta`): a
 *   command's expanded prompt, hook feedback, a wake-up.
 * - `caveat`: the note Claude Code writes ahead of a local command's or a
 *   shell command's records (`<local-command-caveat>`, `Caveat: The
 *   messages below were generated by the user while running local
 *   commands.`), `isMeta` too, but no command's expansion.
 * - `compaction`: the summary that replaces the history after a compaction.
 * - `resume`: the `Continue from where you left off.` Claude Code adds when
 *   it resumes a session whose process died in the middle of a turn.
 */
export type NoteSource =
  | "command"
  | "meta"
  | "caveat"
  | "compaction"
  | "resume";

/**
 * A user-typed line that is not a human prompt: stop-hook feedback, caveats,
 * command output, task notifications, compaction summaries, reminders.
 */
export interface NoteEntry extends EntryBase {
  kind: "note";
  /** Where it came from, when known and relevant (see {@link NoteSource}). */
  source?: NoteSource;
  /**
   * The model's tool call that wrote it (`sourceToolUseID`, stamped from
   * about 2.0.50 on what the `SlashCommand` and `Skill` tools write: the
   * command's line and its expansion).
   */
  launchedBy?: string;
}

/**
 * A record Claude Code writes once a turn is over: its Stop hooks ran
 * (`stop_hook_summary`; in 1.0.x a `system` line naming the `Stop` hook) or
 * the turn's duration (`turn_duration`). Evidence that the turn ended, as
 * opposed to a file captured while its turn was still running.
 */
export interface TurnEndEntry extends EntryBase {
  kind: "turn_end";
}

/** Every entry kind the turn finder and the classifier look at. */
export type Entry =
  | BoundaryEntry
  | PromptEntry
  | AssistantEntry
  | ResultsEntry
  | InterruptEntry
  | HookStopEntry
  | NoteEntry
  | TurnEndEntry;

/**
 * An entry's share of an entries budget (the tail scan's, a history turn's
 * cap): itself and each of its tool blocks.
 */
export function entryWeight(entry: Entry): number {
  if (entry.kind === "assistant") return 1 + entry.toolUses.length;
  if (entry.kind === "results") return 1 + entry.results.length;
  return 1;
}

/** Where a line sits in its file. */
export interface LinePosition {
  offset: number;
  line: number;
}

/** Text prefixes of user-typed entries that Claude Code, not a human, wrote. */
export const NON_PROMPT_PREFIXES: readonly string[] = [
  "Stop hook feedback:",
  "Caveat:",
  "<task-notification>",
  "<command-name>",
  "<command-message>",
  "<command-args>",
  "<local-command-stdout>",
  "<local-command-stderr>",
  "<local-command-caveat>",
  "<bash-input>",
  "<bash-stdout>",
  "<bash-stderr>",
  "<system-reminder>",
  "<user-memory-input>",
  "<session-start-hook>",
  "This session is being continued from a previous conversation",
  // 2.0.x's answer to a skill only the model may run, typed by the user.
  "This slash command can only be invoked by Claude",
];

/**
 * How a slash command the user typed opens its line: `<command-message>`
 * first for commands that expand to a prompt, `<command-name>` first for
 * local ones (the rule does not rely on the order; see `NoteSource`).
 */
export const COMMAND_PREFIXES: readonly string[] = [
  "<command-name>",
  "<command-message>",
];

/**
 * How the caveat Claude Code writes ahead of a local command's records
 * opens: the tag from 2.0.x, the bare sentence before.
 */
export const CAVEAT_PREFIXES: readonly string[] = [
  "<local-command-caveat>",
  "Caveat: The messages below were generated by the user while running local commands",
];

/** The opening of the summary Claude Code writes after a compaction. */
export const COMPACTION_SUMMARY_PREFIX =
  "This session is being continued from a previous conversation";

/**
 * The prompt Claude Code adds (`isMeta`) when it resumes a session whose
 * last turn was cut off (the process died).
 */
export const RESUME_PROMPT = "Continue from where you left off.";

/** Text of the marker Claude Code writes when the user interrupts a turn. */
export const INTERRUPT_PREFIX = "[Request interrupted by user";

/** Result texts meaning the user declined or interrupted the call. */
export const USER_STOP_PREFIXES: readonly string[] = [
  "The user doesn't want to proceed",
  "The user doesn't want to take this action",
  INTERRUPT_PREFIX,
];

/**
 * A shell command the user interrupted: every release's shell tool words
 * its error as `Exit code <n>`, then the interrupt marker on its own line,
 * then stderr and stdout (`Exit code 137\n[Request interrupted by user for
 * tool use]`).
 */
const SHELL_INTERRUPTED =
  /^Exit code [^\n]{1,24}\r?\n\[Request interrupted by user/;

/**
 * Whether the text of an error result (`is_error`) says the user stopped
 * the call: it opens with a decline or the interrupt marker, or is a shell
 * command's error whose second line is the marker. Only an error result
 * means it: a tool's ordinary output may say anything.
 */
export function isUserStopText(text: string): boolean {
  const opening = text.trimStart();
  return USER_STOP_PREFIXES.some((prefix) => opening.startsWith(prefix)) ||
    SHELL_INTERRUPTED.test(opening);
}

/**
 * The texts of a launching tool's result: the `SlashCommand` tool's
 * (1.0.x `Launching slash command: /x`, 2.0.0 to 2.0.72 `Launching
 * command: /x`) and the `Skill` tool's (`Launching skill: x`; 2.1.332
 * also `Launching skill from an MCP server: x`). The client writes the
 * command's line and its expansion right after it.
 */
export const LAUNCH_RESULT_PREFIXES: readonly string[] = [
  "Launching slash command: /",
  "Launching command: /",
  "Launching skill: ",
  "Launching skill from an MCP server: ",
];

/** Whether a result's text is a launching tool's (see {@link LAUNCH_RESULT_PREFIXES}). */
export function isLaunchText(text: string): boolean {
  return LAUNCH_RESULT_PREFIXES.some((prefix) => text.startsWith(prefix));
}

const SNIPPET_CHARS = 400;

/**
 * Normalises one parsed transcript object.
 *
 * @param raw A JSON object from one line.
 * @param at Where the line sits in the file.
 * @returns The entry, or `null` for metadata and unrecognised lines.
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

/** The attachment type of Claude Code's hook-stop record. */
export const HOOK_STOP_ATTACHMENT = "hook_stopped_continuation";

/** A `hook_stopped_continuation` attachment as an entry; else `null`. */
function hookStopEntry(
  attachment: unknown,
  base: EntryBase,
): HookStopEntry | null {
  if (
    !isPlainObject(attachment) || attachment.type !== HOOK_STOP_ATTACHMENT
  ) {
    return null;
  }
  return {
    kind: "hook_stop",
    ...base,
    hookName: typeof attachment.hookName === "string"
      ? attachment.hookName
      : "",
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
    // thinking, redacted_thinking and server-side tools say nothing about
    // whether the model answered its client-side tool calls.
  }
  const synthetic = message.model === SYNTHETIC_MODEL;
  const entry: AssistantEntry = {
    kind: "assistant",
    ...base,
    messageId: stringOrNull(message.id),
    // Claude Code's placeholders are not the model's words.
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
 * Claude Code's texts for a usage or session limit, on its own entries:
 * 1.0.x `Claude AI usage limit reached|<epoch>`, later `Session limit
 * reached ∙ resets 10pm`, `You've hit your session limit · resets 10pm`
 * (also weekly, Opus, Sonnet), `You're out of extra usage`.
 */
const USAGE_LIMIT_TEXTS: readonly RegExp[] = [
  /^Claude AI usage limit reached\|\d+\s*$/,
  /^[\w ]*limit reached\s*[∙·•|-]\s*resets\b/i,
  /^You['’]ve hit your [\w ]*limit\b/i,
  /^You['’]re out of extra usage\b/i,
];

/** Whether `text` is Claude Code's message for a usage or session limit. */
export function isUsageLimitText(text: string): boolean {
  const trimmed = text.trim();
  return USAGE_LIMIT_TEXTS.some((pattern) => pattern.test(trimmed));
}

/** The model name Claude Code puts on the assistant entries it writes itself. */
export const SYNTHETIC_MODEL = "<synthetic>";

/** Text Claude Code puts in the synthetic entry it writes after an API failure. */
export const API_ERROR_PREFIX = "API Error";

/**
 * Texts Claude Code writes in an assistant entry where the model said
 * nothing: `(no content)` for an empty or blank reply (2.0.x), and
 * `No response requested.` (a `<synthetic>` entry, also seen after tool
 * results).
 */
export const PLACEHOLDER_TEXTS: readonly string[] = [
  "(no content)",
  "No response requested.",
];

/**
 * Whether `text` is one of Claude Code's placeholders rather than words of
 * the model. Whitespace around it does not matter.
 */
export function isPlaceholderText(text: string): boolean {
  return PLACEHOLDER_TEXTS.includes(text.trim());
}

/**
 * Whether `entry` is the model acting: an assistant entry with text or a
 * tool call that Claude Code did not write itself (`synthetic`, or its
 * API-error entry).
 */
export function isModelActivity(entry: Entry): entry is AssistantEntry {
  return entry.kind === "assistant" && entry.synthetic !== true &&
    entry.apiError !== true &&
    (entry.texts.length > 0 || entry.toolUses.length > 0);
}

/**
 * The flag Claude Code sets on its synthetic API-error entries, or, for
 * versions without the flag, the synthetic model with an `API Error` text.
 */
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
  const results: ToolResult[] = [];
  const resultBlocks = blocks.filter((block) =>
    isPlainObject(block) && block.type === "tool_result"
  ) as Record<string, unknown>[];
  for (const block of resultBlocks) {
    const result = toolResult(block, raw.toolUseResult, resultBlocks.length);
    if (result) results.push(result);
  }
  if (results.length > 0) return { kind: "results", ...base, results };
  const text = typeof content === "string" ? content : blockText(blocks);
  const opening = text.trimStart();
  if (raw.isCompactSummary === true) {
    return { kind: "note", ...base, source: "compaction" };
  }
  const launchedBy = stringOrNull(raw.sourceToolUseID);
  const note = (source?: NoteSource): NoteEntry => ({
    kind: "note",
    ...base,
    ...(source ? { source } : {}),
    ...(launchedBy === null ? {} : { launchedBy }),
  });
  if (raw.isMeta === true) return note(metaSource(opening));
  if (opening.startsWith(INTERRUPT_PREFIX)) {
    return { kind: "interrupt", ...base };
  }
  const hasImage = blocks.some((b) => isPlainObject(b) && b.type === "image");
  if (opening === "" && !hasImage) return note();
  const source = noteSource(opening);
  if (source !== null) return note(source.source);
  return { kind: "prompt", ...base };
}

/** Where an `isMeta` note came from, by its opening. */
export function metaSource(opening: string): NoteSource {
  if (opening.startsWith(RESUME_PROMPT)) return "resume";
  return isCaveat(opening) ? "caveat" : "meta";
}

function isCaveat(opening: string): boolean {
  return CAVEAT_PREFIXES.some((prefix) => opening.startsWith(prefix));
}

/**
 * Whether a user-typed text is one Claude Code wrote rather than a human
 * prompt, and if so where it came from: `{}` for a note of no particular
 * source, `null` for a human prompt.
 */
export function noteSource(opening: string): { source?: NoteSource } | null {
  if (COMMAND_PREFIXES.some((prefix) => opening.startsWith(prefix))) {
    return { source: "command" };
  }
  if (opening.startsWith(COMPACTION_SUMMARY_PREFIX)) {
    return { source: "compaction" };
  }
  if (isCaveat(opening)) return { source: "caveat" };
  return NON_PROMPT_PREFIXES.some((prefix) => opening.startsWith(prefix))
    ? {}
    : null;
}

/**
 * A `system` line recording that a turn is over: its Stop hooks ran
 * (`stop_hook_summary`, or 1.0.x's line naming the `Stop` hook in bold),
 * or its duration (`turn_duration`).
 */
function isTurnEndRecord(raw: Record<string, unknown>): boolean {
  if (raw.subtype === "stop_hook_summary" || raw.subtype === "turn_duration") {
    return true;
  }
  return typeof raw.content === "string" && STOP_HOOK_RAN.test(raw.content);
}

/**
 * 1.0.x logs each hook run as a `system` line, the event in bold:
 * `\u001b[1mStop\u001b[22m [<command>] completed successfully`. Only
 * `Stop` ends the main turn (`SubagentStop` ends a subagent's).
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
  const noOutputOf = noOutputTool(text);
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

/** See `ToolResult.launchRecord`. */
function isLaunchRecord(record: unknown): boolean {
  if (Array.isArray(record)) return true;
  if (!isPlainObject(record)) return false;
  return isNonBlank(record.backgroundTaskId) ||
    record.status === "async_launched" || record.status === "remote_launched";
}

const NO_OUTPUT = /^\(([^()\s]+) completed with no output\)$/;

/**
 * The tool named by `(<tool> completed with no output)`, the text Claude
 * Code puts in place of a result that has no content, or `null`.
 */
export function noOutputTool(text: string): string | null {
  return NO_OUTPUT.exec(text.trim())?.[1] ?? null;
}

/**
 * Tools whose silence is an answer: a shell command that printed nothing
 * succeeded, so their `(<tool> completed with no output)` is content.
 */
const SILENT_OK_TOOLS: ReadonlySet<string> = new Set(["Bash", "PowerShell"]);

/**
 * Whether a result carries nothing, knowing the name of the call it
 * answers: empty content, or Claude Code's no-output text naming that very
 * tool, unless the tool is a shell (an empty stdout is an answer).
 *
 * @param result The normalised result.
 * @param toolName The name on the matching `tool_use`, `""` when unknown.
 */
export function isEmptyResult(result: ToolResult, toolName: string): boolean {
  if (result.empty) return true;
  return result.noOutputOf !== undefined && result.noOutputOf === toolName &&
    !SILENT_OK_TOOLS.has(toolName);
}

/**
 * Whether a tool result's content carries nothing.
 *
 * Null, blank strings, `[]` and blocks whose text is blank are empty. Images
 * and any other non-text block are content; an unknown shape counts as
 * content, so a new format cannot mass-flag healthy sessions.
 */
export function isEmptyContent(content: unknown): boolean {
  return isEmptyAt(content, 0);
}

/**
 * Real results nest blocks a level or two deep. Anything deeper is no known
 * shape, so it counts as content instead of recursing until the stack
 * overflows on a hostile line.
 */
const MAX_CONTENT_DEPTH = 32;

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
