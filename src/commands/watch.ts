/**
 * `stall-watch watch`: the PostToolUse `asyncRewake` watchdog; exit 2 wakes
 * an idle session with the recovery prompt on stderr.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { stdinPayload } from "../shared/command_options.ts";
import { runWatch } from "../watchdog/watchdog.ts";

/** Largest payload read: PostToolUse carries the call's input and response. */
const MAX_WATCH_PAYLOAD_BYTES = 32 * 1024 * 1024;

/** The `help watch` text. */
export const help =
  `stall-watch watch: wait for the model to answer a tool result, and wake it
if it does not (Claude Code PostToolUse and PostToolUseFailure hook, run with
"async": true and "asyncRewake": true).

Usage:
  stall-watch watch < post_tool_use_payload.json

Reads the payload (session_id, transcript_path, tool_use_id, ...) and watches
the transcript: the current turn once from its end, then only what is
appended, looking about ten times per idle window (at most once a second):

  - a -p or SDK run (CLAUDE_CODE_SESSION_ATTENDED=0), a subagent's call, or
    an interrupted call: exit 0 at once (nothing could be woken);
  - the model wrote text or a new call after the result, a newer tool call of
    the session started its own watcher, the user interrupted or typed a new
    prompt, or the deadline passed: exit 0, silently;
  - the turn ended (Claude Code's turn_duration line), or the transcript
    stayed quiet for the idle window with no follow-up, no model request
    open (Claude Code's api-request line, up to API_TIMEOUT_MS), no call
    still running and no background work launched, for example after
    Claude Code gave up on an API error: exit 2 with the recovery prompt on
    stderr, after the kill switch, cooldown and per-tool_use_id retry cap
    shared with the Stop hook (a held-back nudge is exit 0 with one line
    saying why).

Settings: STALL_WATCH_IDLE_SECONDS (watch.idle_seconds, default 30),
STALL_WATCH_WATCH_MAX_SECONDS (watch.max_seconds, default 600), and the
Stop hook's guardrail and event-log settings.

Register it for both events with a timeout above the deadline:
  stall-watch install --watch

Run for any event but PostToolUse and PostToolUseFailure it does nothing:
exit 0 at once, telling the user once per session in a systemMessage.

Exit codes: 0 nothing to do / held back, 1 bad payload or transcript,
2 wake Claude (recovery prompt on stderr), 3 internal error, 64 usage error.
`;

/** Runs the watchdog on the payload from stdin. */
export async function run(
  args: readonly string[],
  io: CliIO,
): Promise<number> {
  const payload = await stdinPayload(
    "watch",
    args,
    io,
    MAX_WATCH_PAYLOAD_BYTES,
    'Cannot watch: "watch" reads a PostToolUse payload on stdin (it runs as a hook, see "stall-watch help watch")',
  );
  const result = await runWatch(payload, io);
  if (result.stdout) io.writeStdout(result.stdout);
  if (result.stderr) io.writeStderr(result.stderr);
  return result.exitCode;
}
