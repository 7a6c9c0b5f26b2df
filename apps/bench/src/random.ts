/** Seeded generator (mulberry32), so every benchmark input can be rebuilt from its recorded seed. */
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

export function randomU32(n: number, seed: number, max = 2 ** 32): Uint32Array {
  const r = mulberry32(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(r() * max);
  return out;
}

export function randomF32(n: number, seed: number, min = -1, max = 1): Float32Array {
  const r = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = min + r() * (max - min);
  return out;
}
