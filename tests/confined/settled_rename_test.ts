/**
 * settledRename(): a rename Windows refuses for a moment (another process
 * has the target open) is tried again; other failures, and every failure
 * where no retries are allowed, surface at once.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  NATIVE_RENAME_POLICY,
  type RenamePolicy,
  settledRename,
} from "../../src/confined/_settled_rename.ts";
import { tempProject } from "../support/temp_project.ts";

/** A rename that is refused `refusals` times with `error`, then done. */
function flakyPolicy(refusals: number, error: Error, retries = 25) {
  const calls: string[] = [];
  const pauses: number[] = [];
  const policy: RenamePolicy = {
    retries,
    pauseMs: 4,
    rename: (from, to) => {
      calls.push(`${from}->${to}`);
      if (calls.length <= refusals) throw error;
    },
    sleep: (ms) => pauses.push(ms),
  };
  return { policy, calls, pauses };
}

const denied = () =>
  new Deno.errors.PermissionDenied("Access denied (os error 5)");

Deno.test("settledRename() tries a refused rename again until the target is let go", () => {
  const { policy, calls, pauses } = flakyPolicy(3, denied());
  settledRename("a.tmp", "a.json", policy);
  assert.equal(calls.length, 4);
  assert.deepEqual(pauses, [4, 4, 4]);
});

Deno.test("settledRename() gives up after its retries with the last refusal", () => {
  const { policy, calls } = flakyPolicy(100, denied(), 5);
  assert.throws(
    () => settledRename("a.tmp", "a.json", policy),
    Deno.errors.PermissionDenied,
  );
  assert.equal(calls.length, 6);
});

Deno.test("settledRename() never retries another kind of error, nor without retries", () => {
  const missing = flakyPolicy(1, new Deno.errors.NotFound("gone"));
  assert.throws(
    () => settledRename("a.tmp", "a.json", missing.policy),
    Deno.errors.NotFound,
  );
  assert.equal(missing.calls.length, 1);
  const strict = flakyPolicy(1, denied(), 0);
  assert.throws(
    () => settledRename("a.tmp", "a.json", strict.policy),
    Deno.errors.PermissionDenied,
  );
  assert.equal(strict.calls.length, 1);
});

Deno.test("settledRename() with the native policy renames a real file; only Windows retries", async () => {
  await using project = await tempProject();
  const from = join(project.dir, "from.txt");
  const to = join(project.dir, "to.txt");
  await Deno.writeTextFile(from, "new");
  await Deno.writeTextFile(to, "old");
  settledRename(from, to);
  assert.equal(await Deno.readTextFile(to), "new");
  assert.equal(
    NATIVE_RENAME_POLICY.retries > 0,
    Deno.build.os === "windows",
  );
});
