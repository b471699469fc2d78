/**
 * `stall-watch statusline`: names a call hung in flight, which fires no hook
 * (docs/watchdog.md); a status line with `refreshInterval` re-runs (2.1.97+).
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { stdinPayload } from "../shared/command_options.ts";
import { escapeTerminal } from "../shared/terminal_text.ts";
import { clipMiddle } from "../shared/errors.ts";
import { loadSettings } from "../config/load_settings.ts";
import { scanCurrentTurn } from "../transcript/tail_scan.ts";
import {
  type CallInFlight,
  callsInFlight,
} from "../detection/calls_in_flight.ts";
import {
  parsePayloadObject,
  requiredPath,
  stringField,
} from "../claude_client/hook_payload.ts";

/** Longest tool name shown, escapes included, both ends kept (item 32). */
const MAX_NAME_CHARS = 80;

/** Longest status line, like every other field stall-watch puts on screen. */
export const MAX_STATUS_LINE_CHARS = 200;

/** Largest status line payload read (Claude Code's is a few KiB). */
const MAX_STATUS_PAYLOAD_BYTES = 1024 * 1024;

/** The `help statusline` text. */
export const help =
  `stall-watch statusline: name a tool call that has run for minutes with no
result (a Claude Code status line)

Usage:
  stall-watch statusline < status_line_payload.json

Reads the status line payload Claude Code writes to stdin (transcript_path,
prompt_id, ...), finds the calls of the model's last message in the current
turn that have no result yet, and prints one line when the oldest has run
for STALL_WATCH_STATUSLINE_AFTER_SECONDS (statusline.after_seconds, default
300) or longer:

  stall-watch: Bash (command=npm test) has had no result for 12 min

and nothing otherwise. A call hung in flight fires no hook at all, so this
is how you learn of one while it runs. Register it with a refresh interval,
so Claude Code runs it while a call runs (Claude Code 2.1.97 or later):

  stall-watch install --statusline

or by hand in a settings file (install writes the same):
  "statusLine": {"type": "command", "command": "/abs/path/stall-watch statusline", "refreshInterval": 30}

It reads the transcript only and writes nothing.

Exit codes: 0 done (a line or nothing printed), 1 bad payload or transcript,
64 usage error.
`;

/** Runs `statusline` on the payload from stdin. Requires `--allow-read`, `--allow-env`. */
export async function run(
  args: readonly string[],
  io: CliIO,
): Promise<number> {
  const payload = parsePayloadObject(
    await stdinPayload(
      "statusline",
      args,
      io,
      MAX_STATUS_PAYLOAD_BYTES,
      'Cannot show a status line: "statusline" reads Claude Code\'s status line payload on stdin (see "stall-watch help statusline")',
    ),
  );
  const transcript = requiredPath(payload, "transcript_path");
  const { settings } = await loadSettings(io.env, io.cwd);
  const scan = await scanCurrentTurn(transcript, {
    promptId: stringField(payload, "prompt_id"),
    includeSidechains: false,
  });
  const line = scan === null ? null : statusLineText(
    callsInFlight(scan.entries),
    io.now(),
    settings.statusLineAfterSeconds,
  );
  if (line !== null) io.writeStdout(`${line}\n`);
  return 0;
}

/** The status line at `now`: the oldest call in flight `afterSeconds` or longer, its input, how long, how many more; or `null`. */
export function statusLineText(
  calls: readonly CallInFlight[],
  now: number,
  afterSeconds: number,
): string | null {
  const late = calls.filter((c) => now - c.startedAt >= afterSeconds * 1000);
  const [oldest] = late;
  if (oldest === undefined) return null;
  const more = late.length > 1 ? ` (and ${late.length - 1} more)` : "";
  const head = `stall-watch: ${
    clipMiddle(escapeTerminal(oldest.toolName || "a tool"), MAX_NAME_CHARS)
  }`;
  const tail = ` has had no result for ${
    duration(now - oldest.startedAt)
  }${more}`;
  // The input gets the room left, its start kept (how a command begins says most).
  const room = MAX_STATUS_LINE_CHARS - head.length - tail.length - 3;
  const input = oldest.toolInput && oldest.toolInput.field !== ""
    ? ` (${
      startOf(
        escapeTerminal(`${oldest.toolInput.field}=${oldest.toolInput.value}`),
        room,
      )
    })`
    : "";
  return clipMiddle(`${head}${input}${tail}`, MAX_STATUS_LINE_CHARS);
}

/** `text`, or its first `max - 1` characters and `…`, never half a surrogate pair. */
function startOf(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}…`;
}

/** `45 s`, `12 min`, `2 h 5 min`. */
function duration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
