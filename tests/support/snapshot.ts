/**
 * Golden values kept in files next to the test that checks them
 * (`<test folder>/__snapshots__/<name>.json`), a small stand-in for JSR's
 * snapshot module, which is out of reach here.
 *
 * A value is compared with its file as JSON data, so formatting the file
 * changes nothing. `deno test ... -- --update` rewrites the files of the
 * tests it runs. A missing file is written, with a note, on a developer's
 * machine, and fails when `CI=true`, so a forgotten snapshot cannot pass
 * in CI by writing itself.
 *
 * @module
 */

import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

/** What a snapshot check may do besides comparing. */
export interface SnapshotMode {
  /** Rewrite the file with the value (`-- --update`). */
  update: boolean;
  /** Fail on a missing file instead of writing it (`CI=true`). */
  ci: boolean;
}

/** The mode of this test run: `--update` after `--`, and `CI=true`. */
export function snapshotMode(
  args: readonly string[] = Deno.args,
  env: (name: string) => string | undefined = readEnv,
): SnapshotMode {
  return { update: args.includes("--update"), ci: env("CI") === "true" };
}

/**
 * Asserts that `actual` equals, as JSON data, the snapshot `name` of the
 * test module `testModule` (its `import.meta.url`).
 */
export async function assertSnapshot(
  actual: unknown,
  testModule: string | URL,
  name: string,
  mode: SnapshotMode = snapshotMode(),
): Promise<void> {
  const url = new URL(`__snapshots__/${name}.json`, testModule);
  const path = fileURLToPath(url);
  const text = JSON.stringify(actual, null, 2) + "\n";
  let saved: string | null = null;
  try {
    saved = await Deno.readTextFile(url);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (mode.update || (saved === null && !mode.ci)) {
    await Deno.mkdir(new URL(".", url), { recursive: true });
    await Deno.writeTextFile(url, text);
    if (!mode.update) console.warn(`snapshot written: ${path}`);
    return;
  }
  if (saved === null) {
    assert.fail(
      `snapshot ${path} is missing; write it with: deno test ... -- --update`,
    );
  }
  assert.deepEqual(
    JSON.parse(text),
    JSON.parse(saved),
    `differs from snapshot ${path} (if the change is intended: deno test ... -- --update)`,
  );
}

/** An environment that cannot be read (no --allow-env) counts as CI: strict is the safe side. */
function readEnv(name: string): string | undefined {
  try {
    return Deno.env.get(name);
  } catch {
    return name === "CI" ? "true" : undefined;
  }
}
