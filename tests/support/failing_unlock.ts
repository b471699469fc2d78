/**
 * Locks that will not unlock, as Windows Deno's do under Wine (its second
 * `UnlockFile` call is answered with a lock violation): every
 * `Deno.FsFile.unlockSync` throws, and the lock stays until the file is
 * closed, the worse of the two ways a real unlock can fail.
 *
 * @module
 */

/** The error Windows Deno throws under Wine. */
export const LOCK_VIOLATION = "Lock violation. (os error 33)";

/**
 * Makes every `unlockSync` fail until disposed:
 * `using _ = failingUnlock();`. Counts the failed calls.
 */
export function failingUnlock(): Disposable & { calls: number } {
  const proto = Deno.FsFile.prototype;
  const original = proto.unlockSync;
  const patch = {
    calls: 0,
    [Symbol.dispose]() {
      proto.unlockSync = original;
    },
  };
  proto.unlockSync = function () {
    patch.calls++;
    throw new Error(LOCK_VIOLATION);
  };
  return patch;
}
