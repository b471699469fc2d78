/**
 * The pieces of a line that spans reads: joined, or cut to their first or
 * last bytes, copying only what is kept.
 *
 * @module
 */

/** No bytes. */
export const EMPTY: Uint8Array = new Uint8Array(0);

/** The last `count` bytes, as a view. */
export function lastBytes(bytes: Uint8Array, count: number): Uint8Array {
  return bytes.length <= count ? bytes : bytes.subarray(bytes.length - count);
}

/** The first `count` bytes of pieces in file order, copying only those. */
export function firstOf(pieces: Uint8Array[], count: number): Uint8Array {
  const first = pieces[0] ?? EMPTY;
  if (first.length >= count || pieces.length === 1) {
    return first.subarray(0, count);
  }
  const total = pieces.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(Math.min(count, total));
  let at = 0;
  for (const piece of pieces) {
    if (at >= out.length) break;
    const take = piece.subarray(0, out.length - at);
    out.set(take, at);
    at += take.length;
  }
  return out;
}

/** The last `count` bytes of pieces in file order, copying only those. */
export function lastOf(pieces: Uint8Array[], count: number): Uint8Array {
  const last = pieces.at(-1) ?? EMPTY;
  if (last.length >= count || pieces.length === 1) {
    return lastBytes(last, count);
  }
  const total = pieces.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(Math.min(count, total));
  let at = out.length;
  for (let i = pieces.length - 1; i >= 0 && at > 0; i--) {
    const piece = pieces[i] as Uint8Array;
    const take = piece.subarray(Math.max(0, piece.length - at));
    at -= take.length;
    out.set(take, at);
  }
  return out;
}

/** Joins pieces in file order. */
export function concat(pieces: Uint8Array[]): Uint8Array {
  if (pieces.length === 1) return pieces[0] as Uint8Array;
  const out = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** The first bytes of `left` then `right` (not sharing `out`) copied into `out`. */
export function leftmostInto(
  out: Uint8Array,
  left: Uint8Array,
  right: Uint8Array,
): Uint8Array {
  const size = Math.min(out.length, left.length + right.length);
  const fromLeft = Math.min(size, left.length);
  out.set(left.subarray(0, fromLeft), 0);
  out.set(right.subarray(0, size - fromLeft), fromLeft);
  return out.subarray(0, size);
}
