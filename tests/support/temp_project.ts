/**
 * Temporary folders that remove themselves. A test writes
 *
 * ```ts
 * await using project = await tempProject();
 * ```
 *
 * and the folder is gone when the test's block ends, however it ends.
 * Fixtures that build more than a folder (a sandbox, a doctor set-up) are
 * made with {@link tempFixture}, so every one disposes the same way.
 *
 * @module
 */

import { join } from "node:path";

/** A temporary folder, removed when its `await using` binding goes out of scope. */
export interface TempProject extends AsyncDisposable {
  /** Its real path (no symlink on the way, e.g. macOS's /var). */
  readonly dir: string;
  /**
   * Removes it now, like disposal does; for scripts that cannot use
   * `await using`. Never throws, and a second call does nothing.
   */
  cleanup(): Promise<void>;
}

/** A fresh temporary folder; see {@link TempProject}. */
export function tempProject(
  prefix = "stall-watch-test-",
): Promise<TempProject> {
  return tempFixture(() => ({}), prefix);
}

/**
 * Makes a temporary folder, lets `build` fill it, and returns what `build`
 * returned, disposable: disposal removes the folder. If `build` throws, the
 * folder is removed at once and the error passes on.
 */
export async function tempFixture<T extends object>(
  build: (dir: string) => T | Promise<T>,
  prefix = "stall-watch-test-",
): Promise<T & TempProject> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  const cleanup = () => removeTree(dir);
  let built: T;
  try {
    built = await build(dir);
  } catch (error) {
    await cleanup();
    throw error;
  }
  return Object.assign(built, {
    dir,
    cleanup,
    [Symbol.asyncDispose]: cleanup,
  });
}

/** A transcript file alone in a temporary folder. */
export interface TempTranscript extends TempProject {
  /** The transcript's absolute path. */
  readonly path: string;
}

/** Writes `text` as `<temp folder>/<name>`; disposal removes the folder. */
export function tempTranscript(
  text: string,
  name = "session.jsonl",
): Promise<TempTranscript> {
  return tempFixture(async (dir) => {
    const path = join(dir, name);
    await Deno.writeTextFile(path, text);
    return { path };
  });
}

/**
 * Removes `path` and everything below it, read-only folders included
 * (a test may leave some behind). It never throws, so a failing clean-up
 * cannot take the place of the test's own failure: what it cannot remove
 * is named in one warning line instead.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
    return;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
  }
  try {
    await makeFoldersWritable(path);
    await Deno.remove(path, { recursive: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    console.warn(`test clean-up: ${path} left behind: ${error}`);
  }
}

/** Gives every folder below `dir` (symlinks not followed) its owner's write bit. */
async function makeFoldersWritable(dir: string): Promise<void> {
  const info = await Deno.lstat(dir);
  if (!info.isDirectory) return;
  await Deno.chmod(dir, (info.mode ?? 0o755) | 0o700);
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) await makeFoldersWritable(join(dir, entry.name));
  }
}
