/**
 * Detection under its budgets: which budget leaves a turn unjudged (the
 * hook then allows the stop), which do not (a stall found in the newest part
 * of a long turn is real), and the lag wait's wall-clock deadline.
 */

import assert from "node:assert/strict";
import {
  type DetectInput,
  detectStalls,
  MAX_SIGNATURES,
} from "../../src/detection/detect.ts";
import { MAX_BACKGROUND_TASKS } from "../../src/detection/background_tasks.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";

function input(path: string, extra: Record<string, unknown> = {}): DetectInput {
  return readStopPayload(
    JSON.stringify({ session_id: "s", transcript_path: path, ...extra }),
  ).input();
}

const NO_WAIT = { lagWaitMs: 0, sleep: () => Promise.resolve() };

/** A turn with `count` pending calls on one assistant line. */
function pendingCalls(count: number, prefix = ""): string {
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Open the issues.");
  t.assistant(
    "msg_1",
    Array.from({ length: count }, (_, i) => ({
      type: "tool_use",
      id: `toolu_${i}`,
      name: `${prefix}Read`,
      input: {},
    })),
  );
  return t.toString();
}

Deno.test("detectStalls() allows unjudged when the scan budget ran out before any stall was seen", async () => {
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Read the config.");
  t.call("msg_1", "toolu_1", "Read");
  await using transcript = await tempTranscript(t.toString() + "\n".repeat(20));
  const cut = await detectStalls(input(transcript.path), {
    ...NO_WAIT,
    budgets: { lines: 20 },
  });
  assert.deepEqual(cut.signatures, []);
  assert.deepEqual(cut.exhausted, { name: "lines", limit: 20 });
  assert.equal(
    cut.reason,
    "the 20 lines budget ran out before the turn could be judged",
  );
  const whole = await detectStalls(input(transcript.path), NO_WAIT);
  assert.equal(whole.exhausted, null);
  assert.equal(whole.signatures.length, 1);
});

Deno.test("detectStalls() still blocks on a stall found inside the budget of a longer turn", async () => {
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Read the config.");
  for (let i = 0; i < 20; i++) t.text("msg_0", `step ${i}`);
  t.call("msg_1", "toolu_late", "Read");
  await using transcript = await tempTranscript(t.toString());
  const cut = await detectStalls(input(transcript.path), {
    ...NO_WAIT,
    budgets: { lines: 5 },
  });
  assert.equal(cut.scan?.budget, "lines");
  assert.equal(cut.exhausted, null);
  assert.deepEqual(cut.signatures.map((s) => [s.toolUseId, s.line]), [
    ["toolu_late", 22],
  ]);
});

Deno.test(`detectStalls() reports up to ${MAX_SIGNATURES} stalls and allows unjudged beyond`, async () => {
  {
    await using transcript = await tempTranscript(pendingCalls(MAX_SIGNATURES));
    const detection = await detectStalls(input(transcript.path), NO_WAIT);
    assert.equal(detection.signatures.length, MAX_SIGNATURES);
    assert.equal(detection.exhausted, null);
  }
  {
    await using transcript = await tempTranscript(
      pendingCalls(MAX_SIGNATURES + 1),
    );
    const detection = await detectStalls(input(transcript.path), NO_WAIT);
    assert.deepEqual(detection.signatures, []);
    assert.deepEqual(detection.exhausted, {
      name: "signatures",
      limit: MAX_SIGNATURES,
    });
  }
});

Deno.test(`detectStalls() allows a stall unjudged when the payload lists over ${MAX_BACKGROUND_TASKS} background tasks`, async () => {
  const tasks = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => ({ id: `task_${i}`, status: "running" }),
    );
  {
    await using transcript = await tempTranscript(
      pendingCalls(2, "mcp__github__"),
    );
    const path = transcript.path;
    const within = await detectStalls(
      input(path, { background_tasks: tasks(MAX_BACKGROUND_TASKS) }),
      NO_WAIT,
    );
    assert.equal(within.signatures.length, 2);
    const over = await detectStalls(
      input(path, { background_tasks: tasks(MAX_BACKGROUND_TASKS + 1) }),
      NO_WAIT,
    );
    assert.deepEqual(over.signatures, []);
    assert.deepEqual(over.exhausted, {
      name: "background_tasks",
      limit: MAX_BACKGROUND_TASKS,
    });
  }
  // A healthy turn needs no linking: the task list does not matter.
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Hi");
  t.text("msg_1", "Hello.");
  {
    await using transcript = await tempTranscript(t.toString());
    const healthy = await detectStalls(
      input(transcript.path, {
        background_tasks: tasks(MAX_BACKGROUND_TASKS + 1),
      }),
      NO_WAIT,
    );
    assert.equal(healthy.exhausted, null);
  }
});

Deno.test("detectStalls() keeps the lag wait's deadline on its clock, not by adding up sleeps", async () => {
  const t = new TranscriptBuilder("s", { legacy: true });
  t.prompt("Read the config.");
  t.call("msg_1", "toolu_1", "Read");
  await using transcript = await tempTranscript(t.toString());
  let now = 0;
  let sleeps = 0;
  const detection = await detectStalls(input(transcript.path), {
    lagWaitMs: 300,
    lagPollMs: 20,
    now: () => now,
    sleep: async (ms) => {
      sleeps++;
      // The file grows at every poll, and each poll costs 100 ms more
      // than it slept (as a slow rescan would).
      await Deno.writeTextFile(transcript.path, '{"type":"progress"}\n', {
        append: true,
      });
      now += ms + 100;
    },
  });
  assert.equal(detection.signatures.length, 1);
  assert.equal(sleeps, 3, "300 ms of clock, 120 ms per poll");
  assert.equal(detection.waitedMs, 360);
});
