/**
 * The compatibility table in `docs/compatibility.md` says what the code's
 * gates say: it is the table generated from the client floors, cell for
 * cell (the page's padding, which `deno fmt` adds, aside).
 */

import assert from "node:assert/strict";
import { BEGIN, compatTable, END } from "../support/compat_table.ts";

/** The table's rows as trimmed cells; separator cells become `---`. */
function cells(markdown: string): string[][] {
  return markdown.split("\n").map((l) => l.trim()).filter((l) =>
    l.startsWith("|")
  ).map((line) =>
    line.slice(1, -1).split("|").map((cell) => {
      const trimmed = cell.trim();
      return /^-+$/.test(trimmed) ? "---" : trimmed;
    })
  );
}

Deno.test("docs/compatibility.md holds the table generated from the client floors", async () => {
  const page = await Deno.readTextFile(
    new URL("../../docs/compatibility.md", import.meta.url),
  );
  const start = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  assert.ok(start >= 0 && end > start, "the page has no generated table");
  assert.deepEqual(
    cells(page.slice(start + BEGIN.length, end)),
    cells(compatTable()),
    "regenerate it: deno run tests/support/compat_table.ts",
  );
});

Deno.test("the compatibility table has a row per floor and says the gates' answers", () => {
  const rows = cells(compatTable()).slice(2);
  assert.ok(rows.length >= 2);
  // Where asyncRewake starts, the watchdog starts to work.
  const rewake = rows.find((r) => r[0]?.startsWith("2.1.84 "));
  assert.ok(rewake);
  assert.match(rewake[2] as string, /^yes/);
  const before = rows[rows.indexOf(rewake) - 1] as string[];
  assert.match(before[2] as string, /^no: `watch` exits at once/);
  assert.match(rows.at(-1)![0] as string, / and later$/);
});
