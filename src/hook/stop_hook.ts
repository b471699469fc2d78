/**
 * The Stop hook as a process: payload from stdin, outcome to stdout and
 * stderr, and the exit code. `main.ts` runs {@link runStopHook} from its
 * bundle (`gen/stop_hook.js`, docs/development.md); `cli.ts` runs
 * {@link stopHookStep} from source.
 *
 * @module
 */

import type { CliIO } from "../shared/cli_io.ts";
import { ExitCode, runGuarded } from "../shared/errors.ts";
import { realIO } from "../shared/real_io.ts";
import { runHook } from "./_hook.ts";

/** Largest hook payload read from stdin. */
const MAX_PAYLOAD_BYTES = 32 * 1024 * 1024;

/**
 * Reads the payload from stdin, runs the hook and writes its outcome; returns
 * the exit code (0 allow, 2 block, 1 bad input).
 *
 * @throws {InputError} For an unusable payload or transcript.
 */
export async function stopHookStep(io: CliIO): Promise<number> {
  const payload = await io.readStdin(MAX_PAYLOAD_BYTES);
  const outcome = await runHook(payload, io);
  if (outcome.stdout) io.writeStdout(outcome.stdout);
  if (outcome.stderr) io.writeStderr(outcome.stderr);
  return outcome.exitCode;
}

/**
 * The hook run of a process started without arguments, on the real I/O and
 * under `runGuarded`; `null` when stdin is a terminal (a person ran it: the
 * CLI explains instead of waiting).
 */
export async function runStopHook(): Promise<number | null> {
  const io = realIO();
  if (io.stdinIsTerminal) return null;
  return await runGuarded(io, stopHookStep);
}

if (import.meta.main) {
  // Run from source (`deno task hook`, `deno task demo`); at a terminal,
  // `main.ts` explains what the hook is instead.
  const code = await runStopHook();
  if (code === null) {
    console.error(
      "stall-watch: the Stop hook reads its payload on stdin (try: deno task demo)",
    );
  }
  Deno.exit(code ?? ExitCode.usage);
}
