/**
 * `stall-watch codex-stop`: the Stop hook for OpenAI's Codex CLI, the
 * command `install --codex` registers in Codex's `hooks.json`.
 *
 * This release allows every stop: it reads the payload (bounded) and exits
 * 0 with no output, which Codex takes as "let it stop". The decision itself
 * (the rollout's current turn by `turn_id`, the shared classifier, the
 * guardrails with a per-turn cap, state under `.codex/`) is issue 40's
 * second phase; registering, trusting and `doctor` already work on this
 * entry point, so an install made now starts judging when that lands.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { ExitCode } from "../shared/errors.ts";
import { parseOptions } from "../shared/command_options.ts";

/** Largest payload read: Codex's Stop payload is a few hundred bytes. */
export const MAX_CODEX_STOP_PAYLOAD_BYTES = 1024 * 1024;

/** The `help codex-stop` text. */
export const help =
  `stall-watch codex-stop: the Stop hook for OpenAI's Codex CLI

Usage:
  stall-watch codex-stop < codex_stop_payload.json

Registered by "stall-watch install --codex" in .codex/hooks.json (or the
user's $CODEX_HOME/hooks.json). Codex pipes its Stop payload (session_id,
turn_id, transcript_path, stop_hook_active, last_assistant_message) to it.

In this release it allows every stop: it reads the payload and exits 0 with
no output. It detects nothing yet; the stall detection for Codex comes in a
later release, on this same command.

Exit codes: 0 allow, 64 usage error.
`;

/** Runs `codex-stop`. Reads stdin; writes nothing. */
export async function run(
  args: readonly string[],
  io: CliIO,
): Promise<number> {
  parseOptions("codex-stop", args, {});
  if (!io.stdinIsTerminal) {
    // Read, so Codex's write of the payload never meets a closed pipe.
    await io.readStdin(MAX_CODEX_STOP_PAYLOAD_BYTES).catch(() => "");
  }
  return ExitCode.ok;
}
