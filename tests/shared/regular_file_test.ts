/**
 * The shared reader of files someone else wrote: a planted FIFO, folder or
 * `/dev/zero` link is refused at once (never opened, never read to the end),
 * a file over the cap is refused, a missing one is `null`.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  openRegularFile,
  readRegularText,
  UnreadableFileError,
} from "../../src/shared/regular_file.ts";
import { tempProject } from "../support/temp_project.ts";
import { PLANTS_POSIX_LINKS, skipWhere } from "../support/platform.ts";

const posix = Deno.build.os !== "windows";

Deno.test("readRegularText() reads a regular file, through a symlink too, and returns null when it is missing", async () => {
  await using project = await tempProject();
  const file = join(project.dir, "config.jsonc");
  await Deno.writeTextFile(file, '{"a": 1}\n');
  assert.equal(readRegularText(file, "config file", 1024), '{"a": 1}\n');
  if (posix) {
    const link = join(project.dir, "link.jsonc");
    await Deno.symlink(file, link);
    assert.equal(readRegularText(link, "config file", 1024), '{"a": 1}\n');
  }
  assert.equal(readRegularText(join(project.dir, "gone"), "x", 10), null);
  // A file where a folder on the path should be: missing, not an error.
  assert.equal(readRegularText(join(file, "inner"), "x", 10), null);
});

Deno.test("readRegularText() refuses a folder and a file over the cap, naming the file", async () => {
  await using project = await tempProject();
  assert.throws(
    () => readRegularText(project.dir, "config file", 1024),
    (error: unknown) =>
      error instanceof UnreadableFileError &&
      error.reason === "it is a directory" &&
      error.message.startsWith('Cannot read config file "'),
  );
  const big = join(project.dir, "big.json");
  await Deno.writeTextFile(big, "x".repeat(2048));
  assert.throws(
    () => readRegularText(big, "settings file", 1024),
    (error: unknown) =>
      error instanceof UnreadableFileError &&
      error.reason === "it is larger than 1024 bytes",
  );
});

Deno.test({
  ...skipWhere(
    "openRegularFile() refuses a FIFO and a symlink to /dev/zero without opening or reading them",
    PLANTS_POSIX_LINKS,
  ),
  fn: async () => {
    await using project = await tempProject();
    const fifo = join(project.dir, "events.jsonl");
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output();
    assert.ok(made.success);
    // Opened, a FIFO with no writer would block this test forever.
    assert.throws(
      () => openRegularFile(fifo, "event log"),
      (error: unknown) =>
        error instanceof UnreadableFileError &&
        error.reason === "it is not a regular file",
    );
    const zero = join(project.dir, "settings.json");
    await Deno.symlink("/dev/zero", zero);
    assert.throws(
      () => readRegularText(zero, "settings file", 1024 * 1024),
      (error: unknown) =>
        error instanceof UnreadableFileError &&
        error.reason === "it is not a regular file",
    );
  },
});
