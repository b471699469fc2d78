/**
 * A synchronous buffered file writer that takes strings and byte slices and
 * writes them out in large chunks, so a 1 GB file is written with a few
 * hundred system calls and never held in memory.
 *
 * @module
 */

const DEFAULT_CHUNK = 8 << 20;

/** Buffers UTF-8 output and writes it to a file in large chunks. */
export class ChunkWriter {
  #file: Deno.FsFile;
  #buf: Uint8Array;
  #used = 0;
  #total = 0;
  #encoder = new TextEncoder();

  /** Wraps an open, writable file; `chunkSize` is the buffer size in bytes. */
  constructor(file: Deno.FsFile, chunkSize = DEFAULT_CHUNK) {
    this.#file = file;
    this.#buf = new Uint8Array(chunkSize);
  }

  /** Bytes written so far, buffered ones included. */
  get bytes(): number {
    return this.#total;
  }

  /** Appends `text` encoded as UTF-8. */
  text(text: string): void {
    const worst = text.length * 3;
    if (worst > this.#buf.length) {
      this.raw(this.#encoder.encode(text));
      return;
    }
    if (this.#used + worst > this.#buf.length) this.flush();
    const { written } = this.#encoder.encodeInto(
      text,
      this.#buf.subarray(this.#used),
    );
    this.#used += written;
    this.#total += written;
  }

  /** Appends raw bytes (copied into the buffer, or written directly if large). */
  raw(bytes: Uint8Array): void {
    if (this.#used + bytes.length > this.#buf.length) this.flush();
    if (bytes.length > this.#buf.length) {
      this.#writeAll(bytes);
    } else {
      this.#buf.set(bytes, this.#used);
      this.#used += bytes.length;
    }
    this.#total += bytes.length;
  }

  /** Writes out whatever is buffered. */
  flush(): void {
    if (this.#used === 0) return;
    this.#writeAll(this.#buf.subarray(0, this.#used));
    this.#used = 0;
  }

  /** Flushes and closes the underlying file. */
  close(): void {
    this.flush();
    this.#file.close();
  }

  #writeAll(bytes: Uint8Array): void {
    let off = 0;
    while (off < bytes.length) {
      off += this.#file.writeSync(bytes.subarray(off));
    }
  }
}
