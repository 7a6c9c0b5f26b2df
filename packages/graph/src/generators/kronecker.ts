import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostEdgeList } from '../host-graph.ts';
import { checkSeed, edgeCountFor, uniformWeights, weightRange, Xoshiro128 } from './random.ts';

export interface KroneckerOptions {
  /** 2^scale vertices. */
  scale: number;
  /** Edges per vertex (default 16, Graph500 and GAP): `edgeFactor * 2^scale` edges before symmetrization. */
  edgeFactor?: number;
  seed: number;
  /** Initiator probabilities (Graph500: 0.57, 0.19, 0.19; d = 1 - a - b - c). */
  a?: number;
  b?: number;
  c?: number;
  /** Integer weights drawn uniformly from [min, max]; `true` is Graph500's [1, 255]. */
  weights?: boolean | readonly [number, number];
  /** Relabel vertices with a random permutation (Graph500 requires it; default true). */
  permute?: boolean;
}

const BLOCK = 1 << 16;

/**
 * A Graph500/GAP Kronecker (R-MAT) graph: each edge picks one quadrant per level with probabilities a, b, c, d
 * (one 32-bit draw per level), then ids are permuted. Self-loops and duplicates stay in the list (the CSR
 * builder drops them); the list is undirected, one entry per edge. Deterministic for a seed: edges are made
 * in blocks of 2^16, each from its own stream.
 */
export function kronecker(options: KroneckerOptions): HostEdgeList {
  checkOptionsObject('kronecker', options, true);
  const { scale, seed } = options;
  const a = options.a ?? 0.57;
  const b = options.b ?? 0.19;
  const c = options.c ?? 0.19;
  checkSeed(seed);
  const m = edgeCountFor(scale, options.edgeFactor ?? 16);
  if (!(a >= 0 && b >= 0 && c >= 0 && a + b + c <= 1)) {
    throw new InputError(`initiator needs a, b, c >= 0 with a + b + c <= 1, got ${a}, ${b}, ${c}`, 'a, b, c');
  }
  const range = weightRange(options.weights);
  const n = 2 ** scale;
  // Thresholds on a u32 draw: below ta -> quadrant a, below tb -> b (target bit), below tc -> c (source bit).
  const ta = a * 2 ** 32;
  const tb = (a + b) * 2 ** 32;
  const tc = (a + b + c) * 2 ** 32;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let start = 0; start < m; start += BLOCK) {
    const rng = new Xoshiro128(seed, start / BLOCK);
    const end = Math.min(m, start + BLOCK);
    for (let e = start; e < end; e++) {
      let u = 0;
      let v = 0;
      for (let level = 0; level < scale; level++) {
        const r = rng.next();
        u <<= 1;
        v <<= 1;
        if (r >= ta) {
          if (r < tb) v |= 1;
          else if (r < tc) u |= 1;
          else {
            u |= 1;
            v |= 1;
          }
        }
      }
      src[e] = u >>> 0;
      dst[e] = v >>> 0;
    }
  }
  if (options.permute ?? true) {
    const perm = randomPermutation(n, seed);
    for (let e = 0; e < m; e++) {
      src[e] = perm[src[e]!]!;
      dst[e] = perm[dst[e]!]!;
    }
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed: false };
  if (range) edges.weights = uniformWeights(m, range, seed);
  return edges;
}

/** A uniformly random permutation of [0, n) (Fisher-Yates) from the seed's own stream. */
export function randomPermutation(n: number, seed: number): Uint32Array {
  const perm = new Uint32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  const rng = new Xoshiro128(seed, 0x7fffffff);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    const t = perm[i]!;
    perm[i] = perm[j]!;
    perm[j] = t;
  }
  return perm;
}
