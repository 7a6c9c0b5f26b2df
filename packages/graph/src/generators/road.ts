import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostEdgeList } from '../host-graph.ts';
import { checkDimensions, checkSeed, uniformWeights, weightRange, Xoshiro128 } from './random.ts';

export interface RoadOptions {
  width: number;
  height: number;
  /**
   * Fraction of the grid edges off the spanning tree that stay (default 0.3): the mean degree is about
   * 2 + 2 x keep, road networks' 2.5 to 2.8 at the default.
   */
  keep?: number;
  /** Fraction of grid cells that get one diagonal, where both ends still have degree below 4 (default 0.02). */
  diagonals?: number;
  /** Integer weights uniform in [min, max] (`true` = [1, 255]), drawn from their own stream of `seed`. */
  weights?: boolean | readonly [number, number];
  seed: number;
}

// Streams of the seed: each choice draws from its own, so changing one option leaves the others' draws alone.
const TREE_STREAM = 1;
const KEEP_STREAM = 2;
const DIAGONAL_STREAM = 3;

/**
 * A road-like graph: a width x height grid (vertex `y * width + x`) thinned to a random spanning tree plus a
 * seeded fraction of its other edges, with a few diagonal shortcuts. Connected, planar (at most one
 * diagonal per cell), degrees 1 to 4 (dead ends have 1), and as long as the grid or longer: every edge moves
 * at most one step along each axis, so the diameter is at least max(width, height) - 1 hops. Undirected,
 * each edge listed once; deterministic for a seed.
 */
export function road(options: RoadOptions): HostEdgeList {
  checkOptionsObject('road', options, true);
  const { width, height, seed } = options;
  checkDimensions(width, height);
  checkSeed(seed);
  const keep = options.keep ?? 0.3;
  const diagonals = options.diagonals ?? 0.02;
  for (const [k, v] of [
    ['keep', keep],
    ['diagonals', diagonals],
  ] as const) {
    if (!(v >= 0 && v <= 1)) throw new InputError(`${k} must be a fraction in [0, 1], got ${v}`, k);
  }
  const n = width * height;
  if (n > 2 ** 31) throw new InputError(`${n} vertices exceed the generators' 2^31 limit`, 'width');

  // Grid edge 2v goes right from v, 2v + 1 down. A random spanning tree: Kruskal over a shuffled order.
  const gridEdges = width === 0 || height === 0 ? 0 : (width - 1) * height + width * (height - 1);
  const candidates = new Uint32Array(gridEdges);
  let c = 0;
  for (let v = 0; v < n; v++) {
    if ((v % width) + 1 < width) candidates[c++] = 2 * v;
    if (v + width < n) candidates[c++] = 2 * v + 1;
  }
  const order = candidates.slice();
  const shuffle = new Xoshiro128(seed, TREE_STREAM);
  for (let i = order.length - 1; i > 0; i--) {
    const j = shuffle.below(i + 1);
    const t = order[i]!;
    order[i] = order[j]!;
    order[j] = t;
  }
  const parent = new Uint32Array(n);
  for (let v = 0; v < n; v++) parent[v] = v;
  const find = (v: number): number => {
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]!]!;
      v = parent[v]!;
    }
    return v;
  };
  const far = (e: number) => (e & 1 ? (e >>> 1) + width : (e >>> 1) + 1);
  const inTree = new Uint8Array(2 * n);
  for (const e of order) {
    const a = find(e >>> 1);
    const b = find(far(e));
    if (a !== b) {
      parent[a] = b;
      inTree[e] = 1;
    }
  }

  // In vertex order: tree edges, a seeded fraction of the rest.
  const degree = new Uint8Array(n);
  const most = gridEdges + Math.max(0, width - 1) * Math.max(0, height - 1);
  const src = new Uint32Array(most);
  const dst = new Uint32Array(most);
  let m = 0;
  const add = (a: number, b: number) => {
    src[m] = a;
    dst[m++] = b;
    degree[a]!++;
    degree[b]!++;
  };
  const coin = new Xoshiro128(seed, KEEP_STREAM);
  for (const e of candidates) {
    const kept = coin.float() < keep;
    if (inTree[e] || kept) add(e >>> 1, far(e));
  }
  // Diagonals last, so the degree bound sees every grid edge; one per cell keeps the graph planar.
  const pick = new Xoshiro128(seed, DIAGONAL_STREAM);
  for (let y = 0; y + 1 < height; y++) {
    for (let x = 0; x + 1 < width; x++) {
      const want = pick.float() < diagonals;
      const falling = pick.next() & 1;
      if (!want) continue;
      const v = y * width + x;
      const [a, b] = falling ? [v, v + width + 1] : [v + 1, v + width];
      if (degree[a]! < 4 && degree[b]! < 4) add(a, b);
    }
  }
  const edges: HostEdgeList = {
    vertexCount: n,
    src: src.slice(0, m),
    dst: dst.slice(0, m),
    directed: false,
  };
  const range = weightRange(options.weights);
  if (range) edges.weights = uniformWeights(m, range, seed);
  return edges;
}
