/**
 * appendedTurnLines(): what a lag wait looks at when a transcript grows, so
 * that metadata written while the hook waits (progress lines, snapshots)
 * never makes it read a long turn again, and an entry or an end-of-turn
 * line always does.
 */

import assert from "node:assert/strict";
import { appendedTurnLines } from "../../src/transcript/tail_scan.ts";
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

Deno.test("appendedTurnLines() is false for appended metadata and an unfinished line", async () => {
  const { t, end } = stalled();
  t.meta("progress", { data: { type: "hook_progress" } });
  t.meta("file-history-snapshot");
  await using file = await tempTranscript(t.toString() + '{"parentUuid"');
  assert.equal(await appendedTurnLines(file.path, end, MAIN), false);
});

Deno.test("appendedTurnLines() is true for an appended result, and for an end-of-turn line", async () => {
  const result = stalled();
  result.t.meta("progress");
  result.t.result("toolu_1", []);
  await using one = await tempTranscript(result.t.toString());
  assert.equal(await appendedTurnLines(one.path, result.end, MAIN), true);

  const ended = stalled();
  ended.t.meta("system", { subtype: "turn_duration", durationMs: 10 });
  await using two = await tempTranscript(ended.t.toString());
  assert.equal(await appendedTurnLines(two.path, ended.end, MAIN), true);
});

Deno.test("appendedTurnLines() passes over a subagent's sidechain lines in a main transcript", async () => {
  const { text, end } = stalled();
  const side = new TranscriptBuilder("s", { sidechain: true });
  side.prompt("Subtask.");
  await using file = await tempTranscript(text + side.toString());
  assert.equal(await appendedTurnLines(file.path, end, MAIN), false);
  assert.equal(
    await appendedTurnLines(file.path, end, { includeSidechains: true }),
    true,
  );
});

Deno.test("appendedTurnLines() is null for a transcript that is gone", async () => {
  await using folder = await tempTranscript("");
  assert.equal(
    await appendedTurnLines(`${folder.dir}/gone.jsonl`, 0, MAIN),
    null,
  );
});
