/**
 * The Stop hook contract: payload text in, exit code and output out.
 *
 * Allow = exit 0 with nothing on stdout. Block = exit 2 with the report and
 * recovery prompt on stderr, or, with `STALL_WATCH_OUTPUT=json`, exit 0 with
 * `{"decision":"block","reason":...}` on stdout.
 *
 * @module
 */

import { detectStalls } from "./detect.ts";
import { ExitCode } from "./errors.ts";
import { parseHookInput } from "./hook_input.ts";
import { buildBlockMessage } from "./recovery.ts";

/** What the process should do: its exit code and output. */
export interface HookOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The environment of one hook run; every side input is a parameter. */
export interface HookContext {
  env: Readonly<Record<string, string>>;
  /** Sleeps; lets tests skip real waiting. */
  sleep: (ms: number) => Promise<void>;
}

/** Default wait for a lagging transcript, when the payload cannot prove a follow-up. */
export const DEFAULT_LAG_WAIT_MS = 300;

/**
 * Runs the hook on one payload.
 *
 * Requires `--allow-read`.
 *
 * @throws {InputError} For unusable payloads and unreadable transcripts.
 */
export async function runHook(
  payloadText: string,
  context: HookContext,
): Promise<HookOutcome> {
  const input = parseHookInput(payloadText);
  if (input.stopHookActive) return allow();
  const detection = await detectStalls(input, {
    lagWaitMs: lagWaitMs(context.env),
    sleep: context.sleep,
  });
  if (detection.signatures.length === 0) return allow();
  const message = buildBlockMessage(
    detection.signatures,
    detection.path ?? input.transcriptPath,
  );
  if (context.env.STALL_WATCH_OUTPUT === "json") {
    const json = JSON.stringify({ decision: "block", reason: message });
    return { exitCode: ExitCode.ok, stdout: json + "\n", stderr: "" };
  }
  return { exitCode: ExitCode.block, stdout: "", stderr: message };
}

function allow(): HookOutcome {
  return { exitCode: ExitCode.ok, stdout: "", stderr: "" };
}

function lagWaitMs(env: Readonly<Record<string, string>>): number {
  const raw = env.STALL_WATCH_LAG_WAIT_MS;
  const value = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(value) && value >= 0 && value <= 5000
    ? value
    : DEFAULT_LAG_WAIT_MS;
}
