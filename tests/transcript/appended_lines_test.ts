/**
 * claudeCodeReader.appended(): what a lag wait looks at when a transcript grows, so
 * that metadata written while the hook waits (progress lines, snapshots)
 * never makes it read a long turn again, and an entry or an end-of-turn
 * line always does.
 */

import assert from "node:assert/strict";
import { claudeCodeReader } from "../../src/transcript/tail_scan.ts";
import { tempTranscript } from "../support/temp_project.ts";
import { TranscriptBuilder } from "../support/transcript_builder.ts";

const MAIN = { includeSidechains: false };

/** A turn stalled on a call, and where its last complete line ends. */
function stalled() {
  const t = new TranscriptBuilder("s");
  t.prompt("Use the tool.");
  t.call("msg_1", "toolu_1", "mcp__stub__slow");
  const text = t.toString();
  return { t, text, end: new TextEncoder().encode(text).length };
}

Deno.test("claudeCodeReader.appended() is false for appended metadata and an unfinished line", async () => {
  const { t, end } = stalled();
  t.meta("progress", { data: { type: "hook_progress" } });
  t.meta("file-history-snapshot");
  const whole = t.toString();
  await using file = await tempTranscript(whole + '{"parentUuid"');
  // Read up to the end of the last complete line, where the next look goes on.
  assert.deepEqual(await claudeCodeReader.appended(file.path, end, MAIN), {
    changed: false,
    to: new TextEncoder().encode(whole).length,
  });
});

Deno.test("claudeCodeReader.appended() is true for an appended result, and for an end-of-turn line", async () => {
  const result = stalled();
  result.t.meta("progress");
  result.t.result("toolu_1", []);
  await using one = await tempTranscript(result.t.toString());
  assert.equal(
    (await claudeCodeReader.appended(one.path, result.end, MAIN))?.changed,
    true,
  );

  const ended = stalled();
  ended.t.meta("system", { subtype: "turn_duration", durationMs: 10 });
  await using two = await tempTranscript(ended.t.toString());
  assert.equal(
    (await claudeCodeReader.appended(two.path, ended.end, MAIN))?.changed,
    true,
  );
});

Deno.test("claudeCodeReader.appended() passes over a subagent's sidechain lines in a main transcript", async () => {
  const { text, end } = stalled();
  const side = new TranscriptBuilder("s", { sidechain: true });
  side.prompt("Subtask.");
  await using file = await tempTranscript(text + side.toString());
  assert.equal(
    (await claudeCodeReader.appended(file.path, end, MAIN))?.changed,
    false,
  );
  assert.equal(
    (await claudeCodeReader.appended(file.path, end, {
      includeSidechains: true,
    }))
      ?.changed,
    true,
  );
});

Deno.test("claudeCodeReader.appended() is null for a transcript that is gone", async () => {
  await using folder = await tempTranscript("");
  assert.equal(
    await claudeCodeReader.appended(`${folder.dir}/gone.jsonl`, 0, MAIN),
    null,
  );
});

Deno.test("claudeCodeReader.appended() reads at most maxBytes, stops when told, and goes on from where it stopped", async () => {
  const { t, end } = stalled();
  for (let i = 0; i < 200; i++) t.meta("progress", { data: { i } });
  t.result("toolu_1", []);
  const text = t.toString();
  await using file = await tempTranscript(text);
  const size = new TextEncoder().encode(text).length;
  // Within a budget too small to reach the result: metadata only, and
  // where it stopped, at a line's end.
  const first = await claudeCodeReader.appended(file.path, end, {
    ...MAIN,
    maxBytes: 4096,
  });
  assert.equal(first?.changed, false);
  assert.ok(first!.to > end && first!.to <= end + 4096, `${first?.to}`);
  assert.equal(text[first!.to - 1], "\n");
  // Stopped before its first read: nothing read, nowhere further.
  assert.deepEqual(
    await claudeCodeReader.appended(file.path, end, {
      ...MAIN,
      stopWhen: () => true,
    }),
    { changed: false, to: end },
  );
  // Going on from there, read by read, the result is found.
  let from = first!.to;
  let found = false;
  for (let reads = 0; reads < 100 && !found; reads++) {
    const next = await claudeCodeReader.appended(file.path, from, {
      ...MAIN,
      maxBytes: 4096,
    });
    found = next!.changed;
    assert.ok(next!.to >= from);
    from = next!.to;
  }
  assert.ok(found);
  assert.equal(from, size);
});
