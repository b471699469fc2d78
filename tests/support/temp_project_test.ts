/**
 * The temporary-folder idiom every test relies on: disposal removes the
 * folder however the block ends, read-only folders included, and never
 * replaces the test's own failure with one of its own.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  removeTree,
  tempFixture,
  tempProject,
  tempTranscript,
} from "./temp_project.ts";
import { PLANTS_POSIX_LINKS, skipWhere, USES_FILE_MODES } from "./platform.ts";

const exists = (path: string) => Deno.lstat(path).then(() => true, () => false);

Deno.test("a temp project is removed when its block ends, even by a failure, and that failure is what the test sees", async () => {
  let dir = "";
  const failure = new Error("the test's own failure");
  await assert.rejects(
    async () => {
      await using project = await tempProject();
      dir = project.dir;
      await Deno.writeTextFile(join(dir, "file.txt"), "x");
      throw failure;
    },
    (error) => error === failure,
  );
  assert.equal(await exists(dir), false);
});

Deno.test({
  ...skipWhere(
    "disposal removes a tree with read-only folders in it",
    USES_FILE_MODES,
  ),
  fn: async () => {
    let dir = "";
    {
      await using project = await tempProject();
      dir = project.dir;
      const locked = join(dir, "a", "locked");
      await Deno.mkdir(join(locked, "inner"), { recursive: true });
      await Deno.writeTextFile(join(locked, "inner", "f"), "x");
      await Deno.chmod(join(locked, "inner"), 0o555);
      await Deno.chmod(locked, 0o555);
      await Deno.chmod(join(dir, "a"), 0o555);
    }
    assert.equal(await exists(dir), false);
  },
});

Deno.test({
  ...skipWhere(
    "disposal removes a symlink to outside, not what it points to",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using outside = await tempProject();
    await Deno.writeTextFile(join(outside.dir, "keep.txt"), "keep");
    await Deno.chmod(outside.dir, 0o555);
    let dir = "";
    {
      await using project = await tempProject();
      dir = project.dir;
      await Deno.symlink(outside.dir, join(dir, "link"));
    }
    assert.equal(await exists(dir), false);
    assert.equal(
      await Deno.readTextFile(join(outside.dir, "keep.txt")),
      "keep",
    );
    assert.equal((await Deno.stat(outside.dir)).mode! & 0o777, 0o555);
  },
});

Deno.test("a fixture whose build fails leaves no folder behind and passes the error on", async () => {
  let dir = "";
  await assert.rejects(
    () =>
      tempFixture((made) => {
        dir = made;
        throw new Error("build failed");
      }),
    /build failed/,
  );
  assert.notEqual(dir, "");
  assert.equal(await exists(dir), false);
});

Deno.test("a fixture keeps what its build returned next to dir, and cleanup() may run twice", async () => {
  const fixture = await tempFixture((dir) => ({ marker: join(dir, "m") }));
  assert.equal(fixture.marker, join(fixture.dir, "m"));
  assert.equal(fixture.dir, await Deno.realPath(fixture.dir));
  await fixture.cleanup();
  await fixture[Symbol.asyncDispose]();
  assert.equal(await exists(fixture.dir), false);
});

Deno.test("tempTranscript() writes the text under the given name", async () => {
  await using transcript = await tempTranscript("line\n", "t.jsonl");
  assert.equal(transcript.path, join(transcript.dir, "t.jsonl"));
  assert.equal(await Deno.readTextFile(transcript.path), "line\n");
});

Deno.test("removeTree() of a missing path does nothing", async () => {
  await using project = await tempProject();
  await removeTree(join(project.dir, "missing"));
  assert.equal(await exists(project.dir), true);
});
