import assert from "node:assert/strict";
import { chooseOutput } from "../../src/hook/_block_output.ts";

Deno.test("chooseOutput() keeps the configured mode, except context on a release without Stop additionalContext", () => {
  assert.deepEqual(chooseOutput("stderr", [2, 0, 76]), { mode: "stderr" });
  assert.deepEqual(chooseOutput("json", [2, 0, 76]), { mode: "json" });
  assert.deepEqual(chooseOutput("context", [2, 1, 163]), { mode: "context" });
  assert.deepEqual(chooseOutput("context", [2, 1, 332]), { mode: "context" });
  // Unknown release (no version on file): the configured mode.
  assert.deepEqual(chooseOutput("context", null), { mode: "context" });
  assert.deepEqual(chooseOutput("context", [2, 1, 162]), {
    mode: "stderr",
    fallback:
      'output "context" needs Claude Code 2.1.163 or later; the transcript was written by 2.1.162',
  });
});
