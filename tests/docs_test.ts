/**
 * The docs name the tests that hold each promise (`docs/threat-model.md`
 * above all): every test file they name exists, and every test they quote
 * right after its file (`tests/x_test.ts`: "name", "other name ...") is in
 * that file, so a moved or renamed test cannot leave a reference behind.
 */

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url);

/** The Markdown files that name tests. */
function docs(): string[] {
  return [
    "README.md",
    ...[...Deno.readDirSync(new URL("docs/", ROOT))]
      .filter((e) => e.isFile && e.name.endsWith(".md"))
      .map((e) => `docs/${e.name}`),
  ].sort();
}

/** Text with every run of white space made one space. */
const flat = (text: string) => text.replace(/\s+/g, " ");

/**
 * Each test file a text names in backquotes, with the names it quotes
 * right after it (`: "a", "b" and "c"`).
 */
export function namedTests(
  text: string,
): { file: string; quoted: string[] }[] {
  const found: { file: string; quoted: string[] }[] = [];
  const pattern =
    /`(tests\/[\w/.-]+_test\.ts)`(?::\s*((?:"[^"]+"(?:\s*(?:,|;|and)\s*(?="))?)+))?/g;
  for (const m of flat(text).matchAll(pattern)) {
    const quoted = [...(m[2] ?? "").matchAll(/"([^"]+)"/g)].map((q) => q[1]!);
    found.push({ file: m[1]!, quoted });
  }
  return found;
}

/**
 * Whether a quoted name is in a test file's source: each piece between
 * ellipses (`...` stands for the rest of a long name) appears as written.
 */
export function quotes(source: string, name: string): boolean {
  return name.split("...").map((piece) => piece.trim())
    .filter((piece) => piece !== "")
    .every((piece) => flat(source).includes(piece));
}

Deno.test("every test the docs name exists, under the name they quote", () => {
  const wrong: string[] = [];
  let checked = 0;
  for (const doc of docs()) {
    const text = Deno.readTextFileSync(new URL(doc, ROOT));
    for (const { file, quoted } of namedTests(text)) {
      let source: string;
      try {
        source = Deno.readTextFileSync(new URL(file, ROOT));
      } catch {
        wrong.push(`${doc}: ${file} does not exist`);
        continue;
      }
      for (const name of quoted) {
        checked++;
        if (!quotes(source, name)) wrong.push(`${doc}: ${file}: "${name}"`);
      }
    }
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked > 20, `only ${checked} quoted test names found`);
});

Deno.test("namedTests() and quotes() read a doc's references the way they are written", () => {
  const doc =
    'See `tests/a_test.ts`: "one thing", "a long\n  name ..." and "x"; also\n`tests/b/c_test.ts` alone.';
  assert.deepEqual(namedTests(doc), [
    { file: "tests/a_test.ts", quoted: ["one thing", "a long name ...", "x"] },
    { file: "tests/b/c_test.ts", quoted: [] },
  ]);
  const source = 'Deno.test(\n  "a long name that goes on",\n  () => {},\n);';
  assert.equal(quotes(source, "a long name ..."), true);
  assert.equal(quotes(source, "a long name that stops"), false);
  assert.equal(quotes(source, "a long ... goes on"), true);
});
