/**
 * The snapshot helper: a value is compared with its file as JSON data, a
 * mismatch fails, `--update` rewrites, and a missing file is written on a
 * developer's machine but fails in CI.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { assertSnapshot, snapshotMode } from "./snapshot.ts";
import { tempProject } from "./temp_project.ts";

const LOCAL = { update: false, ci: false };
const CI = { update: false, ci: true };
const UPDATE = { update: true, ci: true };

Deno.test("snapshotMode() reads --update from the arguments and CI=true from the environment", () => {
  const env = (values: Record<string, string>) => (name: string) =>
    values[name];
  assert.deepEqual(snapshotMode([], env({})), LOCAL);
  assert.deepEqual(snapshotMode(["--update"], env({ CI: "true" })), UPDATE);
  assert.deepEqual(snapshotMode([], env({ CI: "1" })), LOCAL);
});

Deno.test("a snapshot passes on equal JSON data, whatever the file's layout, and fails on a difference", async () => {
  await using project = await tempProject();
  const testModule = pathToFileURL(join(project.dir, "some_test.ts"));
  const file = join(project.dir, "__snapshots__", "report.json");
  await Deno.mkdir(join(project.dir, "__snapshots__"));
  await Deno.writeTextFile(file, '{ "b": [1, 2], "a": "x" }');
  await assertSnapshot({ a: "x", b: [1, 2] }, testModule, "report", CI);
  await assert.rejects(
    () => assertSnapshot({ a: "x", b: [1, 3] }, testModule, "report", CI),
    /differs from snapshot .*report\.json/,
  );
  await assert.rejects(
    () => assertSnapshot({ a: "x", b: [1, 3] }, testModule, "report", LOCAL),
    /differs from snapshot/,
    "outside CI a difference fails too",
  );
});

Deno.test("a missing snapshot fails in CI and is written outside it; --update rewrites one", async () => {
  await using project = await tempProject();
  const testModule = pathToFileURL(join(project.dir, "some_test.ts"));
  const file = join(project.dir, "__snapshots__", "report.json");
  await assert.rejects(
    () => assertSnapshot({ n: 1 }, testModule, "report", CI),
    /snapshot .*report\.json is missing; write it with: deno test \.\.\. -- --update/,
  );
  await assert.rejects(() => Deno.lstat(file), Deno.errors.NotFound);
  await assertSnapshot({ n: 1 }, testModule, "report", LOCAL);
  assert.equal(await Deno.readTextFile(file), '{\n  "n": 1\n}\n');
  await assertSnapshot({ n: 2 }, testModule, "report", UPDATE);
  assert.equal(await Deno.readTextFile(file), '{\n  "n": 2\n}\n');
  await assertSnapshot({ n: 2 }, testModule, "report", CI);
});
