import assert from "node:assert/strict";
import {
  launchedBackgroundTasks,
  launchWords,
} from "../../src/detection/background_tasks.ts";
import type { Entry } from "../../src/transcript/entry.ts";

/** A results entry answering `toolu_1` with `text`, as the client records it. */
function result(text: string, launchRecord: boolean): Entry {
  return {
    kind: "results",
    offset: 0,
    line: 1,
    promptId: null,
    sidechain: false,
    results: [{
      toolUseId: "toolu_1",
      empty: false,
      userStopped: false,
      snippet: text,
      ...(launchRecord ? { launchRecord: true as const } : {}),
    }],
  };
}

// The Bash tool's first sentences when its command runs on in the
// background, as Claude Code 2.1.332 writes them (its source), each with a
// `toolUseResult.backgroundTaskId`.
const BACKGROUNDED = [
  "Command running in background with ID: b7e2k9. Output is being written to: /tmp/x.output.",
  "Command was manually backgrounded by user with ID: b7e2k9. Output is being written to: /tmp/x.output.",
  "Command was moved to the background (ID: b7e2k9) so that a message that arrived while it was running can reach you; it was not interrupted. Output is being written to: /tmp/x.output.",
  "Command was moved to the background (ID: b7e2k9) after running for 120s. Output is being written to: /tmp/x.output.",
  "Command did not complete within its 120s timeout and was moved to the background (ID: b7e2k9). Output is being written to: /tmp/x.output.",
];

Deno.test("launchedBackgroundTasks() takes each way Claude Code moves a command to the background for a running shell task, linked to its call", () => {
  for (const text of BACKGROUNDED) {
    assert.deepEqual(
      launchedBackgroundTasks([result(text, true)]).map((t) => [
        t.id,
        t.type,
        t.toolUseId,
      ]),
      [["b7e2k9", "shell", "toolu_1"]],
      text,
    );
  }
});

Deno.test("launchedBackgroundTasks() takes no launch from a command's output that says the same words, without the client's record of one", () => {
  for (const text of BACKGROUNDED) {
    assert.deepEqual(launchedBackgroundTasks([result(text, false)]), [], text);
  }
  assert.deepEqual(
    launchedBackgroundTasks([
      result("build log: Command was moved to the background (ID: x)", true),
    ]),
    [],
  );
});

Deno.test("launchWords() keeps words that launchedBackgroundTasks() finds the same task in again (what a history keeps of each kind of launch)", () => {
  const launches = [
    ...BACKGROUNDED,
    'MCP tool "query" is still running after 120s. It was moved to the background as task mcpt_4f9a2c.',
    "Async agent launched successfully.\nagentId: a7f3c21 (internal ID - do not mention to user.)",
  ];
  for (const text of launches) {
    const [task] = launchedBackgroundTasks([result(text, true)]);
    assert.ok(task, text);
    const kept = launchWords(text);
    assert.deepEqual(
      launchedBackgroundTasks([result(kept, true)]).map((t) => [t.id, t.type]),
      [[task.id, task.type]],
      `${text} kept as ${kept}`,
    );
  }
});
