/**
 * Atomic file replacement: write a temporary file in the same folder, then
 * rename it over the target, so readers see the old or the new content and
 * never a torn one, even if the writer is killed halfway.
 *
 * @module
 */

import { basename, dirname, joinPath, NATIVE } from "../shared/paths.ts";

/**
 * Replaces `path` with `text` atomically. Requires write access to the
 * folder. The temporary file is created exclusively (never through a
 * symlink someone placed there).
 */
export function writeFileAtomic(
  path: string,
  text: string,
): void {
  const random = crypto.getRandomValues(new Uint32Array(1))[0]?.toString(36);
  const temp = joinPath(
    NATIVE,
    dirname(path),
    `.${basename(path)}.${Deno.pid}.${random}.tmp`,
  );
  const file = Deno.openSync(temp, { write: true, createNew: true });
  try {
    try {
      const bytes = new TextEncoder().encode(text);
      let written = 0;
      while (written < bytes.length) {
        written += file.writeSync(bytes.subarray(written));
      }
      // No fsync: the rename alone keeps a killed writer from tearing the
      // file, and after a power cut a torn state file is read as an empty
      // state (one note, never a crash). Syncing cost ~2 ms on every block.
    } finally {
      file.close();
    }
    Deno.renameSync(temp, path);
  } catch (error) {
    try {
      Deno.removeSync(temp);
    } catch {
      // Already gone.
    }
    throw error;
  }
}
