/**
 * The linear versions of two checks that used to be quadratic agree with
 * the plain definitions: linking calls to background tasks through an index,
 * the follow-up proof's whitespace-collapsing comparison, and the cut of a
 * heading's closing `#`s.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  type BackgroundTask,
  taskLinker,
  type TaskLinkQuery,
} from "../../src/detection/background_tasks.ts";
import {
  normalisedEquals,
  normalisedLength,
  provesFollowUp,
} from "../../src/detection/_lag_evidence.ts";
import { withoutClosingHashes } from "../../src/detection/_closing_prose.ts";
import type { Entry } from "../../src/transcript/entry.ts";
import { fuzzParameters } from "../support/fuzz.ts";

/** The definition: the first listed task that any rule links. */
function linkedByDefinition(
  query: TaskLinkQuery,
  tasks: readonly BackgroundTask[],
): BackgroundTask | null {
  for (const task of tasks) {
    if (
      query.toolUseId !== "" &&
      (task.id === query.toolUseId || task.toolUseId === query.toolUseId)
    ) return task;
    if (task.id.length >= 4 && query.resultSnippet.includes(task.id)) {
      return task;
    }
    const parts = query.toolName.split("__");
    if (
      task.tool !== "" && parts[0] === "mcp" && parts.length >= 3 &&
      parts.slice(2).join("__") === task.tool &&
      (task.server === "" || parts[1] === task.server ||
        (parts[1] as string).endsWith(`_${task.server}`))
    ) return task;
    if (
      (query.toolName === "Agent" || query.toolName === "Task") &&
      (task.type === "subagent" || task.type === "agent")
    ) return task;
  }
  return null;
}

const word = fc.constantFrom("", "a", "gh", "task_1", "task_12", "toolu_1");
const task: fc.Arbitrary<BackgroundTask> = fc.record({
  id: word,
  type: fc.constantFrom("", "mcp", "subagent", "agent", "shell"),
  status: fc.constant("running"),
  server: fc.constantFrom("", "github", "gh", "other"),
  tool: fc.constantFrom("", "create_issue", "x__y", "a"),
  toolUseId: word,
});
const query: fc.Arbitrary<TaskLinkQuery> = fc.record({
  toolName: fc.constantFrom(
    "Read",
    "Agent",
    "Task",
    "mcp__github__create_issue",
    "mcp__plugin_p_gh__create_issue",
    "mcp__other__x__y",
    "mcp__a",
  ),
  toolUseId: word,
  resultSnippet: fc.constantFrom(
    "",
    "moved to the background as task_12",
    "task_1 started",
    "toolu_1",
  ),
});

Deno.test("taskLinker() links exactly the task the rules name, first listed first", () => {
  fc.assert(
    fc.property(fc.array(task, { maxLength: 12 }), query, (tasks, q) => {
      assert.equal(taskLinker(tasks)(q), linkedByDefinition(q, tasks));
    }),
    fuzzParameters(2000),
  );
});

/** The reference the cursors must agree with: whitespace runs as one space, trimmed. */
function normalise(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

Deno.test("normalisedEquals() agrees with normalise(claim) === normalise(texts.join(' '))", () => {
  const piece = fc.constantFrom(
    "a",
    "b",
    " ",
    "\n",
    "\t",
    "\u00a0",
    "\u3000",
    "é",
    "ab",
  );
  const text = fc.array(piece, { maxLength: 6 }).map((p) => p.join(""));
  fc.assert(
    fc.property(fc.array(text, { maxLength: 4 }), text, (texts, other) => {
      const joined = normalise(texts.join(" "));
      assert.equal(normalisedEquals(joined, texts), true);
      assert.equal(normalisedEquals(` ${texts.join("\n\t")} `, texts), true);
      assert.equal(
        normalisedEquals(other, texts),
        normalise(other) === joined,
      );
      assert.equal(normalisedLength(other), normalise(other).length);
    }),
    fuzzParameters(2000),
  );
});

Deno.test("withoutClosingHashes() agrees with the regex it replaced, /\\s+#+\\s*$/, and reads 16 KiB of spaces at once", () => {
  const piece = fc.constantFrom("#", "##", " ", "\u3000", "\u00a0", "\t", "a");
  const text = fc.array(piece, { maxLength: 10 }).map((p) => p.join(""));
  fc.assert(
    fc.property(text, (line) => {
      assert.equal(withoutClosingHashes(line), line.replace(/\s+#+\s*$/, ""));
    }),
    fuzzParameters(2000),
  );
  const spaced = "Done" + "\u3000".repeat(16 * 1024) + "?";
  assert.equal(withoutClosingHashes(spaced), spaced);
});

Deno.test("provesFollowUp() on one message split over 40K lines recognises its joined text", () => {
  const texts = Array.from({ length: 40_000 }, (_, i) => `step ${i}`);
  const turn: Entry[] = texts.map((text, i) => ({
    kind: "assistant",
    offset: i * 100,
    line: i + 1,
    promptId: null,
    sidechain: false,
    messageId: "msg_long",
    texts: [text],
    toolUses: [],
  }));
  assert.equal(provesFollowUp(texts.join("\n"), turn), false);
  assert.equal(provesFollowUp("step 39999", turn), false);
  assert.equal(provesFollowUp("All done: the port is 8081.", turn), true);
});
