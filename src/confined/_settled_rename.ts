/**
 * A rename that waits a moment on Windows, where one over a file another
 * process has open is "access denied" until it closes (16 hooks under Wine
 * lost a state save so).
 *
 * @module
 */

/** How a {@link settledRename} tries and waits. */
export interface RenamePolicy {
  /** Extra attempts after a refusal that may pass (0: fail at once). */
  retries: number;
  pauseMs: number;
  rename: (from: string, to: string) => void;
  /** Blocks the thread: the callers are synchronous and hold a lock. */
  sleep: (ms: number) => void;
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Windows: up to 25 more attempts 4 ms apart (0.1 s at most); elsewhere none. */
export const NATIVE_RENAME_POLICY: RenamePolicy = {
  retries: Deno.build.os === "windows" ? 25 : 0,
  pauseMs: 4,
  rename: Deno.renameSync,
  sleep: sleepSync,
};

/** Renames `from` to `to`, again after a pause while refused for permission. */
export function settledRename(
  from: string,
  to: string,
  policy: RenamePolicy = NATIVE_RENAME_POLICY,
): void {
  for (let attempt = 0;; attempt++) {
    try {
      policy.rename(from, to);
      return;
    } catch (error) {
      const transient = error instanceof Deno.errors.PermissionDenied;
      if (!transient || attempt >= policy.retries) throw error;
      policy.sleep(policy.pauseMs);
    }
  }
}
