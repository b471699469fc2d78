/**
 * An in-memory {@link ReadableAt}, so reader tests need no files and can
 * inject short reads.
 *
 * @module
 */

import type { ReadableAt } from "../../src/transcript/line_reader.ts";

/** A readable, seekable view of `bytes` that returns at most `maxRead` per call. */
export function memoryFile(bytes: Uint8Array, maxRead = Infinity): ReadableAt {
  let position = 0;
  return {
    read(buffer: Uint8Array): Promise<number | null> {
      if (position >= bytes.length) return Promise.resolve(null);
      const count = Math.min(buffer.length, bytes.length - position, maxRead);
      buffer.set(bytes.subarray(position, position + count));
      position += count;
      return Promise.resolve(count);
    },
    seek(offset: number): Promise<number> {
      position = offset;
      return Promise.resolve(position);
    },
  };
}

const encoder = new TextEncoder();

/** UTF-8 bytes of `text`. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
