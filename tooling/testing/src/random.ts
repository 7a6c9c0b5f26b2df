/** A small seeded generator (mulberry32): deterministic inputs so a failing case can be replayed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `n` u32 values below `max` (default: the whole u32 range). */
export function randomU32(n: number, seed: number, max = 2 ** 32): Uint32Array {
  const r = mulberry32(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * max);
  return out;
}

/** The ids 0..n-1 in a seeded random order (Fisher-Yates). */
export function randomPermutation(n: number, seed: number): Uint32Array {
  const r = mulberry32(seed);
  const ids = Uint32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids;
}

/** `n` i32 values in [min, max). */
export function randomI32(n: number, seed: number, min = -(2 ** 31), max = 2 ** 31): Int32Array {
  const r = mulberry32(seed);
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(min + r() * (max - min));
  return out;
}

/** `n` f32 values in [min, max). */
export function randomF32(n: number, seed: number, min = -1, max = 1): Float32Array {
  const r = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = min + r() * (max - min);
  return out;
}

/**
 * Sizes that break tiled kernels: empty, one, every tile boundary +-1, and a few odd sizes.
 * `tiles` are the tile sizes of the kernel under test (e.g. workgroup size, items per workgroup).
 */
export function adversarialSizes(tiles: readonly number[], extra: readonly number[] = []): number[] {
  const s = new Set<number>([0, 1, 2, 3, 31, 33, 1000]);
  for (const t of tiles) for (const k of [1, 2, 3]) for (const d of [-1, 0, 1]) s.add(k * t + d);
  for (const e of extra) s.add(e);
  return [...s].filter((x) => x >= 0).sort((a, b) => a - b);
}

/** Power-law segment lengths (a few huge, many empty or tiny) summing to about `total`. */
export function skewedLengths(segments: number, total: number, seed: number): Uint32Array {
  const r = mulberry32(seed);
  const w = new Float64Array(segments);
  let sum = 0;
  for (let i = 0; i < segments; i++) {
    const x = r();
    w[i] = x < 0.3 ? 0 : 1 / (1 - x) ** 2;
    sum += w[i]!;
  }
  const out = new Uint32Array(segments);
  for (let i = 0; i < segments; i++) out[i] = sum > 0 ? Math.floor((w[i]! / sum) * total) : 0;
  return out;
}
