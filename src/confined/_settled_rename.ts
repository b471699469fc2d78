/**
 * A rename that waits a moment for Windows to let go of its target.
 *
 * Windows answers a rename over a file that another process has open at that
 * instant (a hook reading the state file, a virus scanner, a `stat`) with
 * "access denied" (os error 5) until that handle closes. Seen under Wine
 * with 16 hooks of one session: a hook holding the session lock lost its
 * state save, and with it the nudge, to another hook's read. The handles
 * are short-lived, so a few short pauses settle it; elsewhere a refused
 * rename is a real refusal and fails at once.
 *
 * @module
 */

/** How a {@link settledRename} tries and waits. */
export interface RenamePolicy {
  /** Extra attempts after a refusal that may pass (0: fail at once). */
  retries: number;
  /** Pause between attempts. */
  pauseMs: number;
  rename: (from: string, to: string) => void;
  /** Blocks the thread: the callers are synchronous and hold a lock. */
  sleep: (ms: number) => void;
}

/** Pauses the thread without a timer (the callers are synchronous). */
function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Windows: up to 25 more attempts 4 ms apart (0.1 s at most); elsewhere
 * none.
 */
export const NATIVE_RENAME_POLICY: RenamePolicy = {
  retries: Deno.build.os === "windows" ? 25 : 0,
  pauseMs: 4,
  rename: Deno.renameSync,
  sleep: sleepSync,
};

/**
 * Renames `from` to `to`, trying again after a pause while the refusal is
 * a permission error and attempts remain.
 *
 * @throws The last error, when every attempt was refused or the error is
 * of another kind.
 */
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
