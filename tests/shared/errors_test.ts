/**
 * `describe()`: the one line every failure is reported in. File-system
 * errors read as words, not as Deno's raw "(os error 2): stat '...'".
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { clipMiddle, describe } from "../../src/shared/errors.ts";
import { tempProject } from "../support/temp_project.ts";
import { skipWhere, underWine } from "../support/platform.ts";

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error("did not throw");
}

Deno.test("describe() puts file-system errors in words, without the os error number or system call", async () => {
  await using temp = await tempProject();
  const dir = temp.dir;
  const file = join(dir, "f");
  await Deno.writeTextFile(file, "");
  const cases: [() => unknown, string][] = [
    [() => Deno.statSync(join(dir, "missing")), "it does not exist"],
    [() => Deno.readTextFileSync(dir), "it is a directory"],
    [() => Deno.mkdirSync(dir), "it already exists"],
  ];
  for (const [fn, words] of cases) {
    const error = thrown(fn);
    assert.match((error as Error).message, /\(os error \d+\)/);
    assert.equal(describe(error), words);
  }
  const other = new Error(
    "No space left on device (os error 28): write '/x'",
  );
  assert.equal(describe(other), "No space left on device");
  // A folder read on Windows: os error 1, which Deno throws as a plain
  // Error with code EISDIR (seen from Windows Deno under Wine).
  const folderRead = Object.assign(
    new Error("Invalid function. (os error 1): readfile 'C:\\proj\\d'"),
    { code: "EISDIR" },
  );
  assert.equal(describe(folderRead), "it is a directory");
  assert.equal(describe(new Error("plain\nsecond")), "plain");
});

Deno.test({
  ...skipWhere(
    "describe() says a file listed as a folder is not a folder",
    underWine(
      "Wine answers with 'path not found' (os error 3) where Windows " +
        "answers ERROR_DIRECTORY (267), Deno's NotADirectory",
    ),
  ),
  async fn() {
    await using temp = await tempProject();
    const file = join(temp.dir, "f");
    await Deno.writeTextFile(file, "");
    assert.equal(
      describe(thrown(() => Deno.readDirSync(file))),
      "it (or a folder on its path) is not a folder",
    );
  },
});

Deno.test("clipMiddle() keeps both ends within max and never splits a surrogate pair", () => {
  assert.equal(clipMiddle("abcdef", 10), "abcdef");
  assert.equal(clipMiddle("abcdefghij", 5), "ab…ij");
  for (let max = 3; max < 12; max++) {
    for (const text of ["😀".repeat(20), `a${"😀".repeat(20)}`]) {
      const clipped = clipMiddle(text, max);
      assert.ok(clipped.length <= max, `${max}: ${clipped}`);
      assert.doesNotMatch(clipped, /\p{Cs}/u, `${max}: ${clipped}`);
    }
  }
});
