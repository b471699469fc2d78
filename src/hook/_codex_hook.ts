/**
 * The Stop hook's door for Codex CLI (`stall-watch codex-stop`, docs/codex.md):
 * Claude Code's judge on the rollout's current turn, a turn's nudges capped.
 *
 * @module
 */

import { CODEX_DIR } from "../confined/confine.ts";
import { reportLine } from "../recovery/report_line.ts";
import { codexReader } from "../codex/codex_reader.ts";
import { allowOutcome, type Outcome } from "../decision/outcome.ts";
import {
  type Door,
  type HandlerIO,
  type Run,
  runHandler,
} from "../decision/run_handler.ts";
import { type CodexStopInput, readCodexStopPayload } from "./_codex_input.ts";
import { judgeStop, type StopClient } from "./_hook.ts";

const CODEX: StopClient = {
  reader: codexReader,
  name: "codex",
  capsTurns: true,
};

const codexDoor: Door<CodexStopInput> = {
  handler: "codex",
  clientDir: CODEX_DIR,
  read: readCodexStopPayload,
  judge: judgeCodexStop,
};

/** Why a stop without a rollout is allowed (the event's reason). */
const NO_ROLLOUT_REASON = "Codex wrote no rollout for this session " +
  "(transcript_path is null: codex exec --ephemeral), and the payload " +
  "alone cannot tell a stall from a finished turn";

/**
 * Runs Codex's Stop hook on one payload. Requires `--allow-read`, `--allow-env`, write access to `.codex`.
 *
 * @throws {InputError} For payloads that are not Codex's Stop and for unreadable rollouts.
 */
export function runCodexHook(
  payloadText: string,
  io: HandlerIO,
): Promise<Outcome> {
  return runHandler(codexDoor, payloadText, io);
}

async function judgeCodexStop(
  input: CodexStopInput,
  run: Run,
): Promise<Outcome> {
  if (input.turn !== null) return await judgeStop(input.turn, run, CODEX);
  if (input.stopHookActive && run.settings.stopHookActive === "allow") {
    return allowOutcome(null);
  }
  run.log(run.event("healthy_stop", {
    transcript: null,
    turn_id: input.turnId,
    reason: NO_ROLLOUT_REASON,
  }));
  return allowOutcome(await run.configNotice(), [
    reportLine(`${NO_ROLLOUT_REASON}; stop allowed`),
  ]);
}
