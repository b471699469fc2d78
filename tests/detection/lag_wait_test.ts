/**
 * The lag wait for a turn with no reply on file: Stop fires only after the
 * model replied, so such a turn is a transcript that has not caught up.
 * Waited for on every release.
 */

import assert from "node:assert/strict";
import { type DetectInput, detectStalls } from "../../src/detection/detect.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";

/**
 * A current payload: the release is past every lag gate of mayLag(). It
 * carries `last_assistant_message` when the turn's final reply has text.
 */
function input(path: string, finalText?: string): DetectInput {
  return readStopPayload(
    JSON.stringify({
      session_id: "s",
      transcript_path: path,
      prompt_id: "prompt-1",
      background_tasks: [],
      ...(finalText === undefined ? {} : { last_assistant_message: finalText }),
    }),
  ).input();
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
  assert.equal(detection.waitedFor, "no_reply", "and what it waited for");
});

Deno.test("detectStalls() allows a reply that lands during the wait", async () => {
  const { promptOnly, whole } = turn((t) => t.text("msg_1", "All green."));
  await using transcript = await tempTranscript(promptOnly);
  const clock = landingAt(transcript.path, whole, 2);
  const detection = await detectStalls(input(transcript.path, "All green."), {
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
  const detection = await detectStalls(input(transcript.path, "All green."), {
    lagWaitMs: 300,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures, []);
  assert.equal(detection.waitedMs, 0);
  assert.equal(detection.waitedFor, undefined);
  assert.equal(clock.calls, 0);
});

Deno.test("detectStalls() waits for a transcript that does not exist yet, and judges it once it lands", async () => {
  const { whole } = turn((t) => {
    t.call("msg_1", "toolu_1", "mcp__stub__empty");
    t.result("toolu_1", []);
  });
  await using folder = await tempTranscript("");
  const path = `${folder.dir}/not-yet.jsonl`;
  const clock = landingAt(path, whole, 4);
  const detection = await detectStalls(input(path), {
    lagWaitMs: 2000,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures.map((s) => [s.kind, s.line]), [
    ["empty_tool_result", 3],
  ]);
  assert.equal(detection.exhausted, null);
  assert.equal(clock.calls, 4, "it stops waiting once the turn is judged");
});

Deno.test("detectStalls() allows a transcript that never appears within lag_wait_ms, and says the wait ran out", async () => {
  await using folder = await tempTranscript("");
  const path = `${folder.dir}/never.jsonl`;
  const detection = await detectStalls(input(path), {
    lagWaitMs: 300,
    lagPollMs: 20,
    sleep: () => Promise.resolve(),
  });
  assert.deepEqual(detection.signatures, []);
  assert.deepEqual(detection.exhausted, { name: "lag_wait", limit: 300 });
  assert.equal(detection.waitedMs, 300);
});

Deno.test("detectStalls() waits for a call's result to land before naming the stall (an empty result, not a hung call)", async () => {
  const t = new TranscriptBuilder("s");
  t.prompt("Use the tool.");
  t.call("msg_1", "toolu_1", "mcp__stub__empty");
  const callOnly = t.toString();
  t.result("toolu_1", []);
  await using transcript = await tempTranscript(callOnly);
  const clock = landingAt(transcript.path, t.toString(), 2);
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 2000,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures.map((s) => [s.kind, s.line]), [
    ["empty_tool_result", 3],
  ]);
  assert.equal(clock.calls, 2);
});

Deno.test("detectStalls() blocks a call whose result never lands, once lag_wait_ms is spent", async () => {
  const t = new TranscriptBuilder("s");
  t.prompt("Use the tool.");
  t.call("msg_1", "toolu_1", "mcp__stub__slow");
  await using transcript = await tempTranscript(t.toString());
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 300,
    lagPollMs: 20,
    sleep: () => Promise.resolve(),
  });
  assert.deepEqual(detection.signatures.map((s) => s.kind), [
    "hung_mcp_call",
  ]);
  assert.equal(detection.waitedMs, 300);
  assert.equal(detection.waitedFor, "call_unsettled");
  assert.equal(detection.exhausted, null);
});

Deno.test("detectStalls() blocks a call without its result at once when the payload's last_assistant_message is the text of the message that made it", async () => {
  const t = new TranscriptBuilder("s");
  t.prompt("Use the tool.");
  t.text("msg_1", "Calling the slow tool.");
  t.call("msg_1", "toolu_1", "mcp__stub__slow");
  await using transcript = await tempTranscript(t.toString());
  let sleeps = 0;
  const detection = await detectStalls(
    input(transcript.path, "Calling the slow tool."),
    { lagWaitMs: 300, sleep: () => Promise.resolve(void sleeps++) },
  );
  assert.deepEqual(detection.signatures.map((s) => s.kind), [
    "hung_mcp_call",
  ]);
  assert.equal(detection.waitedMs, 0);
  assert.equal(detection.waitedFor, undefined);
  assert.equal(sleeps, 0);
});

Deno.test("detectStalls() waits for the new turn when the newest one on file already ended (its end-of-turn line is there)", async () => {
  const t = new TranscriptBuilder("s");
  t.prompt("First question.");
  t.text("msg_0", "First answer.");
  t.meta("system", { subtype: "stop_hook_summary" });
  t.meta("system", { subtype: "turn_duration", durationMs: 900 });
  const endedOnly = t.toString();
  t.prompt("Use the tool.");
  t.call("msg_1", "toolu_1", "Bash", { command: "ls" });
  t.result("toolu_1", "a.txt");
  await using transcript = await tempTranscript(endedOnly);
  const clock = landingAt(transcript.path, t.toString(), 3);
  const payload = input(transcript.path);
  const detection = await detectStalls({ ...payload, promptId: null }, {
    lagWaitMs: 2000,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures.map((s) => [s.kind, s.line]), [
    ["missing_followup", 7],
  ]);
});

Deno.test("detectStalls() waits for the call line of a message whose text is on file, when the payload says the final reply had no text", async () => {
  const t = new TranscriptBuilder("s");
  t.prompt("Run the tests.");
  t.text("msg_1", "Running the tests.");
  const textOnly = t.toString();
  t.call("msg_1", "toolu_1", "Bash", { command: "npm test" });
  t.result("toolu_1", "48 passed");
  await using transcript = await tempTranscript(textOnly);
  const clock = landingAt(transcript.path, t.toString(), 2);
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 2000,
    sleep: clock.sleep,
  });
  assert.deepEqual(detection.signatures.map((s) => [s.kind, s.line]), [
    ["missing_followup", 4],
  ]);
  assert.equal(clock.calls, 2);
});
