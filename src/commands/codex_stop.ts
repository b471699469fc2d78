/**
 * `stall-watch codex-stop` from the CLI (options, help, a person at a
 * terminal); Codex's own stops run from the hook's bundle (`main.ts`).
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { UsageError } from "../shared/errors.ts";
import { parseOptions } from "../shared/command_options.ts";
import { codexStopHookStep } from "../hook/stop_hook.ts";

/** The `help codex-stop` text. */
export const help =
  `stall-watch codex-stop: the Stop hook for OpenAI's Codex CLI

Usage:
  stall-watch codex-stop < codex_stop_payload.json

Registered by "stall-watch install --codex" in .codex/hooks.json (or the
user's $CODEX_HOME/hooks.json). Codex pipes its Stop payload to it
(session_id, turn_id, transcript_path, stop_hook_active,
last_assistant_message); a payload without turn_id is not Codex's and is
refused (Claude Code runs "stall-watch" alone).

It judges the turn turn_id names in the session's rollout (transcript_path)
as the Claude Code hook judges a turn: a call with no result, an empty
result, a result the model never answered, an announced action it never
took (logged only, unless announced_no_call is "block"). On a stall it
blocks the stop with exit 2 and the report and recovery prompt on stderr,
which Codex hands the model as its next message in the same turn (or, with
output "json", exit 0 and {"decision":"block","reason":...}).

The guardrails are the hook's (kill switch, cooldown, max_retries per
call), plus a cap Codex lacks: at most max_retries nudges in one turn.
State, the event log and the config file are in the project's .codex/
(.codex/stall_watch/, .codex/stall-watch.jsonc). Without a rollout
(codex exec --ephemeral: transcript_path is null) nothing can be judged:
the stop is allowed with one line.

Exit codes: 0 allow, 1 bad payload or rollout, 2 block, 3 internal error,
64 usage error.
`;

/** Runs `codex-stop` on the payload from stdin. */
export async function run(
  args: readonly string[],
  io: CliIO,
): Promise<number> {
  parseOptions("codex-stop", args, {});
  if (io.stdinIsTerminal) {
    throw new UsageError(
      'Cannot judge a stop: "codex-stop" reads Codex\'s Stop payload on stdin (it runs as a hook, see "stall-watch help codex-stop")',
    );
  }
  return await codexStopHookStep(io);
}
