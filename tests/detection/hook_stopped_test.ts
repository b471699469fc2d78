/**
 * A turn another hook ended on purpose (`{"continue": false}` from a
 * PostToolUse or PreToolUse hook), as real Claude Code left it
 * (`fixtures/real/real_hook_stopped_*`). No Stop fires for such a turn, so
 * these files are judged the way `scan`, `audit` and the watchdog read
 * them: the current turn from the end of the file, then the classifier.
 */

import assert from "node:assert/strict";
import { resolve } from "node:path";
import { classifyTurn } from "../../src/detection/classify.ts";
import { scanCurrentTurn } from "../../src/transcript/tail_scan.ts";
import { FIXTURES_DIR } from "../support/cases.ts";

async function verdictOf(name: string) {
  const scan = await scanCurrentTurn(resolve(FIXTURES_DIR, "real", name), {
    promptId: null,
    includeSidechains: false,
  });
  assert.ok(scan);
  return classifyTurn(scan.entries, { backgroundTasks: [] });
}

Deno.test("a turn another hook ended is healthy where Claude Code recorded the stop (2.1.332 and 2.1.145 from PostToolUse, 2.1.145 from PreToolUse)", async () => {
  const post = await verdictOf("real_hook_stopped_post_tool_use.jsonl");
  assert.deepEqual(post.signatures, []);
  assert.equal(
    post.reason,
    "PostToolUse:mcp__stub__echo ended the turn on purpose (continue: false)",
  );
  // 2.1.145 interactive, its prompt line written after the model's call.
  const late = await verdictOf(
    "real_hook_stopped_prompt_line_late_2.1.145.jsonl",
  );
  assert.deepEqual(late.signatures, []);
  assert.equal(
    late.reason,
    "PostToolUse:mcp__stub__echo ended the turn on purpose (continue: false)",
  );
  const pre = await verdictOf("real_hook_stopped_pre_tool_use_2.1.145.jsonl");
  assert.deepEqual(pre.signatures, []);
  assert.equal(
    pre.reason,
    "PreToolUse:mcp__stub__echo ended the turn on purpose (continue: false)",
  );
});

Deno.test("before 2.1.97 nothing records the stop: the same turn reads as a result nobody answered (2.1.90)", async () => {
  const old = await verdictOf("real_hook_stopped_post_tool_use_2.1.90.jsonl");
  assert.deepEqual(old.signatures.map((s) => [s.kind, s.toolName]), [[
    "missing_followup",
    "mcp__stub__echo",
  ]]);
});
