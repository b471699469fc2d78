/**
 * The oversized-array cut with its key nested at any depth, inside lists it
 * cuts and lists it keeps: the same result as cutting the parsed value, in
 * one pass over the text.
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { cutOversizedArrays } from "../../src/hook/_oversized_array.ts";
import { fuzzParameters } from "../support/fuzz.ts";
import { CountedText } from "../support/counted_text.ts";

const PAD = "x".repeat(1024 * 1024); // the cut looks only at texts over 1 MiB

/** What the cut must do, on the parsed value: outermost lists first. */
function cutParsed(value: unknown, key: string, maxItems: number): unknown {
  if (Array.isArray(value)) {
    return value.map((v) => cutParsed(v, key, maxItems));
  }
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      k === key && Array.isArray(v) && v.length > maxItems
        ? []
        : cutParsed(v, key, maxItems),
    ]),
  );
}

/** JSON values where `"list"` keys hold lists that hold more `"list"` keys. */
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom(0, "list", '"list": [1, 2]', "],[", null),
    fc.array(tie("tree"), { maxLength: 4 }),
    fc.record({ list: fc.array(tie("tree"), { maxLength: 4 }) }),
    fc.dictionary(fc.constantFrom("a", "list", "b"), tie("tree"), {
      maxKeys: 3,
    }),
  ),
}));

Deno.test("cutOversizedArrays() cuts nested lists exactly as cutting the parsed value would", () => {
  fc.assert(
    fc.property(tree, fc.nat(3), fc.boolean(), (value, limit, spaced) => {
      const payload = { value, pad: PAD };
      const text = JSON.stringify(payload, null, spaced ? 1 : undefined);
      const { text: out, cut } = cutOversizedArrays(text, "list", limit);
      const expected = cutParsed(payload, "list", limit);
      assert.deepEqual(JSON.parse(out), expected);
      assert.equal(cut, JSON.stringify(expected) !== JSON.stringify(payload));
    }),
    // Each case stringifies and parses a 1 MiB text.
    fuzzParameters(60),
  );
});

Deno.test("cutOversizedArrays() leaves a text whose brackets or strings never close as it is", () => {
  for (
    const tail of [
      '{"list": [1, 2, 3]',
      '{"list": [1, 2, 3]]}}',
      '{"list": ["a]',
    ]
  ) {
    const text = `{"pad": "${PAD}", "v": ${tail}`;
    assert.deepEqual(cutOversizedArrays(text, "list", 1), { text, cut: false });
  }
});

Deno.test("cutOversizedArrays() reads 2.4 MB of task lists nested 36,000 deep a few times per character, not once per key", () => {
  const depth = 36_000;
  const task =
    '{"id":"t","type":"shell","status":"running","background_tasks":[';
  const plain = `{"transcript_path":"/t.jsonl","background_tasks":[${
    task.repeat(depth)
  }${"]}".repeat(depth)}]}`;
  // Scanning each list to its end again for every key inside it reads the
  // text some 18,000 times over.
  const text = new CountedText(plain, 10 * plain.length);
  const { cut } = cutOversizedArrays(text.asString(), "background_tasks", 1);
  assert.equal(cut, false, "no list has more than one item");
  const over = new CountedText(plain, 10 * plain.length);
  const result = cutOversizedArrays(over.asString(), "background_tasks", 0);
  assert.equal(result.cut, true);
  assert.deepEqual(JSON.parse(String(result.text)), {
    transcript_path: "/t.jsonl",
    background_tasks: [],
  });
});
