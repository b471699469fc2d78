/**
 * Turns byte offsets into 1-based line numbers.
 *
 * This costs one pass over the file up to the last offset, so the hook pays
 * it only on the rare block path, where a jump-to-line pointer is worth it.
 *
 * @module
 */

import type { ReadableAt } from "./line_reader.ts";

const NEWLINE = 0x0a;
// 256 KiB: large enough to amortise read calls over a 1 GB file, small
// enough that the first read of a small file does not fault in 1 MiB.
const CHUNK_BYTES = 256 * 1024;

/**
 * Maps each byte offset of a line start to its 1-based line number.
 *
 * @param file An open file (needs `--allow-read`).
 * @param offsets Offsets of line starts, in any order.
 * @returns A map from offset to line number.
 */
export async function lineNumbersAt(
  file: ReadableAt,
  offsets: readonly number[],
): Promise<Map<number, number>> {
  const wanted = [...new Set(offsets)].sort((a, b) => a - b);
  const numbers = new Map<number, number>();
  if (wanted.length === 0) return numbers;
  await file.seek(0, Deno.SeekMode.Start);
  const buffer = new Uint8Array(CHUNK_BYTES);
  let position = 0; // file offset of buffer[0]
  let newlines = 0; // newlines strictly before `position`
  let next = 0; // index into `wanted`
  while (next < wanted.length) {
    const read = await file.read(buffer);
    if (read === null || read === 0) break;
    const end = position + read;
    // Offsets inside this chunk: count the newlines before each one.
    let counted = newlines;
    let scanFrom = 0;
    while (next < wanted.length && (wanted[next] as number) < end) {
      const target = (wanted[next] as number) - position;
      counted += countNewlines(buffer, scanFrom, target);
      scanFrom = target;
      numbers.set(wanted[next] as number, counted + 1);
      next++;
    }
    newlines = counted + countNewlines(buffer, scanFrom, read);
    position = end;
  }
  for (; next < wanted.length; next++) {
    numbers.set(wanted[next] as number, newlines + 1);
  }
  return numbers;
}

function countNewlines(bytes: Uint8Array, from: number, to: number): number {
  const range = bytes.subarray(0, to);
  let count = 0;
  for (
    let at = range.indexOf(NEWLINE, from);
    at >= 0;
    at = range.indexOf(NEWLINE, at + 1)
  ) {
    count++;
  }
  return count;
}
