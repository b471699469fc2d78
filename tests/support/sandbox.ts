/**
 * A project next to an "outside" folder, for end-to-end fault tests that
 * must show a hook run changed nothing but `project/.claude`, and a bounded
 * run that turns a hang into a test failure instead of a stuck suite.
 *
 * @module
 */

import { join } from "node:path";
import {
  type ProcessResult,
  type RunOptions,
  spawnStallWatch,
} from "./hook_process.ts";
import { tempFixture, type TempProject } from "./temp_project.ts";
import { snapshotTree, type TreeSnapshot } from "./tree_snapshot.ts";

/** The folders of one fault test; disposal removes them. */
export interface Sandbox extends TempProject {
  /** Holds `project` and `outside` (the same folder as `dir`). */
  root: string;
  /** The directory the hook starts in. */
  project: string;
  /** A sibling folder the hook must never write to (symlink targets). */
  outside: string;
  /** `project/session.jsonl`. */
  transcript: string;
  /** Everything below `root` except `project/.claude`. */
  snapshotOutsideClaude(): Promise<TreeSnapshot>;
}

/** A fresh sandbox: `await using sandbox = await tempSandbox();`. */
export function tempSandbox(): Promise<Sandbox> {
  return tempFixture(async (root) => {
    const project = join(root, "project");
    const outside = join(root, "outside");
    await Deno.mkdir(project);
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "keep.txt"), "outside data\n");
    return {
      root,
      project,
      outside,
      transcript: join(project, "session.jsonl"),
      snapshotOutsideClaude: () =>
        snapshotTree(
          root,
          (rel) =>
            rel === "project/.claude" || rel.startsWith("project/.claude/"),
        ),
    };
  });
}

/** A run's output, plus how long it took. */
export interface BoundedResult extends ProcessResult {
  elapsedMs: number;
}

/**
 * How long a run may take before it counts as a hang. A guard against a
 * run that never ends, not a speed check (those are `deno task bench`): a
 * loaded CI machine (load 20+ on two cores) takes several seconds for the
 * heaviest hostile inputs, so the bound is far above any real run.
 */
export const HANG_MS = 60_000;

/**
 * Runs stall-watch and fails if it has not exited within `timeoutMs` (it is
 * killed first, so a hang cannot stall the suite).
 */
export async function runBounded(
  options: RunOptions,
  timeoutMs = HANG_MS,
): Promise<BoundedResult> {
  const started = performance.now();
  const running = await spawnStallWatch(options);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([running.finished, timedOut]);
    if (outcome === "timeout") {
      running.kill();
      await running.finished;
      throw new Error(`stall-watch still running after ${timeoutMs} ms`);
    }
    return { ...outcome, elapsedMs: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

/** The non-empty lines of a stream. */
export function linesOf(text: string): string[] {
  return text.split("\n").filter((line) => line !== "");
}
