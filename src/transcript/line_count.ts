/**
 * Byte offsets to 1-based line numbers, in one budgeted pass (only on the
 * block path). A long pass counts `\n` with a 16-byte WebAssembly SIMD loop,
 * about `wc -l`'s speed (an `indexOf` loop runs at a third).
 *
 * @module
 */

import type { ReadableAt } from "./line_reader.ts";

const NEWLINE = 0x0a;

// A shorter pass counts with `indexOf`, without WebAssembly's few MiB.
const SIMD_FROM_BYTES = 64 * 1024 * 1024;
// Fewer calls than 64 KiB reads; faster than 1 MiB ones (stays in CPU cache).
const CHUNK_BYTES = 256 * 1024;

/** The pass's default budget: 2 GiB, about a quarter of a second here. */
const DEFAULT_LINE_COUNT_BUDGET_BYTES = 2 * 1024 * 1024 * 1024;

interface LineCountOptions {
  /** Read at most this many bytes from the start of the file. */
  budgetBytes?: number;
  /** Count with SIMD from this pass length (64 MiB). */
  simdFromBytes?: number;
}

/**
 * Maps each byte offset of a line start (in any order) to its 1-based line
 * number; offsets past the budget are left out. Requires `--allow-read`.
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

/** A read buffer whose newlines can be counted. */
interface NewlineCounter {
  readonly buffer: Uint8Array;
  /** Newlines in `buffer[from, to)`. */
  count(from: number, to: number): number;
}

const PAGE_BYTES = 64 * 1024; // WebAssembly's

/**
 * A counter over a buffer of `bytes` bytes (rounded up to 16), the largest
 * chunk read; `simd: false`, or no WebAssembly SIMD here: with `indexOf`.
 */
export function newlineCounter(
  bytes: number,
  options: { simd?: boolean } = {},
): NewlineCounter {
  const size = Math.ceil(bytes / 16) * 16;
  const simd = options.simd === false ? null : simdCounter(size);
  if (simd) return simd;
  const buffer = new Uint8Array(size);
  return { buffer, count: (from, to) => countWithIndexOf(buffer, from, to) };
}

/** The `indexOf` loop: one native call per newline found. */
export function countWithIndexOf(
  bytes: Uint8Array,
  from: number,
  to: number,
): number {
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

function simdCounter(size: number): NewlineCounter | null {
  let memory: WebAssembly.Memory;
  let wasmCount: (at: number, n: number) => number;
  try {
    memory = new WebAssembly.Memory({ initial: Math.ceil(size / PAGE_BYTES) });
    const instance = new WebAssembly.Instance(
      new WebAssembly.Module(countModule()),
      { env: { memory } },
    );
    wasmCount = instance.exports.count as typeof wasmCount;
  } catch {
    return null; // no WebAssembly SIMD here
  }
  const buffer = new Uint8Array(memory.buffer, 0, size);
  return {
    buffer,
    count(from, to) {
      if (to <= from) return 0;
      const whole = (to - from) & ~15;
      // The loop takes 16-byte blocks; the last few bytes are counted here.
      let count = wasmCount(from, whole) >>> 0;
      for (let i = from + whole; i < to; i++) {
        if (buffer[i] === NEWLINE) count++;
      }
      return count;
    },
  };
}

/*
 * The module, in text form:
 *
 * (module
 *   (memory (import "env" "memory") 1)
 *   ;; Newlines in [at, at + n); n is a multiple of 16.
 *   (func (export "count") (param $at i32) (param $n i32) (result i32)
 *     (local $end i32) (local $stop i32) (local $acc v128) (local $sum v128)
 *     (local $nl v128)
 *     (local.set $end (i32.add (local.get $at) (local.get $n)))
 *     (local.set $nl (i8x16.splat (i32.const 10)))
 *     (block $done
 *       (loop $blocks
 *         (br_if $done (i32.ge_u (local.get $at) (local.get $end)))
 *         ;; At most 255 vectors per block, so no byte lane overflows.
 *         (local.set $stop (select (local.tee $stop
 *             (i32.add (local.get $at) (i32.const 4080)))
 *           (local.get $end) (i32.lt_u (local.get $stop) (local.get $end))))
 *         (local.set $acc (v128.const i64x2 0 0))
 *         (loop $vectors
 *           ;; A match is all ones (-1): subtracting it adds one per lane.
 *           (local.set $acc (i8x16.sub (local.get $acc)
 *             (i8x16.eq (v128.load (local.get $at)) (local.get $nl))))
 *           (br_if $vectors (i32.lt_u
 *             (local.tee $at (i32.add (local.get $at) (i32.const 16)))
 *             (local.get $stop))))
 *         (local.set $sum (i32x4.add (local.get $sum)
 *           (i32x4.extadd_pairwise_i16x8_u
 *             (i16x8.extadd_pairwise_i8x16_u (local.get $acc)))))
 *         (br $blocks)))
 *     (i32.add (i32.add (i32x4.extract_lane 0 (local.get $sum))
 *                       (i32x4.extract_lane 1 (local.get $sum)))
 *              (i32.add (i32x4.extract_lane 2 (local.get $sum))
 *                       (i32x4.extract_lane 3 (local.get $sum))))))
 */
/** The module above, assembled (194 bytes, base64). */
const COUNT_MODULE_BASE64 =
  "AGFzbQEAAAABBwFgAn9/AX8CDwEDZW52Bm1lbW9yeQIAAQMCAQAHCQEFY291bnQA" +
  "AAqOAQGLAQICfwN7IAAgAWohAkEK/Q8hBgJAA0AgACACTw0BIABB8B9qIgMgAiAD" +
  "IAJJGyED/QwAAAAAAAAAAAAAAAAAAAAAIQQDQCAEIAD9AAAAIAb9I/1xIQQgAEEQ" +
  "aiIAIANJDQALIAUgBP19/X/9rgEhBQwACwsgBf0bACAF/RsBaiAF/RsCIAX9GwNq" +
  "ags=";

function countModule(): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(COUNT_MODULE_BASE64), (c) => c.charCodeAt(0));
}
