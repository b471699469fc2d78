/**
 * A call the model has moved past is not what the turn is stuck on: the
 * live hook's view of a finished turn whose first two results never
 * reached the file (the model went on with new calls, each answered, and
 * finished with an answer), and of the real stalls that stay flagged
 * either way (a turn ending on an unanswered call, a lost call at the end).
 * The API answers a model's message only once every call before it has
 * its result, so a later message proves the earlier results were sent.
 */

import assert from "node:assert/strict";
import { runHook } from "../../src/hook/_hook.ts";
import { FIXTURES_DIR } from "../support/cases.ts";
import { tempTranscript } from "../support/temp_project.ts";

/** The healthy fixture's lines (1-based line `n` is `LINES[n - 1]`). */
const LINES = Deno.readTextFileSync(
  `${FIXTURES_DIR}/healthy_text_after_results.jsonl`,
).split("\n").filter((l) => l !== "");

/** The fixture's lines with the 1-based lines in `drop` left out. */
function without(...drop: number[]): string[] {
  return LINES.filter((_line, i) => !drop.includes(i + 1));
}

/** The Stop hook on `lines`: its exit code and the stalls it names. */
async function stopOn(lines: readonly string[]) {
  await using file = await tempTranscript(lines.join("\n") + "\n");
  let clock = 0;
  const outcome = await runHook(
    JSON.stringify({
      session_id: "moved-past",
      transcript_path: file.path,
      cwd: file.dir,
      hook_event_name: "Stop",
      stop_hook_active: false,
    }),
    {
      env: {},
      cwd: file.dir,
      // A clock that only sleeping moves: the lag wait costs no real time.
      now: () => clock,
      sleep: (ms: number) => {
        clock += ms;
        return Promise.resolve();
      },
    },
  );
  const named = [...outcome.stderr.matchAll(/id=(toolu_\w+|msg_\w+)/g)]
    .map((m) => m[1]);
  return { code: outcome.exitCode, named, stderr: outcome.stderr };
}

const BASH = "toolu_01oyTKhzfSis81uEvK7nJQyO"; // line 6, result line 7
const READ = "toolu_01Cy817kRqd4Lz3rogliF1YL"; // line 9, result line 10
const EDIT = "toolu_01VWFRw3ZkoBqnfHsmRxxOCQ"; // line 12, result line 13

Deno.test("the hook allows a finished turn whose two first results never reached the file: the model moved past them", async () => {
  const { code, stderr } = await stopOn(without(7, 10));
  assert.equal(code, 0, stderr);
});

Deno.test("the hook still blocks a turn that ends on an unanswered call, naming only that call, not the ones moved past", async () => {
  // Cut after the Edit call (line 12), its result never written.
  const cut = without(7, 10).slice(0, 10);
  assert.ok(cut.at(-1)!.includes(EDIT));
  const { code, named } = await stopOn(cut);
  assert.equal(code, 2);
  assert.ok(named.includes(EDIT), named.join(","));
  assert.ok(!named.includes(BASH) && !named.includes(READ), named.join(","));
});

Deno.test("the hook still blocks a lost call at the end of a turn whose earlier results never reached the file", async () => {
  // The final answer replaced by a message that stopped for a call that
  // never reached the file.
  const final = JSON.parse(LINES[16]!);
  final.message.content = [{ type: "text", text: "Running the tests again." }];
  final.message.stop_reason = "tool_use";
  const lines = [...without(7, 10, 17, 18, 19, 20), JSON.stringify(final)];
  const { code, named, stderr } = await stopOn(lines);
  assert.equal(code, 2, stderr);
  assert.match(stderr, /lost tool call/);
  assert.ok(!named.includes(BASH) && !named.includes(READ), named.join(","));
});
