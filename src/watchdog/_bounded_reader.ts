/**
 * A reader that ends, as at the end of the file, after a number of bytes or
 * when told: a look at a growing transcript stays short.
 *
 * @module
 */

import { type ReadableAt, syncReader } from "../transcript/line_reader.ts";

/** A reader that ends after `budget` bytes, or when told. */
export interface BoundedReader extends ReadableAt {
  /** The budget ran out. */
  exhausted: boolean;
  /** The predicate said stop. */
  stopped: boolean;
  bytesRead: number;
}

/** Reads `file` from where it stands, until `budget` or `stopWhen()`. */
export function boundedReader(
  file: Deno.FsFile,
  budget: number,
  stopWhen: () => boolean,
): BoundedReader {
  const inner = syncReader(file);
  const reader: BoundedReader = {
    exhausted: false,
    stopped: false,
    bytesRead: 0,
    read(buffer) {
      reader.exhausted = reader.bytesRead >= budget;
      reader.stopped = !reader.exhausted && stopWhen();
      if (reader.exhausted || reader.stopped) return Promise.resolve(null);
      const room = Math.min(buffer.length, budget - reader.bytesRead);
      const read = file.readSync(buffer.subarray(0, room));
      if (read !== null) reader.bytesRead += read;
      return Promise.resolve(read);
    },
    seek: inner.seek,
  };
  return reader;
}
