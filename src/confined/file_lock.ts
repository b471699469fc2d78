/**
 * A cross-process lock on a confined file (`flock`, `LockFileEx` on
 * Windows): the kernel releases it when a process dies, so a killed hook
 * never wedges the session.
 *
 * @module
 */

import { ExitCode, StallWatchError } from "../shared/errors.ts";
import { type ConfinedDir, recheckConfinedDir } from "./confine.ts";
import { confinedFile } from "./confined_file.ts";
import { openChecked } from "./_plain_file.ts";

/** Another process of the session held the lock too long (exit 1; the hook allows). */
export class LockTimeoutError extends StallWatchError {
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
  timeoutMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Told when an unlock failed (the close that follows releases it). */
  onUnlockError?: (error: unknown) => void;
}

/**
 * Runs `action` holding an exclusive lock on `<dir>/<name>` (created when
 * missing, its content unused). A failed unlock never changes the outcome:
 * closing the file releases it (Wine's unlock fails every time).
 */
export async function withFileLock<T>(
  dir: ConfinedDir,
  name: string,
  options: LockOptions,
  action: () => T | Promise<T>,
): Promise<T> {
  const path = confinedFile(dir, name);
  const what = "lock file";
  const file = openChecked(path, what, { access: "lock", create: true }, dir);
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
      // After a wait, the folder must still be the one checked.
      recheckConfinedDir(dir, what);
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
