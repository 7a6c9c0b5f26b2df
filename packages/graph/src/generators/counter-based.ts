import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostCsr, HostEdgeList, HostWeights } from '../host-graph.ts';
import type { KroneckerOptions } from './kronecker.ts';
import { mulhi32, philox2x32 } from './philox.ts';
import { checkSeed, edgeCountFor, weightRange } from './random.ts';

/*
 * The host twins of the device generators (device-generators.ts) and the parameters both share. Draws come
 * from Philox-2x32-10 with key = seed mod 2^32 and counter (index, stream << 16 | draw): the value of every
 * edge depends only on the seed and its index, never on how work is split among threads
 * (docs/decisions/device-generators.md).
 */

/** Counter streams (the high half of the counter's second word). */
export const STREAM_EDGES = 0;
export const STREAM_WEIGHTS = 1;
const STREAM_PERMUTATION = 2;
/** Derives the key of the multigraph builds' pair weights, whose counter is the vertex pair itself. */
const STREAM_PAIR_WEIGHTS = 3;

/** `kronecker()`'s options; `permute` relabels by a seeded bijection of [0, 2^scale) (default true). */
export type KroneckerOnDeviceOptions = KroneckerOptions;

export interface UniformOnDeviceOptions {
  /** 2^scale vertices. */
  scale: number;
  /** Edges per vertex (default 16): `edgeFactor * 2^scale` edges before symmetrization. */
  edgeFactor?: number;
  seed: number;
  /** Integer weights drawn uniformly from [min, max]; `true` is [1, 255]. */
  weights?: boolean | readonly [number, number];
}

/** The checked numbers a Kronecker generator draws with. */
export interface KroneckerParameters {
  scale: number;
  edgeCount: number;
  key: number;
  /** u32 thresholds on a draw: below `ta` quadrant a, below `tb` b (target bit), below `tc` c (source bit). */
  ta: number;
  tb: number;
  tc: number;
  scramble: ScrambleParameters | undefined;
  weights: WeightParameters | undefined;
}

/** A bijection of [0, 2^bits): two rounds of multiply-add by odd numbers and xorshift, masked. */
export interface ScrambleParameters {
  m1: number;
  k1: number;
  m2: number;
  k2: number;
  mask: number;
  shift: number;
}

/** Weights `lo + mulhi(draw, span)`; span 0 stands for 2^32. */
export interface WeightParameters {
  lo: number;
  span: number;
}

const threshold = (p: number) => Math.min(0xffffffff, Math.round(p * 2 ** 32));

export function kroneckerParameters(options: KroneckerOnDeviceOptions): KroneckerParameters {
  const { scale, seed } = options;
  const a = options.a ?? 0.57;
  const b = options.b ?? 0.19;
  const c = options.c ?? 0.19;
  checkSeed(seed);
  const edgeCount = edgeCountFor(scale, options.edgeFactor ?? 16);
  if (!(a >= 0 && b >= 0 && c >= 0 && a + b + c <= 1)) {
    throw new InputError(`initiator needs a, b, c >= 0 with a + b + c <= 1, got ${a}, ${b}, ${c}`, 'a, b, c');
  }
  const key = seed >>> 0;
  return {
    scale,
    edgeCount,
    key,
    ta: threshold(a),
    tb: threshold(a + b),
    tc: threshold(a + b + c),
    scramble: (options.permute ?? true) ? scrambleParameters(scale, key) : undefined,
    weights: weightParameters(options.weights),
  };
}

/** The checked numbers a uniform generator draws with. */
export interface UniformParameters {
  scale: number;
  edgeCount: number;
  key: number;
  weights: WeightParameters | undefined;
}

export function uniformParameters(options: UniformOnDeviceOptions): UniformParameters {
  checkSeed(options.seed);
  return {
    scale: options.scale,
    edgeCount: edgeCountFor(options.scale, options.edgeFactor ?? 16),
    key: options.seed >>> 0,
    weights: weightParameters(options.weights),
  };
}

function weightParameters(weights: boolean | readonly [number, number] | undefined) {
  const range = weightRange(weights);
  if (range === undefined) return undefined;
  return { lo: range[0], span: (range[1] - range[0] + 1) % 2 ** 32 };
}

function scrambleParameters(scale: number, key: number): ScrambleParameters {
  const [r0, r1] = philox2x32(0, STREAM_PERMUTATION << 16, key);
  const [r2, r3] = philox2x32(1, STREAM_PERMUTATION << 16, key);
  return {
    m1: (r0 | 1) >>> 0,
    k1: r1,
    m2: (r2 | 1) >>> 0,
    k2: r3,
    mask: scale === 0 ? 0 : 2 ** scale - 1,
    shift: (scale >>> 1) + 1,
  };
}

/** The seeded relabelling of a Kronecker generator: a bijection of [0, 2^scale). */
export function scramble(x: number, p: ScrambleParameters): number {
  let y = ((Math.imul(x, p.m1) + p.k1) >>> 0) & p.mask;
  y ^= y >>> p.shift;
  y = ((Math.imul(y, p.m2) + p.k2) >>> 0) & p.mask;
  return (y ^ (y >>> p.shift)) >>> 0;
}

function drawWeights(m: number, key: number, w: WeightParameters): Uint32Array {
  const out = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    const r = philox2x32(e, STREAM_WEIGHTS << 16, key)[0];
    out[e] = w.lo + (w.span === 0 ? r : mulhi32(r, w.span));
  }
  return out;
}

/**
 * The host twin of {@link kroneckerOnDevice}: the same edge list (Graph500 R-MAT with Philox draws, one per
 * level, and a seeded relabelling), so `hostCsrFromEdgeList` of it equals the device graph. Self-loops and
 * duplicates stay in the list; undirected, one entry per edge. Unrelated to {@link kronecker}'s stream.
 */
export function philoxKronecker(options: KroneckerOnDeviceOptions): HostEdgeList {
  checkOptionsObject('philoxKronecker', options, true);
  const p = kroneckerParameters(options);
  const m = p.edgeCount;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    let u = 0;
    let v = 0;
    for (let level = 0; level < p.scale; level += 2) {
      const r = philox2x32(e, level >>> 1, p.key);
      for (let j = 0; j < 2 && level + j < p.scale; j++) {
        const d = r[j]!;
        u <<= 1;
        v <<= 1;
        if (d >= p.ta) {
          if (d < p.tb) v |= 1;
          else if (d < p.tc) u |= 1;
          else {
            u |= 1;
            v |= 1;
          }
        }
      }
    }
    src[e] = p.scramble ? scramble(u >>> 0, p.scramble) : u >>> 0;
    dst[e] = p.scramble ? scramble(v >>> 0, p.scramble) : v >>> 0;
  }
  const edges: HostEdgeList = { vertexCount: 2 ** p.scale, src, dst, directed: false };
  if (p.weights) edges.weights = drawWeights(m, p.key, p.weights);
  return edges;
}

/**
 * The host twin of {@link uniformOnDevice}: both endpoints of edge e uniform over the vertices, from one
 * Philox draw of counter (e, 0). Undirected, one entry per edge.
 */
export function philoxUniform(options: UniformOnDeviceOptions): HostEdgeList {
  checkOptionsObject('philoxUniform', options, true);
  const p = uniformParameters(options);
  const m = p.edgeCount;
  const n = 2 ** p.scale;
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    const [r0, r1] = philox2x32(e, STREAM_EDGES << 16, p.key);
    src[e] = mulhi32(r0, n);
    dst[e] = mulhi32(r1, n);
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed: false };
  if (p.weights) edges.weights = drawWeights(m, p.key, p.weights);
  return edges;
}

/**
 * The key of the multigraph builds' weights: a weight is drawn with counter (min(u, v), max(u, v)), so both
 * arcs of an edge, and every duplicate of it, carry the same one, computable from the arc alone.
 */
export function pairWeightKey(key: number): number {
  return philox2x32(0, STREAM_PAIR_WEIGHTS << 16, key)[0];
}

/** The weight of the vertex pair {u, v} under `pairKey` (see {@link pairWeightKey}). */
export function pairWeight(u: number, v: number, pairKey: number, w: WeightParameters): number {
  const r = philox2x32(Math.min(u, v), Math.max(u, v), pairKey)[0];
  return w.lo + (w.span === 0 ? r : mulhi32(r, w.span));
}

/**
 * The undirected multigraph of `edges`: every edge but self-loops as two arcs, duplicates kept, each vertex's
 * arcs sorted by (target, weight). `weight(u, v)` gives an arc's weight, else the edge list's own weights
 * (if any) are copied to both arcs.
 */
export function multigraphCsr(edges: HostEdgeList, weight?: (u: number, v: number) => number): HostCsr {
  const { vertexCount: n, src, dst } = edges;
  const weights = edges.weights;
  const offsets = new Uint32Array(n + 1);
  for (let e = 0; e < src.length; e++) {
    if (src[e] === dst[e]) continue;
    offsets[src[e]! + 1]! += 1;
    offsets[dst[e]! + 1]! += 1;
  }
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  const arcs = offsets[n]!;
  const targets = new Uint32Array(arcs);
  const w = weight
    ? new Uint32Array(arcs)
    : weights && new (weights.constructor as new (k: number) => HostWeights)(arcs);
  const cursor = offsets.slice(0, n);
  for (let e = 0; e < src.length; e++) {
    const [u, v] = [src[e]!, dst[e]!];
    if (u === v) continue;
    for (const [a, b] of [
      [u, v],
      [v, u],
    ] as const) {
      const i = cursor[a]!++;
      targets[i] = b;
      if (w) w[i] = weight ? weight(a, b) : weights![e]!;
    }
  }
  for (let v = 0; v < n; v++) {
    const [lo, hi] = [offsets[v]!, offsets[v + 1]!];
    const order = Array.from({ length: hi - lo }, (_, k) => lo + k).sort(
      (i, j) => targets[i]! - targets[j]! || (w ? w[i]! - w[j]! : 0),
    );
    const t = order.map((i) => targets[i]!);
    if (w)
      w.set(
        order.map((i) => w[i]!),
        lo,
      );
    targets.set(t, lo);
  }
  const csr: HostCsr = { vertexCount: n, edgeCount: arcs, offsets, targets, directed: false };
  if (w) csr.weights = w;
  return csr;
}

/**
 * The host twin of `kroneckerMultigraphOnDevice`: the arcs of {@link philoxKronecker}'s edges both ways,
 * self-loops dropped, duplicates kept, weights (when asked for) drawn per vertex pair ({@link pairWeight}).
 */
export function philoxKroneckerMultigraph(options: KroneckerOnDeviceOptions): HostCsr {
  checkOptionsObject('philoxKroneckerMultigraph', options, true);
  const { weights: _, ...plain } = options;
  const p = kroneckerParameters(options);
  const w = p.weights;
  const pairKey = pairWeightKey(p.key);
  return multigraphCsr(philoxKronecker(plain), w && ((u, v) => pairWeight(u, v, pairKey, w)));
}

/** The host twin of `uniformMultigraphOnDevice`, as {@link philoxKroneckerMultigraph}. */
export function philoxUniformMultigraph(options: UniformOnDeviceOptions): HostCsr {
  checkOptionsObject('philoxUniformMultigraph', options, true);
  const { weights: _, ...plain } = options;
  const p = uniformParameters(options);
  const w = p.weights;
  const pairKey = pairWeightKey(p.key);
  return multigraphCsr(philoxUniform(plain), w && ((u, v) => pairWeight(u, v, pairKey, w)));
}
