/**
 * A session killed while a call ran, then picked up again with
 * `claude --continue` (real captures, `fixtures/real/real_crashed_call_*`).
 * From 2.1.281 Claude Code gives the cut call its own result on resume,
 * `[Tool call interrupted: ...]`: those files are judged through
 * `fixtures/cases.json` (a result to answer: `missing_followup` when the
 * resumed model stays silent, healthy when it answers). Before 2.1.281 the
 * crashed call keeps no result, and the resumed turn must not inherit it.
 */

import assert from "node:assert/strict";
import { resolve } from "node:path";
import { detectStalls } from "../../src/detection/detect.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { tempProject } from "../support/temp_project.ts";

const noSleep = () => Promise.resolve();

interface Line {
  text: string;
  entry: Record<string, unknown>;
}

function realLines(name: string): Line[] {
  return Deno.readTextFileSync(resolve(FIXTURES_DIR, "real", name))
    .split("\n").filter((text) => text !== "")
    .map((text) => ({ text, entry: JSON.parse(text) }));
}

Deno.test({
  name:
    "detectStalls() leaves 2.1.265's crashed call, which kept no result, to the crashed turn: the resumed turn was answered",
  // The real 2.1.265 run blocked here ("1 hung mcp call", line 15 of the
  // file): the hook's turn rule of the day took the assistant lines behind
  // the resumed prompt, which carry no promptId, into its turn.
  fn: async () => {
    const lines = realLines("real_crashed_call_resumed_2.1.265.jsonl");
    const answer = "Picked up after the crash.";
    // The file as the Stop hook saw it: up to the resumed turn's answer.
    const cut = lines.findIndex((l) => l.text.includes(answer));
    assert.ok(cut > 0);
    const prompt = lines.find((l) =>
      JSON.stringify(l.entry.message ?? "").includes("carry on")
    );
    await using project = await tempProject();
    const path = resolve(project.dir, "resumed.jsonl");
    await Deno.writeTextFile(
      path,
      lines.slice(0, cut + 1).map((l) => l.text + "\n").join(""),
    );
    const detection = await detectStalls({
      scanPath: path,
      promptId: String(prompt?.entry.promptId),
      isSubagent: false,
      lastAssistantMessage: answer,
      backgroundTasks: [],
      payloadSendsLastMessage: true,
    }, { lagWaitMs: 0, sleep: noSleep });
    assert.deepEqual(detection.signatures, [], detection.reason);
  },
});
