/**
 * Turns byte offsets into 1-based line numbers.
 *
 * This costs one pass over the file up to the last offset, so the hook pays
 * it only on the rare block path, where a jump-to-line pointer is worth it.
 * A long pass counts with WebAssembly SIMD (`_newline_count.ts`), about as
 * fast as `wc -l`, and every pass stops at a byte budget: offsets beyond it
 * stay unnumbered.
 *
 * @module
 */

import type { ReadableAt } from "./line_reader.ts";
import { newlineCounter } from "./_newline_count.ts";

// A pass this long counts with WebAssembly SIMD; a shorter one with
// `indexOf`, without WebAssembly's few MiB of memory.
const SIMD_FROM_BYTES = 64 * 1024 * 1024;
// 256 KiB reads: fewer calls than 64 KiB, and faster than 1 MiB ones (the
// copy out of the page cache stays in the CPU's cache).
const CHUNK_BYTES = 256 * 1024;

/**
 * Default budget of the pass: 2 GiB, about a quarter of a second here. A
 * stall beyond it is reported by byte offset instead of line number.
 */
export const DEFAULT_LINE_COUNT_BUDGET_BYTES = 2 * 1024 * 1024 * 1024;

/** Options of {@link lineNumbersAt}. */
export interface LineCountOptions {
  /** Read at most this many bytes from the start of the file. */
  budgetBytes?: number;
  /** Count with SIMD when the pass is at least this long (64 MiB). */
  simdFromBytes?: number;
}

/**
 * Maps each byte offset of a line start to its 1-based line number.
 *
 * @param file An open file (needs `--allow-read`).
 * @param offsets Offsets of line starts, in any order.
 * @returns A map from offset to line number; offsets past the budget are
 * missing from it.
 */
export async function lineNumbersAt(
  file: ReadableAt,
  offsets: readonly number[],
  options: LineCountOptions = {},
): Promise<Map<number, number>> {
  const budget = options.budgetBytes ?? DEFAULT_LINE_COUNT_BUDGET_BYTES;
  const wanted = [...new Set(offsets)].filter((o) => o <= budget).sort((a, b) =>
    a - b
  );
  const numbers = new Map<number, number>();
  if (wanted.length === 0) return numbers;
  await file.seek(0, Deno.SeekMode.Start);
  const simd = (wanted.at(-1) as number) >=
    (options.simdFromBytes ?? SIMD_FROM_BYTES);
  const counter = newlineCounter(CHUNK_BYTES, { simd });
  const buffer = counter.buffer.subarray(0, CHUNK_BYTES);
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
      counted += counter.count(scanFrom, target);
      scanFrom = target;
      numbers.set(wanted[next] as number, counted + 1);
      next++;
    }
    newlines = counted + counter.count(scanFrom, read);
    position = end;
  }
  for (; next < wanted.length; next++) {
    numbers.set(wanted[next] as number, newlines + 1);
  }
  return numbers;
}
