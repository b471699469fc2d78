/**
 * A cross-process lock on a file inside `.claude`, built on `flock`
 * (`LockFileEx` on Windows) through `Deno.FsFile.tryLock`.
 *
 * The kernel releases the lock when a process dies, so a hook killed while
 * holding it never wedges the session. The lock file is opened through
 * {@link openConfined}: a planted symlink, FIFO or hard link is refused, and
 * an existing file's content is never changed.
 *
 * @module
 */

import { ExitCode, StallWatchError } from "../shared/errors.ts";
import { type ConfinedDir, recheckConfinedDir } from "./confine.ts";
import { confinedFile, openConfined } from "./confined_file.ts";

/**
 * The lock could not be taken in time: another stall-watch process of the
 * session held it (exit 1 from commands; the hook allows the stop).
 */
export class LockTimeoutError extends StallWatchError {
  /**
   * @param path The lock file.
   * @param waitedMs How long this process waited.
   */
  constructor(path: string, waitedMs: number) {
    super(
      `Timed out after ${waitedMs} ms waiting for the lock "${path}"`,
      ExitCode.inputError,
    );
    this.name = "LockTimeoutError";
  }
}

/** Options for {@link withFileLock}. */
export interface LockOptions {
  /** Give up after this long. */
  timeoutMs: number;
  sleep: (ms: number) => Promise<void>;
  /**
   * Told when releasing the lock failed after the action finished (the
   * close that follows releases it); without it the failure is ignored.
   */
  onUnlockError?: (error: unknown) => void;
}

/**
 * Runs `action` while holding an exclusive lock on `<dir>/<name>` (created
 * exclusively if missing; its content is never used). Requires write access
 * to `dir`.
 *
 * A failed unlock never changes the action's outcome: the file is closed
 * right after, and closing it releases the lock, so a finished state update
 * stands (under Wine, Windows Deno's unlock fails every time: its second
 * `UnlockFile` call gets a lock violation). `options.onUnlockError` is told.
 *
 * @throws {LockTimeoutError} When another process holds the lock too long.
 * @throws {ConfinementError} When the lock file is not a plain file.
 */
export async function withFileLock<T>(
  dir: ConfinedDir,
  name: string,
  options: LockOptions,
  action: () => T | Promise<T>,
): Promise<T> {
  const path = confinedFile(dir, name);
  const file = openConfined(dir, name, "lock file", {
    access: "lock",
    create: true,
  });
  if (file === null) throw new Error(`Cannot create the lock "${path}"`);
  try {
    let waited = 0;
    let pause = 1;
    while (!file.tryLockSync(true)) {
      if (waited >= options.timeoutMs) {
        throw new LockTimeoutError(path, waited);
      }
      await options.sleep(pause);
      waited += pause;
      pause = Math.min(pause * 2, 16);
    }
    try {
      // The wait may have been long: the folder must still be the one
      // checked before anything is read or written under the lock.
      recheckConfinedDir(dir, "lock file");
      return await action();
    } finally {
      try {
        file.unlockSync();
      } catch (error) {
        options.onUnlockError?.(error);
      }
    }
  } finally {
    file.close();
  }
}
