/**
 * One Codex Stop decision's reading, as a process of its own for
 * `codex_rollout_bench.ts`: the payload on stdin (`transcript_path`,
 * `turn_id`), the current turn read from the rollout's end and judged by
 * the shared classifier, the kinds found on stdout. Until the Codex door
 * exists (issue 40, phase 2) this is the part of a Codex stop that depends
 * on the input.
 *
 * @module
 */

import { scanCodexTurn } from "../../src/codex/_current_turn.ts";
import { classifyTurn } from "../../src/detection/classify.ts";

const payload = JSON.parse(
  new TextDecoder().decode(await new Response(Deno.stdin.readable).bytes()),
);
const scan = await scanCodexTurn(payload.transcript_path, {
  turnId: typeof payload.turn_id === "string" ? payload.turn_id : null,
});
const verdict = classifyTurn(scan?.entries ?? [], { backgroundTasks: [] });
console.log(
  JSON.stringify({
    kinds: verdict.signatures.map((s) => s.kind),
    reachedStart: scan?.reachedStart ?? null,
    budget: scan?.budget ?? null,
    bytesScanned: scan?.bytesScanned ?? 0,
  }),
);
