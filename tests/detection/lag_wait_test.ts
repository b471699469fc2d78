/**
 * The lag wait for a turn with no reply on file: Stop fires only after the
 * model replied, so such a turn is a transcript that has not caught up.
 * Waited for on every release.
 */

import assert from "node:assert/strict";
import { type DetectInput, detectStalls } from "../../src/detection/detect.ts";
import { parseHookInput } from "../../src/hook/_hook_input.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";

function input(path: string): DetectInput {
  // A current payload: the release is past every lag gate of mayLag().
  return parseHookInput(
    JSON.stringify({
      session_id: "s",
      transcript_path: path,
      prompt_id: "prompt-1",
      background_tasks: [],
    }),
  );
}

/** The prompt alone, then the rest of the turn as `finish` writes it. */
function turn(finish: (t: TranscriptBuilder) => void) {
  const t = new TranscriptBuilder("s");
  t.prompt("Run the tests.");
  const promptOnly = t.toString();
  finish(t);
  return { promptOnly, whole: t.toString() };
}

/** A sleep that writes `text` to `path` on its `at`-th call. */
function landingAt(path: string, text: string, at: number) {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    sleep: async () => {
      if (++calls === at) await Deno.writeTextFile(path, text);
    },
  };
}

Deno.test("detectStalls() waits for a turn's reply to land, and blocks the silent stall it shows", async () => {
  const { promptOnly, whole } = turn((t) => {
    t.call("msg_1", "toolu_1", "Bash", { command: "npm test" });
    t.result("toolu_1", "48 passed");
  });
  await using transcript = await tempTranscript(promptOnly);
  const clock = landingAt(transcript.path, whole, 3);
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 300,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures.map((s) => [s.kind, s.line]), [
    ["missing_followup", 3],
  ]);
  assert.ok(detection.waitedMs > 0, "the wait is logged");
});

Deno.test("detectStalls() allows a reply that lands during the wait", async () => {
  const { promptOnly, whole } = turn((t) => t.text("msg_1", "All green."));
  await using transcript = await tempTranscript(promptOnly);
  const clock = landingAt(transcript.path, whole, 2);
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 300,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures, []);
  assert.equal(detection.reason, "the turn has no tool calls");
  assert.equal(clock.calls, 2, "it stops waiting once the reply is there");
});

Deno.test("detectStalls() waits no longer than lag_wait_ms for a reply that never lands, then allows", async () => {
  const { promptOnly } = turn(() => {});
  await using transcript = await tempTranscript(promptOnly);
  const clock = landingAt(transcript.path, promptOnly, 0);
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 300,
    lagPollMs: 20,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures, []);
  assert.equal(detection.reason, "no model activity");
  assert.equal(detection.waitedMs, 300);
  assert.equal(clock.calls, 15);
});

Deno.test("detectStalls() does not wait where the reply is on file", async () => {
  const { whole } = turn((t) => t.text("msg_1", "All green."));
  await using transcript = await tempTranscript(whole);
  const clock = landingAt(transcript.path, whole, 0);
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 300,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures, []);
  assert.equal(detection.waitedMs, 0);
  assert.equal(clock.calls, 0);
});
