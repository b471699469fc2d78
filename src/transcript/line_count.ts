/**
 * Byte offsets to 1-based line numbers, in one budgeted pass (only on the
 * block path). A long pass counts `\n` with a 16-byte WebAssembly SIMD loop,
 * about `wc -l`'s speed (an `indexOf` loop runs at a third).
 *
 * @module
 */

import type { ReadableAt } from "./line_reader.ts";

const NEWLINE = 0x0a;

// A pass this long counts with WebAssembly SIMD; a shorter one with
// `indexOf`, without WebAssembly's few MiB of memory.
const SIMD_FROM_BYTES = 64 * 1024 * 1024;
// 256 KiB reads: fewer calls than 64 KiB, and faster than 1 MiB ones (the
// copy out of the page cache stays in the CPU's cache).
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

const PAGE_BYTES = 64 * 1024;

/**
 * A counter over a buffer of `bytes` bytes (rounded up to 16), the largest
 * chunk read; `simd: false` counts with `indexOf` (WebAssembly costs about
 * 4 MiB, worth it only for a long pass, and where it is missing).
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
const SIMD = 0xfd;
const get = 0x20, set = 0x21, tee = 0x22;
const AT = 0, N = 1, END = 2, STOP = 3, ACC = 4, SUM = 5, NL = 6;

function leb128(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return out;
}

function section(id: number, content: number[]): number[] {
  return [id, ...leb128(content.length), ...content];
}

function name(text: string): number[] {
  return [text.length, ...[...text].map((c) => c.charCodeAt(0))];
}

/** The module's bytes, built on first use. */

function countModule(): Uint8Array<ArrayBuffer> {
  const body = [
    ...[2, 2, 0x7f, 3, 0x7b], // locals: 2 x i32, 3 x v128
    ...[get, AT, get, N, 0x6a, set, END],
    ...[0x41, 10, SIMD, 0x0f, set, NL],
    ...[0x02, 0x40, 0x03, 0x40], // block $done, loop $blocks
    ...[get, AT, get, END, 0x4f, 0x0d, 1],
    ...[get, AT, 0x41, 0xf0, 0x1f, 0x6a, tee, STOP, get, END],
    ...[get, STOP, get, END, 0x49, 0x1b, set, STOP],
    ...[SIMD, 0x0c, ...new Array<number>(16).fill(0), set, ACC],
    ...[0x03, 0x40], // loop $vectors
    ...[get, ACC, get, AT, SIMD, 0x00, 0x00, 0x00, get, NL, SIMD, 0x23],
    ...[SIMD, 0x71, set, ACC],
    ...[get, AT, 0x41, 16, 0x6a, tee, AT, get, STOP, 0x49, 0x0d, 0],
    0x0b, // end $vectors
    ...[get, SUM, get, ACC, SIMD, 0x7d, SIMD, 0x7f, SIMD, 0xae, 0x01, set, SUM],
    ...[0x0c, 0, 0x0b, 0x0b], // br $blocks, end, end
    ...[get, SUM, SIMD, 0x1b, 0, get, SUM, SIMD, 0x1b, 1, 0x6a],
    ...[get, SUM, SIMD, 0x1b, 2, get, SUM, SIMD, 0x1b, 3, 0x6a, 0x6a],
    0x0b,
  ];

  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0], // "\0asm", version 1
    ...section(1, [1, 0x60, 2, 0x7f, 0x7f, 1, 0x7f]), // (i32, i32) -> i32
    ...section(2, [1, ...name("env"), ...name("memory"), 0x02, 0, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("count"), 0, 0]),
    ...section(10, [1, ...leb128(body.length), ...body]),
  ]);
}
