/**
 * The entries detection judges, whatever client wrote them (Claude Code's via
 * `line_entries.ts`, Codex's via `src/codex/`); the texts Claude Code writes.
 *
 * @module
 */

import type { ToolInputSummary } from "./tool_input.ts";

/** A `tool_use` block: a call the model made. */
export interface ToolUse {
  id: string;
  name: string;
  input?: ToolInputSummary;
}

/** A `tool_result` block: the answer to one call. */
export interface ToolResult {
  toolUseId: string;
  /** Content missing, null, blank, `[]` or blocks without content. */
  empty: boolean;
  /** The user rejected or interrupted the call: the turn ended on purpose. */
  userStopped: boolean;
  /** Its text's start ({@link SNIPPET_CHARS}), to link it to background tasks. */
  snippet: string;
  /** A launching tool's result: a slash command's or skill's lines follow. */
  launch?: true;
  /** The tool named by `(<tool> completed with no output)` (see {@link isEmptyResult}). */
  noOutputOf?: string;
  /** `toolUseResult` has a background launch's shape: a command's output, which has none, cannot pose as one. */
  launchRecord?: true;
}

/** The most characters of a result's text kept as its `snippet`. */
export const SNIPPET_CHARS = 400;

/** What every entry carries. */
export interface EntryBase {
  /** Byte offset of the line in the file. */
  offset: number;
  /** 1-based line number, or 0 when the reader did not count lines. */
  line: number;
  /** User entries' `promptId` (2.1.x): the current prompt when written, not always its turn's. */
  promptId: string | null;
  /** `isSidechain: true`: a subagent's. */
  sidechain: boolean;
  /** The client release that wrote it (not sniffed). */
  version?: string;
  /** `timestamp` in ms: lines pass a write queue, so file order can differ. */
  time?: number;
}

/**
 * An entry its kind says all of: `boundary` (a `compact_boundary`: nothing
 * before it is visible to the model), `prompt` (a human typed it: a turn
 * starts), `interrupt` (`[Request interrupted by user...]`, written by the
 * query it aborts: it ends the turn in progress whatever its `promptId`),
 * `turn_end` (`stop_hook_summary`, 1.0.x's `Stop` hook line, `turn_duration`:
 * the turn ended, the file was not cut mid-turn).
 */
interface MarkEntry extends EntryBase {
  kind: "boundary" | "prompt" | "interrupt" | "turn_end";
}

/** One assistant line (one or more content blocks of one API message). */
export interface AssistantEntry extends EntryBase {
  kind: "assistant";
  messageId: string | null;
  /** Non-blank text blocks, placeholders dropped (a `synthetic` entry keeps its `API Error: ...`). */
  texts: string[];
  toolUses: ToolUse[];
  stopReason?: string;
  /** The client wrote it itself (model `<synthetic>`): not the model acting. */
  synthetic?: true;
  /** The client's entry for an API failure: no answer to anything. */
  apiError?: true;
  /** A usage or session limit: nothing works until it resets. */
  usageLimit?: true;
  /** The recorded `error` (`rate_limit`, ...). */
  apiErrorCategory?: string;
  apiErrorStatus?: number;
}

interface ResultsEntry extends EntryBase {
  kind: "results";
  results: ToolResult[];
}

/**
 * A hook ended the turn on purpose (`hook_stopped_continuation`, 2.1.97 on,
 * after a hook's `continue: false`): over by policy, not stalled.
 */
export interface HookStopEntry extends EntryBase {
  kind: "hook_stop";
  /** E.g. `PostToolUse:Bash` (`""` when unnamed). */
  hookName: string;
}

/**
 * Where a note came from: a slash command's line, text sent on the user's
 * behalf (`meta`: an expansion, hook feedback, a wake-up), a local command's
 * caveat, a compaction's summary, the resume prompt after a process died.
 */
type NoteSource = "command" | "meta" | "caveat" | "compaction" | "resume";

/** A user line that is no human prompt (hook feedback, command output, reminders...). */
export interface NoteEntry extends EntryBase {
  kind: "note";
  source?: NoteSource;
  /** The model's call that wrote it (`sourceToolUseID`, from about 2.0.50). */
  launchedBy?: string;
}

/** Every entry kind the turn finder and the classifier look at. */
export type Entry =
  | MarkEntry
  | AssistantEntry
  | ResultsEntry
  | HookStopEntry
  | NoteEntry;

/** An entry's share of an entries budget: itself and each tool block. */
export function entryWeight(entry: Entry): number {
  if (entry.kind === "assistant") return 1 + entry.toolUses.length;
  if (entry.kind === "results") return 1 + entry.results.length;
  return 1;
}

/** Where a line sits in its file. */
export type LinePosition = Pick<EntryBase, "offset" | "line">;

/** Whether `entry` is the model acting: text or a call the client did not write itself. */
export function isModelActivity(entry: Entry): entry is AssistantEntry {
  return entry.kind === "assistant" && entry.synthetic !== true &&
    entry.apiError !== true &&
    (entry.texts.length > 0 || entry.toolUses.length > 0);
}

/** Shells, whose `(<tool> completed with no output)` is an answer. */
const SILENT_OK_TOOLS: ReadonlySet<string> = new Set(["Bash", "PowerShell"]);

/**
 * Whether a result answering a call of `toolName` (`""`: unknown) carries
 * nothing: empty, or the no-output text naming that very tool, unless a shell.
 */
export function isEmptyResult(result: ToolResult, toolName: string): boolean {
  if (result.empty) return true;
  return result.noOutputOf !== undefined && result.noOutputOf === toolName &&
    !SILENT_OK_TOOLS.has(toolName);
}

// The texts Claude Code writes itself.

/** Prefixes of user texts Claude Code wrote (the last: 2.0.x's answer to a model-only skill, typed). */
const NON_PROMPT_PREFIXES: readonly string[] =
  "Stop hook feedback:|Caveat:|<task-notification>|<command-name>|<command-message>|<command-args>|<local-command-stdout>|<local-command-stderr>|<local-command-caveat>|<bash-input>|<bash-stdout>|<bash-stderr>|<system-reminder>|<user-memory-input>|<session-start-hook>|This session is being continued from a previous conversation|This slash command can only be invoked by Claude"
    .split("|");

/** A typed slash command's line opens with either tag. */
const COMMAND_PREFIXES: readonly string[] = [
  "<command-name>",
  "<command-message>",
];

/** How a local command's caveat opens: the tag from 2.0.x, the bare sentence before. */
const CAVEAT_PREFIXES: readonly string[] = [
  "<local-command-caveat>",
  "Caveat: The messages below were generated by the user while running local commands",
];

const COMPACTION_SUMMARY_PREFIX =
  "This session is being continued from a previous conversation";

/** The prompt (`isMeta`) Claude Code adds when it resumes a cut-off turn. */
export const RESUME_PROMPT = "Continue from where you left off.";

const INTERRUPT_PREFIX = "[Request interrupted by user";

/** Result texts meaning the user declined or interrupted the call. */
const USER_STOP_PREFIXES: readonly string[] = [
  "The user doesn't want to proceed",
  "The user doesn't want to take this action",
  INTERRUPT_PREFIX,
];

/** Every release's shell error for an interrupt: `Exit code <n>`, then the marker. */
const SHELL_INTERRUPTED =
  /^Exit code [^\n]{1,24}\r?\n\[Request interrupted by user/;

/** Whether an error result's text (output may say anything) says the user stopped the call. */
export function isUserStopText(text: string): boolean {
  const opening = text.trimStart();
  return USER_STOP_PREFIXES.some((prefix) => opening.startsWith(prefix)) ||
    SHELL_INTERRUPTED.test(opening);
}

/**
 * A launching tool's result: `SlashCommand`'s (1.0.x, 2.0.0 to 2.0.72) and
 * `Skill`'s (2.1.332 also from an MCP server); the command's lines follow.
 */
const LAUNCH_RESULT_PREFIXES: readonly string[] = [
  "Launching slash command: /",
  "Launching command: /",
  "Launching skill: ",
  "Launching skill from an MCP server: ",
];

/** Whether a result's text is a launching tool's. */
export function isLaunchText(text: string): boolean {
  return LAUNCH_RESULT_PREFIXES.some((prefix) => text.startsWith(prefix));
}

/** Text Claude Code puts in the synthetic entry it writes after an API failure. */
export const API_ERROR_PREFIX = "API Error";

/** Claude Code's texts where the model said nothing (2.0.x, and `<synthetic>`). */
const PLACEHOLDER_TEXTS: readonly string[] = [
  "(no content)",
  "No response requested.",
];

/** Whether a text is one of Claude Code's placeholders. */
export function isPlaceholderText(text: string): boolean {
  return PLACEHOLDER_TEXTS.includes(text.trim());
}

function metaSource(opening: string): NoteSource {
  if (opening.startsWith(RESUME_PROMPT)) return "resume";
  return isCaveat(opening) ? "caveat" : "meta";
}

function isCaveat(opening: string): boolean {
  return CAVEAT_PREFIXES.some((prefix) => opening.startsWith(prefix));
}

/** Where a user-typed text Claude Code wrote came from (`{}`: anywhere), `null` for a human's. */
function noteSource(opening: string): { source?: NoteSource } | null {
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

/** What a user line without results says of itself (parsed, or sniffed). */
interface UserLine {
  /** Its text, leading spaces trimmed. */
  opening: string;
  compactSummary: boolean;
  meta: boolean;
  launchedBy: string | null;
  /** No text and no image. */
  empty?: boolean;
}

/** A user line without results as an entry: a note, an interrupt, a prompt. */
export function userTextEntry(base: EntryBase, line: UserLine): Entry {
  const { opening, launchedBy } = line;
  const note = (source?: NoteSource): NoteEntry => ({
    kind: "note",
    ...base,
    ...(source ? { source } : {}),
    ...(launchedBy === null ? {} : { launchedBy }),
  });
  if (line.compactSummary) return note("compaction");
  if (line.meta) return note(metaSource(opening));
  if (opening.startsWith(INTERRUPT_PREFIX)) {
    return { kind: "interrupt", ...base };
  }
  if (line.empty) return note();
  const source = noteSource(opening);
  return source === null ? { kind: "prompt", ...base } : note(source.source);
}
