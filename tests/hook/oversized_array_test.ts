/**
 * A payload listing more background tasks than the budget is never parsed
 * into a million objects: the list is cut from the text first.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { cutOversizedArrays } from "../../src/hook/_oversized_array.ts";
import { readStopPayload } from "../../src/hook/_hook_input.ts";
import { MAX_BACKGROUND_TASKS } from "../../src/detection/background_tasks.ts";
import { fuzzParameters } from "../support/fuzz.ts";

const PAD = "x".repeat(1024 * 1024); // the cut looks only at texts over 1 MiB

Deno.test("cutOversizedArrays() empties only arrays over the limit under the key", () => {
  const text = JSON.stringify({
    pad: PAD,
    list: [1, 2, 3],
    nested: { list: [[1, 2], { a: "],[" }, '"list": [1,2,3]'] },
    quoted: 'say "list": [1, 2, 3] in a string',
  });
  const { text: out, cut } = cutOversizedArrays(text, "list", 2);
  assert.equal(cut, true);
  const parsed = JSON.parse(out);
  assert.deepEqual(parsed.list, []);
  assert.deepEqual(parsed.nested.list, []);
  assert.equal(parsed.quoted, 'say "list": [1, 2, 3] in a string');
  assert.deepEqual(cutOversizedArrays(text, "list", 3), { text, cut: false });
});

Deno.test("cutOversizedArrays() agrees with JSON.parse on what the array held", () => {
  const item = fc.oneof(
    fc.string(),
    fc.integer(),
    fc.array(fc.string(), { maxLength: 3 }),
    fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
  );
  fc.assert(
    fc.property(
      fc.array(item, { maxLength: 8 }),
      fc.nat(8),
      fc.string(),
      (items, limit, other) => {
        const text = JSON.stringify({ other, pad: PAD, list: items });
        const { text: out, cut } = cutOversizedArrays(text, "list", limit);
        const parsed = JSON.parse(out);
        assert.equal(cut, items.length > limit);
        assert.deepEqual(parsed.list, cut ? [] : items);
        assert.equal(parsed.other, other);
      },
    ),
    fuzzParameters(200),
  );
});

Deno.test("readStopPayload() flags a background_tasks list over the budget without keeping it", () => {
  const tasks = Array.from(
    { length: MAX_BACKGROUND_TASKS + 1 },
    (_, i) => ({ id: `task_${i}`, type: "shell", status: "running" }),
  );
  const payload = { transcript_path: "/t.jsonl", background_tasks: tasks };
  const big = readStopPayload(JSON.stringify({ ...payload, pad: PAD })).input();
  assert.equal(big.backgroundTasksOverBudget, true);
  assert.deepEqual(big.backgroundTasks, []);
  const small = readStopPayload(JSON.stringify(payload)).input();
  assert.equal(small.backgroundTasksOverBudget, true, "short text: by count");
  const within = readStopPayload(JSON.stringify({
    ...payload,
    background_tasks: tasks.slice(1),
  })).input();
  assert.equal(within.backgroundTasksOverBudget, false);
  assert.equal(within.backgroundTasks.length, MAX_BACKGROUND_TASKS);
});
