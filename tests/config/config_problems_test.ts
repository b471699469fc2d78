/**
 * A config file's problems cost one pass over it, however many there are,
 * and only the first few are reported, with a count of the rest. (The run
 * of the hook and `doctor` on such a file is in
 * `tests/e2e/hostile_config_e2e_test.ts`.)
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import { lineColumn, parseConfigText } from "../../src/config/config_file.ts";
import { fuzzParameters } from "../support/fuzz.ts";
import { CountedText } from "../support/counted_text.ts";

/** How many problems a config's report lists (docs/settings.md). */
const MAX_CONFIG_PROBLEMS = 10;

/** `line:column` by its definition: count the newlines before the offset. */
function naiveLineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return `${line}:${offset - (before.lastIndexOf("\n") + 1) + 1}`;
}

Deno.test("lineColumn() agrees with counting the newlines before each offset", () => {
  fc.assert(
    fc.property(
      fc.stringOf(fc.constantFrom("a", "\n", "\r", "é", " ")),
      fc.array(fc.nat(), { maxLength: 20 }),
      (text, picks) => {
        for (const pick of [0, text.length, ...picks]) {
          const offset = pick % (text.length + 1);
          assert.equal(
            lineColumn(text, offset),
            naiveLineColumn(text, offset),
            `${offset}`,
          );
        }
      },
    ),
    fuzzParameters(300),
  );
});

Deno.test("parseConfigText() lists the first problems with their places and counts the rest", async () => {
  const keys = Array.from({ length: 25 }, (_, i) => `"k${i}": 1`);
  const file = await parseConfigText(
    `{\n  "max_retries": 2,\n  ${keys.join(",\n  ")}\n}`,
    "c.jsonc",
  );
  assert.deepEqual([...file.values.keys()], ["max_retries"]);
  assert.equal(file.problems.length, MAX_CONFIG_PROBLEMS + 1);
  assert.equal(file.problems[0]?.source, "c.jsonc:3:3");
  assert.match(file.problems[0]!.message, /^unknown key "k0"/);
  assert.equal(
    file.problems[MAX_CONFIG_PROBLEMS - 1]?.source,
    `c.jsonc:${MAX_CONFIG_PROBLEMS + 2}:3`,
  );
  assert.deepEqual(file.problems.at(-1), {
    source: "c.jsonc",
    message: `${25 - MAX_CONFIG_PROBLEMS} more problems not listed`,
  });
});

Deno.test("parseConfigText() caps a flood of syntax errors the same way", async () => {
  // Two syntax errors per value where a property should be.
  const file = await parseConfigText(`{${"1,".repeat(50_000)}}`, "c.jsonc");
  assert.equal(file.values.size, 0);
  assert.equal(file.problems.length, MAX_CONFIG_PROBLEMS + 1);
  assert.match(file.problems[0]!.message, /^syntax error/);
  assert.match(
    file.problems.at(-1)!.message,
    /^[\d,]+ more problems? not listed$/,
  );
});

Deno.test("parseConfigText() reports exactly the cap's worth of problems without a count line", async () => {
  const keys = Array.from(
    { length: MAX_CONFIG_PROBLEMS },
    (_, i) => `"k${i}": 1`,
  );
  const file = await parseConfigText(`{${keys.join(",")}}`, "c.jsonc");
  assert.equal(file.problems.length, MAX_CONFIG_PROBLEMS);
  assert.ok(file.problems.every((p) => p.message.startsWith("unknown key")));
});

Deno.test("parseConfigText() reads a 1 MB config of 97,000 unknown keys on one line a few times per character, not once per problem", async () => {
  const keys: string[] = [];
  for (let size = 2; size < 1024 * 1024 - 16; size += keys.at(-1)!.length + 1) {
    keys.push(`"k${keys.length}":1`);
  }
  const plain = `{${keys.join(",")}}`;
  // Scanning from the start of the file for each problem's line and column
  // reads it some 50,000 times over.
  const text = new CountedText(plain, 10 * plain.length);
  const file = await parseConfigText(text.asString(), "c.jsonc");
  assert.equal(file.problems.length, MAX_CONFIG_PROBLEMS + 1);
  assert.deepEqual(file.problems.at(-1), {
    source: "c.jsonc",
    message: `${
      (keys.length - MAX_CONFIG_PROBLEMS).toLocaleString("en-US")
    } more problems not listed`,
  });
});
