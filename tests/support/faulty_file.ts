/**
 * A {@link ReadableAt} whose file changes or fails under the reader: what a
 * transcript truncated, deleted or on a failing disk looks like from inside
 * the line readers.
 *
 * @module
 */

import type { ReadableAt } from "../../src/transcript/line_reader.ts";

/** What goes wrong, and after how many successful reads. */
export type FileFault =
  /** The file is cut to `to` bytes (0 = deleted and emptied). */
  | { kind: "shrink"; afterReads: number; to: number }
  /** Every later read fails, like EIO from a dying disk. */
  | { kind: "fail"; afterReads: number; error: Error };

/**
 * A view of `bytes` that suffers `fault` after `fault.afterReads` reads, and
 * returns at most `maxRead` bytes per call (short reads).
 */
export function faultyFile(
  bytes: Uint8Array,
  fault: FileFault,
  maxRead = Infinity,
): ReadableAt {
  let content = bytes;
  let position = 0;
  let reads = 0;
  return {
    read(buffer: Uint8Array): Promise<number | null> {
      if (reads++ >= fault.afterReads) {
        if (fault.kind === "fail") return Promise.reject(fault.error);
        content = content.subarray(0, Math.min(fault.to, content.length));
      }
      if (position >= content.length) return Promise.resolve(null);
      const count = Math.min(buffer.length, content.length - position, maxRead);
      buffer.set(content.subarray(position, position + count));
      position += count;
      return Promise.resolve(count);
    },
    seek(offset: number): Promise<number> {
      position = offset;
      return Promise.resolve(position);
    },
  };
}
