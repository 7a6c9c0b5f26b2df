import { checkOptionsObject } from '@weft/gpu';
import type { HostEdgeList } from '../host-graph.ts';
import { checkSeed, edgeCountFor, uniformWeights, weightRange, Xoshiro128 } from './random.ts';

export interface UniformRandomOptions {
  /** 2^scale vertices. */
  scale: number;
  /** Edges per vertex (default 16): `edgeFactor * 2^scale` edges before symmetrization. */
  edgeFactor?: number;
  seed: number;
  /** Integer weights drawn uniformly from [min, max]; `true` is [1, 255]. */
  weights?: boolean | readonly [number, number];
}

/** GAP's `-u` graph (Erdős–Rényi-like): both endpoints of every edge uniform over the vertices; undirected. */
export function uniformRandom(options: UniformRandomOptions): HostEdgeList {
  checkOptionsObject('uniformRandom', options, true);
  const { scale, seed } = options;
  checkSeed(seed);
  const m = edgeCountFor(scale, options.edgeFactor ?? 16);
  const range = weightRange(options.weights);
  const n = 2 ** scale;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  const block = 1 << 16;
  for (let start = 0; start < m; start += block) {
    const rng = new Xoshiro128(seed, start / block);
    const end = Math.min(m, start + block);
    for (let e = start; e < end; e++) {
      src[e] = rng.below(n);
      dst[e] = rng.below(n);
    }
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed: false };
  if (range) edges.weights = uniformWeights(m, range, seed);
  return edges;
}
