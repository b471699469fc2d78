/**
 * The entries detection judges: the few kinds of transcript line a stall
 * depends on, whatever client wrote them (Claude Code's lines become entries
 * in `line_entries.ts`, a Codex rollout's in `src/codex/`). Also the texts
 * Claude Code writes itself, which both its line parser and its sniffer of
 * overlong lines recognise.
 *
 * @module
 */

import type { ToolInputSummary } from "./tool_input.ts";

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
  /** A launching tool's result: a slash command's or skill's lines follow. */
  launch?: true;
  /**
   * The tool named by Claude Code's `(<tool> completed with no output)`:
   * whether that is empty depends on the tool (see {@link isEmptyResult}).
   */
  noOutputOf?: string;
  /**
   * Claude Code's record of the call (`toolUseResult`) has a shape it
   * records a background launch in: a shell's `backgroundTaskId`, an
   * agent's `async_launched`, an MCP result's content blocks (where its
   * "moved to the background" words go). A command's output is none of
   * these, so its words cannot pose as a launch (`background_tasks.ts`).
   */
  launchRecord?: true;
}

/** What every entry carries. */
export interface EntryBase {
  /** Byte offset of the line in the file. */
  offset: number;
  /** 1-based line number, or 0 when the reader did not count lines. */
  line: number;
  /**
   * The `promptId` on user entries (2.1.x): the session's current prompt
   * when the line was written, not always its turn's (see `turn_rule.ts`).
   */
  promptId: string | null;
  /** Entry belongs to a subagent (`isSidechain: true`). */
  sidechain: boolean;
  /** The client release that wrote it, when the line says (not sniffed). */
  version?: string;
  /**
   * When it was made (`timestamp`, ms since the epoch), when the line says:
   * lines reach the file through a write queue, so file order can differ.
   */
  time?: number;
}

/** A `compact_boundary`: nothing before it is visible to the model. */
interface BoundaryEntry extends EntryBase {
  kind: "boundary";
}

/** A prompt a human typed: the start of a turn. */
interface PromptEntry extends EntryBase {
  kind: "prompt";
}

/** One assistant line (one or more content blocks of one API message). */
export interface AssistantEntry extends EntryBase {
  kind: "assistant";
  messageId: string | null;
  /**
   * Non-blank text blocks, without the client's placeholders; a `synthetic`
   * entry keeps its text (`API Error: ...`).
   */
  texts: string[];
  toolUses: ToolUse[];
  /** The message's `stop_reason` on this line, when not null or missing. */
  stopReason?: string;
  /** The client wrote it itself (model `<synthetic>`): not the model acting. */
  synthetic?: true;
  /** The client's entry for an API failure: no answer to anything. */
  apiError?: true;
  /** The failure was a usage or session limit: nothing works until it resets. */
  usageLimit?: true;
  /** The failure's kind as recorded (`error`: `rate_limit`, ...). */
  apiErrorCategory?: string;
  /** The failure's HTTP status (`apiErrorStatus`). */
  apiErrorStatus?: number;
}

/** A user line carrying tool results. */
interface ResultsEntry extends EntryBase {
  kind: "results";
  results: ToolResult[];
}

/**
 * `[Request interrupted by user...]`: written by the query it aborts, so it
 * ends the turn in progress whatever `promptId` it carries.
 */
interface InterruptEntry extends EntryBase {
  kind: "interrupt";
}

/**
 * A hook ended the turn on purpose (`hook_stopped_continuation`, 2.1.97 on,
 * after a hook's `continue: false`): over by policy, not stalled.
 */
export interface HookStopEntry extends EntryBase {
  kind: "hook_stop";
  /** Which hook ended it, e.g. `PostToolUse:Bash` (`""` when unnamed). */
  hookName: string;
}

/**
 * Where a note came from, where that matters to turns: a slash command's
 * line (`command`), text sent on the user's behalf (`meta`: an expansion,
 * hook feedback, a wake-up), a local command's `caveat`, a `compaction`'s
 * summary, the `resume` prompt after a process died mid-turn.
 */
export type NoteSource =
  | "command"
  | "meta"
  | "caveat"
  | "compaction"
  | "resume";

/**
 * A user line that is no human prompt: hook feedback, caveats, command
 * output, task notifications, compaction summaries, reminders.
 */
export interface NoteEntry extends EntryBase {
  kind: "note";
  source?: NoteSource;
  /** The model's call that wrote it (`sourceToolUseID`, from about 2.0.50). */
  launchedBy?: string;
}

/**
 * A record written once a turn is over (`stop_hook_summary`, 1.0.x's `Stop`
 * hook line, `turn_duration`): the turn ended, the file was not cut mid-turn.
 */
interface TurnEndEntry extends EntryBase {
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

/** An entry's share of an entries budget: itself and each tool block. */
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

/**
 * Whether `entry` is the model acting: an assistant entry with text or a
 * call that the client did not write itself.
 */
export function isModelActivity(entry: Entry): entry is AssistantEntry {
  return entry.kind === "assistant" && entry.synthetic !== true &&
    entry.apiError !== true &&
    (entry.texts.length > 0 || entry.toolUses.length > 0);
}

/** Shells, whose `(<tool> completed with no output)` is an answer. */
const SILENT_OK_TOOLS: ReadonlySet<string> = new Set(["Bash", "PowerShell"]);

/**
 * Whether a result carries nothing, knowing the name of the call it answers
 * (`""` when unknown): empty content, or the no-output text naming that very
 * tool, unless it is a shell.
 */
export function isEmptyResult(result: ToolResult, toolName: string): boolean {
  if (result.empty) return true;
  return result.noOutputOf !== undefined && result.noOutputOf === toolName &&
    !SILENT_OK_TOOLS.has(toolName);
}

// The texts Claude Code writes itself.

/**
 * Text prefixes of user-typed entries that Claude Code, not a human, wrote
 * (the last: 2.0.x's answer to a skill only the model may run, typed).
 */
const NON_PROMPT_PREFIXES: readonly string[] =
  "Stop hook feedback:|Caveat:|<task-notification>|<command-name>|<command-message>|<command-args>|<local-command-stdout>|<local-command-stderr>|<local-command-caveat>|<bash-input>|<bash-stdout>|<bash-stderr>|<system-reminder>|<user-memory-input>|<session-start-hook>|This session is being continued from a previous conversation|This slash command can only be invoked by Claude"
    .split("|");

/** How a typed slash command's line opens (in either order). */
const COMMAND_PREFIXES: readonly string[] = [
  "<command-name>",
  "<command-message>",
];

/** How a local command's caveat opens: the tag from 2.0.x, the bare sentence before. */
const CAVEAT_PREFIXES: readonly string[] = [
  "<local-command-caveat>",
  "Caveat: The messages below were generated by the user while running local commands",
];

/** The opening of the summary Claude Code writes after a compaction. */
const COMPACTION_SUMMARY_PREFIX =
  "This session is being continued from a previous conversation";

/** The prompt (`isMeta`) Claude Code adds when it resumes a cut-off turn. */
export const RESUME_PROMPT = "Continue from where you left off.";

/** Text of the marker Claude Code writes when the user interrupts a turn. */
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

/**
 * Whether an error result's text (only an error's: output may say anything)
 * says the user stopped the call.
 */
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

/** Whether `text` is one of Claude Code's placeholders, not the model's words. */
export function isPlaceholderText(text: string): boolean {
  return PLACEHOLDER_TEXTS.includes(text.trim());
}

/** Where an `isMeta` note came from, by its opening. */
function metaSource(opening: string): NoteSource {
  if (opening.startsWith(RESUME_PROMPT)) return "resume";
  return isCaveat(opening) ? "caveat" : "meta";
}

function isCaveat(opening: string): boolean {
  return CAVEAT_PREFIXES.some((prefix) => opening.startsWith(prefix));
}

/**
 * Where a user-typed text Claude Code wrote came from (`{}`: no particular
 * source), or `null` for a human prompt.
 */
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
export interface UserLine {
  /** Its text's opening (leading spaces trimmed). */
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
