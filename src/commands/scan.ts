/**
 * `stall-watch scan`: what the hook would decide for a transcript's current
 * turn (without the lag wait), or every turn's verdict with `--all-turns`
 * (the audit's reader). Its output: `_scan_output.ts`.
 *
 * @module
 */

import { resolvePath } from "../shared/paths.ts";
import type { CliIO } from "../shared/cli_io.ts";
import { parseCommandLine } from "../shared/command_options.ts";
import {
  type DetectInput,
  detectStalls,
  withLineNumbers,
} from "../detection/detect.ts";
import {
  announcedSignature,
  announcedStop,
} from "../detection/announcement.ts";
import {
  describe,
  ExitCode,
  InputError,
  UsageError,
} from "../shared/errors.ts";
import {
  type HistoryVerdict,
  readHistoryVerdicts,
} from "../detection/history_turns.ts";
import { openTranscript } from "../transcript/tail_scan.ts";
import { isRolloutFile } from "../codex/rollout_files.ts";
import { codexReader } from "../codex/codex_reader.ts";
import { readRolloutVerdicts } from "../audit/codex_history.ts";
import { styleFor } from "../shared/term_style.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import {
  allTurnsOutput,
  type CurrentTurn,
  currentTurnOutput,
} from "./_scan_output.ts";
import {
  isSubagentTranscript,
  sniffTranscript,
} from "../transcript/transcript_files.ts";

/** The `help scan` text. */
export const help: string =
  `stall-watch scan: show what the hook would decide for a transcript

Usage:
  stall-watch scan <transcript.jsonl> [--json] [--prompt-id ID] [--subagent]
  stall-watch scan <transcript.jsonl> --all-turns [--stalled] [--json]
                   [--subagent]

Judges the current turn (what follows the last human prompt, or the entries
of --prompt-id) exactly as the Stop hook would, without the lag wait, and
prints the verdict, why, and each stalled call: kind, tool, tool_use_id and
1-based line. With --all-turns, judges every turn of the file exactly as
the audit does, each with the line where it starts: "block" for a stalled
turn, "unfinished" for one that would be blocked but shows no sign it
ended (the file ends in it, its process died, or a subagent's parent was
still waiting for it: not a stall), else "allow"; --stalled lists only the
stalled ones (the counts still cover every turn).

A --prompt-id that no entry near the end carries is noted on stderr (the
hook meets it when the turn is not written yet). A file that is plainly
not a transcript (binary data, or a first line that is not a JSON object)
is refused with exit 1.

A file named agent-*.jsonl is read as a subagent transcript; --subagent
forces it (its sidechain entries then count).

An OpenAI Codex CLI rollout (a first line of type session_meta) is read as
Codex writes it: the current turn is the newest task_started (or the turn
whose turn_id --prompt-id names), and --all-turns cuts turns at each
task_started.

--json prints one object:
  {"path", "subagent", "prompt_id", "verdict": "allow"|"block", "reason",
   "ended_on_api_error", "ended_on_unfixable_error", "signatures": [{"kind",
   "tool_name", "tool_use_id", "line"}]}
With --all-turns: {"path", "subagent", "turns": [{"start_line", "verdict":
  "allow"|"block"|"unfinished", "reason", "ended_on_api_error",
  "ended_on_unfixable_error", "ending", "signatures"}], "stalled_turns",
  "unfinished_turns"} ("turns" only the stalled ones with --stalled).
"ended_on_api_error" is true when the turn ends on the entry Claude Code
writes after an API failure ("API Error: ..."): it is not the model's
answer, so a tool result before it is still unanswered (missing_followup).
"ended_on_unfixable_error" says that failure is one no nudge can fix (a
usage limit, "Prompt is too long", "Autocompact is thrashing", a bad
request, login or billing): an API-error ending, allowed. Neither is any
other entry Claude Code writes itself (model <synthetic>, "No response
requested.") nor its "(no content)" placeholder. A turn that ends on a
message stopped for tool_use with no call on file is a lost_tool_call; its
"tool_name" is "" and its "tool_use_id" the message's id. A subagent that
gave its answer before its last call and then ended without text, where its
parent receives the final message's text only (before Claude Code 2.1.72),
is a subagent_no_report.

Exit codes: 0 the scan ran (whatever the verdict: read it from the output),
1 the transcript is missing or unreadable, 64 usage error. Never 2.
`;

/** Runs `scan`. Requires `--allow-read`. */
export async function run(args: readonly string[], io: CliIO): Promise<number> {
  const { options, positionals } = parseCommandLine("scan", args, {
    "all-turns": "flag",
    stalled: "flag",
    json: "flag",
    subagent: "flag",
    "prompt-id": "value",
  }, 1);
  const path = positionals[0];
  if (path === undefined) {
    throw new UsageError(
      `"scan" needs a transcript path: run "stall-watch help scan"`,
    );
  }
  const promptId = typeof options["prompt-id"] === "string"
    ? options["prompt-id"]
    : null;
  if (options["all-turns"] && promptId !== null) {
    throw new UsageError(
      `"--prompt-id" picks the current turn; it cannot be combined with "--all-turns"`,
    );
  }
  if (options.stalled && !options["all-turns"]) {
    throw new UsageError(
      `"--stalled" filters "--all-turns": run "stall-watch scan ${
        escapeTerminal(path)
      } --all-turns --stalled"`,
    );
  }
  const absolute = resolvePath(io.cwd, path);
  const subagent = options.subagent === true || isSubagentTranscript(absolute);
  const json = options.json === true;
  const style = styleFor(io, "stdout");
  if (options["all-turns"]) {
    const turns = await allTurns(path, absolute, subagent);
    io.writeStdout(allTurnsOutput(path, subagent, turns, {
      json,
      onlyStalled: options.stalled === true,
      style,
    }));
    return ExitCode.ok;
  }
  const file = openTranscript(absolute);
  if (!file) throw missing(path);
  let rollout: boolean;
  try {
    refuseNonTranscript(path, file);
    rollout = isRolloutFile(file);
  } finally {
    file.close();
  }
  // A Codex rollout is read by its own reader (--prompt-id names a turn_id).
  const input: DetectInput = {
    scanPath: absolute,
    isSubagent: subagent && !rollout,
    promptId,
    lastAssistantMessage: null,
    payloadSendsLastMessage: false,
    backgroundTasks: [],
    backgroundTasksOverBudget: false,
  };
  const detection = await detectStalls(input, {
    lagWaitMs: 0,
    sleep: io.sleep,
    ...(rollout ? { reader: codexReader } : {}),
  });
  if (detection.scan === null) throw missing(path);
  if (
    promptId !== null && !rollout &&
    !detection.scan.entries.some((e) => e.promptId === promptId)
  ) {
    // The hook meets this when the turn's entries are not written yet.
    io.writeStderr(
      `stall-watch: note: no entry near the end of ${
        escapeTerminal(path)
      } has prompt_id "${
        escapeTerminal(promptId)
      }": judged, as the hook would, what follows the last human prompt\n`,
    );
  }
  const found = !subagent && detection.signatures.length === 0 &&
      detection.scan.budget === null
    ? announcedStop(detection.scan.entries, { backgroundTasks: [] }, false)
    : null;
  const [announced] = found === null ? [] : await withLineNumbers(absolute, [
    announcedSignature(found, "scan"),
  ]);
  const result: CurrentTurn = {
    path,
    subagent,
    promptId,
    signatures: detection.signatures,
    reason: detection.reason,
    endedOnApiError: detection.endedOnApiError,
    endedOnUnfixableError: detection.endedOnUnfixableError === true,
    announced: announced ?? null,
  };
  io.writeStdout(currentTurnOutput(result, json, style));
  return ExitCode.ok;
}

async function allTurns(
  path: string,
  absolute: string,
  subagent: boolean,
): Promise<HistoryVerdict[]> {
  const file = openTranscript(absolute);
  if (!file) throw missing(path);
  try {
    refuseNonTranscript(path, file);
    return await Array.fromAsync(
      isRolloutFile(file)
        ? readRolloutVerdicts(file)
        : readHistoryVerdicts(file, { subagent, path: absolute }),
    );
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(
      `Cannot read transcript "${path}": ${describe(error)}`,
    );
  } finally {
    file.close();
  }
}

/** Refuses a file plainly not a transcript: binary data would pass as a healthy turn. */
function refuseNonTranscript(path: string, file: Deno.FsFile): void {
  const reason = sniffTranscript(file);
  if (reason !== null) {
    throw new InputError(`Cannot scan "${path}": not a transcript (${reason})`);
  }
}

function missing(path: string): InputError {
  return new InputError(`Cannot read transcript "${path}": it does not exist`);
}
