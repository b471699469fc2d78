/**
 * The Stop hook as a process: stdin payload, outcome on stdout/stderr, exit
 * code. `main.ts` runs it from the bundle (`gen/stop_hook.js`), whose lazy
 * `import()`s keep Codex's door out of a Claude Code stop; `cli.ts` from source.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { ExitCode, runGuarded } from "../shared/errors.ts";
import { realIO } from "../shared/real_io.ts";
import type { Outcome } from "../decision/outcome.ts";
import { runHook } from "./_hook.ts";

const MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;

/**
 * Claude Code's payload from stdin: runs the hook, writes the outcome; exit 0 allow, 2 block, 1 bad input.
 *
 * @throws {InputError} For an unusable payload or transcript.
 */
export function stopHookStep(io: CliIO): Promise<number> {
  return answerStop(io, runHook);
}

/**
 * `codex-stop` from stdin: runs Codex's door, writes the outcome; exit 0 allow, 2 block, 1 bad input.
 *
 * @throws {InputError} For an unusable payload or rollout.
 */
export async function codexStopHookStep(io: CliIO): Promise<number> {
  // Loaded lazily: only for a Codex stop (its door and rollout reader).
  const { runCodexHook } = await import("./_codex_hook.ts");
  return await answerStop(io, runCodexHook);
}

/** One stop: the payload from stdin through `door`, its outcome written. */
async function answerStop(
  io: CliIO,
  door: (payload: string, io: CliIO) => Promise<Outcome>,
): Promise<number> {
  const payload = await io.readStdin(MAX_PAYLOAD_BYTES);
  const outcome = await door(payload, io);
  if (outcome.stdout) io.writeStdout(outcome.stdout);
  if (outcome.stderr) io.writeStderr(outcome.stderr);
  return outcome.exitCode;
}

/** Runs `step` on the real I/O under `runGuarded`; `null` when stdin is a terminal (a person ran it). */
async function runOnRealIO(
  step: (io: CliIO) => Promise<number>,
): Promise<number | null> {
  const io = realIO();
  if (io.stdinIsTerminal) return null;
  return await runGuarded(io, step);
}

/** The hook run of a process started without arguments; `null` when stdin is a terminal. */
export function runStopHook(): Promise<number | null> {
  return runOnRealIO(stopHookStep);
}

/** {@link runStopHook} for `stall-watch codex-stop`: Codex's Stop. */
export function runCodexStopHook(): Promise<number | null> {
  return runOnRealIO(codexStopHookStep);
}

if (import.meta.main) {
  // Run from source (`deno task hook`, `deno task demo`).
  const code = await runStopHook();
  if (code === null) {
    console.error(
      "stall-watch: the Stop hook reads its payload on stdin (try: deno task demo)",
    );
  }
  Deno.exit(code ?? ExitCode.usage);
}
