import { InputError } from '@weft/gpu';

/**
 * xoshiro128** (Blackman and Vigna): a small, fast 32-bit generator. Seeded through SplitMix32 from a seed and a
 * stream number, so independent blocks of a generator (one per 2^16 edges) are reproducible on their own.
 */
export class Xoshiro128 {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: number, stream = 0) {
    let x = (Math.imul(seed >>> 0, 0x9e3779b9) ^ Math.imul(stream >>> 0, 0x85ebca6b) ^ 0x6a09e667) >>> 0;
    const next = () => {
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = next();
    this.#b = next();
    this.#c = next();
    this.#d = next() | 1; // never the all-zero state
  }

  /** A uniform u32. */
  next(): number {
    const result = Math.imul(rotl(Math.imul(this.#b, 5), 7), 9) >>> 0;
    const t = this.#b << 9;
    this.#c ^= this.#a;
    this.#d ^= this.#b;
    this.#b ^= this.#c;
    this.#a ^= this.#d;
    this.#c ^= t;
    this.#d = rotl(this.#d, 11);
    return result;
  }

  /** Uniform in [0, 1) with 32 random bits. */
  float(): number {
    return this.next() / 4294967296;
  }

  /** Uniform integer in [0, bound) for bound <= 2^32 (multiply-shift; bias below 2^-32 * bound). */
  below(bound: number): number {
    return Math.floor(this.float() * bound);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** A grid-shaped generator's sides: non-negative integers. */
export function checkDimensions(width: number, height: number): void {
  for (const [k, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(v) || v < 0)
      throw new InputError(`${k} must be a non-negative integer, got ${v}`, k);
  }
}

export function checkSeed(seed: number): void {
  if (!Number.isInteger(seed)) throw new InputError(`seed must be an integer, got ${seed}`, 'seed');
}

/** Parses a generator's `weights` option: `true` is Graph500's [1, 255]. */
export function weightRange(
  weights: boolean | readonly [number, number] | undefined,
): [number, number] | undefined {
  if (weights === undefined || weights === false) return undefined;
  const [lo, hi] = weights === true ? [1, 255] : weights;
  if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 0 || hi < lo || hi > 2 ** 32 - 1) {
    throw new InputError(`weights must be integers 0 <= min <= max < 2^32, got [${lo}, ${hi}]`, 'weights');
  }
  return [lo, hi];
}

/** `count` uniform integer weights in [lo, hi], from their own stream so they do not change the edges. */
export function uniformWeights(count: number, [lo, hi]: [number, number], seed: number): Uint32Array {
  const out = new Uint32Array(count);
  const span = hi - lo + 1;
  const block = 1 << 16;
  for (let start = 0; start < count; start += block) {
    const rng = new Xoshiro128(seed, 0x40000000 + start / block);
    const end = Math.min(count, start + block);
    for (let i = start; i < end; i++) out[i] = lo + rng.below(span);
  }
  return out;
}

/** The edge count `edgeFactor * 2^scale`, checked. */
export function edgeCountFor(scale: number, edgeFactor: number): number {
  if (!Number.isInteger(scale) || scale < 0 || scale > 31) {
    throw new InputError(`scale must be an integer in [0, 31], got ${scale}`, 'scale');
  }
  if (!Number.isInteger(edgeFactor) || edgeFactor < 0) {
    throw new InputError(`edgeFactor must be a non-negative integer, got ${edgeFactor}`, 'edgeFactor');
  }
  const m = edgeFactor * 2 ** scale;
  if (m > 2 ** 31) throw new InputError(`${m} edges exceed the host generators' 2^31 limit`, 'edgeFactor');
  return m;
}
