/**
 * A small seeded pseudo-random generator (mulberry32) with the helpers the
 * transcript generator needs: ranges, choices and Claude-Code-shaped ids.
 *
 * Everything the generator emits is derived from one of these, so the same
 * seed always yields the same bytes.
 *
 * @module
 */

const HEX: readonly string[] = Array.from(
  { length: 256 },
  (_, i) => i.toString(16).padStart(2, "0"),
);
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Deterministic 32-bit PRNG (mulberry32): same seed, same sequence. */
export class Rng {
  #state: number;

  /** Creates a generator; `seed` is reduced to an unsigned 32-bit integer. */
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** Returns the next unsigned 32-bit integer. */
  u32(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Returns a float in [0, 1). */
  float(): number {
    return this.u32() / 4294967296;
  }

  /** Returns an integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.float() * (max - min + 1));
  }

  /** Returns true with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** Returns one element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.float() * items.length)] as T;
  }

  /** Returns a key of `weights`, chosen with probability proportional to its value. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const keys = Object.keys(weights) as K[];
    let total = 0;
    for (const k of keys) total += weights[k];
    let x = this.float() * total;
    for (const k of keys) {
      x -= weights[k];
      if (x < 0) return k;
    }
    return keys[keys.length - 1] as K;
  }

  /** Shuffles `items` in place (Fisher-Yates) and returns it. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [items[i], items[j]] = [items[j] as T, items[i] as T];
    }
    return items;
  }

  /** Derives an independent generator, so adding draws here does not shift it. */
  fork(): Rng {
    return new Rng(this.u32() ^ 0x9e3779b9);
  }

  /** Returns `bytes` random bytes as lowercase hex. */
  hex(bytes: number): string {
    let s = "";
    for (let i = 0; i < bytes; i++) s += HEX[this.u32() & 0xff];
    return s;
  }

  /** Returns `length` random characters of [0-9A-Za-z]. */
  base62(length: number): string {
    let s = "";
    for (let i = 0; i < length; i++) s += BASE62[this.u32() % 62];
    return s;
  }

  /** Returns a random RFC 4122 version-4 UUID string. */
  uuid(): string {
    const h = this.hex(16);
    const variant = "89ab"[this.u32() & 3] as string;
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${
      h.slice(17, 20)
    }-${h.slice(20, 32)}`;
  }
}
