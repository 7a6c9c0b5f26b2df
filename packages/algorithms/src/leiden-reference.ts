import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import {
  type ArcGraph,
  aggregate,
  arcGraph,
  arcModularity,
  checkLouvainOptions,
  type LouvainOptions,
  type LouvainResult,
  oneLevel,
  renumber,
  rng,
} from './community-reference.ts';

/** Options of {@link leidenReference}: Louvain's and the refinement's randomness. */
export interface LeidenOptions extends LouvainOptions {
  /**
   * θ of the refinement: a vertex joins a sub-community with probability ∝ exp(gain / θ), the gain in edge
   * weight units; 0 takes the largest gain (the greedy variant). Default 0.01, as Traag et al.
   */
  theta?: number;
}

export interface LeidenResult extends LouvainResult {
  /** Per level, the refined partition of every original vertex: the vertices of the next level's graph. */
  refined: Uint32Array[];
}

/**
 * Leiden (Traag, Waltman, van Eck 2019) sequentially: local moving as {@link louvainReference} (from the
 * previous level's partition), then a refinement inside each community: vertices start as singletons and a
 * singleton vertex well connected to its community joins a well-connected sub-community it has an edge to,
 * chosen at random by gain (`theta`); the next level's graph aggregates the refined partition and starts from
 * the unrefined one. Levels go on until local moving leaves every vertex alone, or gains no more than
 * `threshold` with nothing left to refine. Refined sub-communities are connected; a community left
 * disconnected by an early stop (`maxLevels`, `threshold`) is split into its connected parts, which never
 * lowers modularity. A directed graph runs as its undirected graph.
 */
export function leidenReference(csr: HostCsr, options: LeidenOptions = {}): LeidenResult {
  checkOptionsObject('leidenReference', options);
  const { resolution, maxLevels, threshold, seed } = checkLouvainOptions(options);
  const theta = checkTheta(options.theta);
  const n = csr.vertexCount;
  const base = arcGraph(csr, options.weight, 'leiden');
  let g = base;
  const next = rng(seed);
  const part = Uint32Array.from({ length: n }, (_, i) => i);
  let comm: Uint32Array = Uint32Array.from({ length: n }, (_, i) => i);
  const levels: Uint32Array[] = [];
  const refinedLevels: Uint32Array[] = [];
  let q = arcModularity(g, comm, resolution);
  while (levels.length < maxLevels) {
    const moving = oneLevel(g, resolution, next, comm);
    comm = moving.comm;
    const count = renumber(comm);
    const level = Uint32Array.from(part, (v) => comm[v]!);
    if (count === g.n) {
      // Every vertex alone: the refined sub-communities of the last level moved apart, or nothing merged.
      if (levels.length > 0 && moving.moved) {
        levels.push(level);
        refinedLevels.push(level.slice());
      }
      break;
    }
    levels.push(level);
    const refined = refine(g, comm, resolution, theta, next);
    const refinedCount = renumber(refined);
    refinedLevels.push(Uint32Array.from(part, (v) => refined[v]!));
    const newQ = arcModularity(g, comm, resolution);
    if (newQ - q <= threshold && (refinedCount === count || refinedCount === g.n)) break;
    q = Math.max(q, newQ);
    const start = new Uint32Array(refinedCount);
    for (let v = 0; v < g.n; v++) start[refined[v]!] = comm[v]!;
    g = aggregate(g, refined, refinedCount);
    for (let v = 0; v < n; v++) part[v] = refined[part[v]!]!;
    comm = start;
  }
  const communities = levels.length > 0 ? levels[levels.length - 1]!.slice() : part.slice();
  if (levels.length > 0) splitDisconnected(base, communities);
  const count = renumber(communities);
  const modularity = arcModularity(base, communities, resolution);
  return { communities, levels, refined: refinedLevels, modularity, count, undirected: csr.directed };
}

function checkTheta(theta: number | undefined): number {
  const value = theta ?? 0.01;
  if (!Number.isFinite(value) || value < 0) {
    throw new InputError(`theta must be a finite number >= 0, got ${theta}`, 'theta');
  }
  return value;
}

/**
 * The refinement of `comm` (Traag et al.'s MergeNodesSubset over every community S): in a random order, a
 * vertex still alone whose edges into S − v weigh at least γ k_v (K_S − k_v) / 2m joins, or not, one of the
 * sub-communities C of S it has an edge to whose edges to S − C weigh at least γ K_C (K_S − K_C) / 2m, with
 * probability ∝ exp(gain / θ) over the non-negative gains (staying has gain 0).
 */
function refine(
  g: ArcGraph,
  comm: Uint32Array,
  resolution: number,
  theta: number,
  next: () => number,
): Uint32Array {
  const n = g.n;
  const k = new Float64Array(n);
  const inside = new Float64Array(n);
  const kS = new Float64Array(n);
  let m2 = 0;
  for (let u = 0; u < n; u++) {
    for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) {
      const v = g.targets[e]!;
      k[u]! += g.share[e]!;
      if (v !== u && comm[v] === comm[u]) inside[u]! += g.share[e]!;
    }
    m2 += k[u]!;
    kS[comm[u]!]! += k[u]!;
  }
  const refined = Uint32Array.from({ length: n }, (_, i) => i);
  const size = new Uint32Array(n).fill(1);
  const kC = Float64Array.from(k);
  const outC = Float64Array.from(inside);
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const toC = new Map<number, number>();
  const wellConnected = (e: number, kx: number, s: number) => e >= (resolution * kx * (kS[s]! - kx)) / m2;
  for (const v of order) {
    const s = comm[v]!;
    if (m2 === 0 || size[refined[v]!] !== 1 || !wellConnected(inside[v]!, k[v]!, s)) continue;
    toC.clear();
    for (let e = g.offsets[v]!; e < g.offsets[v + 1]!; e++) {
      const w = g.targets[e]!;
      if (w !== v && comm[w] === s) toC.set(refined[w]!, (toC.get(refined[w]!) ?? 0) + g.share[e]!);
    }
    const candidates: [number, number][] = [];
    for (const [c, weight] of toC) {
      const gain = weight - (resolution * kC[c]! * k[v]!) / m2;
      if (gain >= 0 && wellConnected(outC[c]!, kC[c]!, s)) candidates.push([c, gain]);
    }
    if (candidates.length === 0) continue;
    candidates.sort((a, b) => a[0] - b[0]);
    const target = theta === 0 ? greedy(candidates) : sample(candidates, theta, next);
    if (target < 0) continue;
    const own = refined[v]!;
    refined[v] = target;
    size[own] = 0;
    size[target]!++;
    kC[target]! += k[v]!;
    outC[target] = outC[target]! + inside[v]! - 2 * toC.get(target)!;
  }
  return refined;
}

/** The candidate of the largest gain (the smallest id on ties), or -1 (stay) when no gain is positive. */
function greedy(candidates: [number, number][]): number {
  let best = -1;
  let bestGain = 0;
  for (const [c, gain] of candidates) {
    if (gain > bestGain) {
      best = c;
      bestGain = gain;
    }
  }
  return best;
}

/** A candidate drawn with probability ∝ exp(gain / θ), staying (gain 0) included; -1 means stay. */
function sample(candidates: [number, number][], theta: number, next: () => number): number {
  const top = Math.max(0, ...candidates.map((x) => x[1]));
  const weights = candidates.map(([, gain]) => Math.exp((gain - top) / theta));
  const stay = Math.exp(-top / theta);
  let pick = (next() / 2 ** 32) * (stay + weights.reduce((a, b) => a + b, 0)) - stay;
  if (pick < 0) return -1;
  for (const [i, w] of weights.entries()) {
    pick -= w;
    if (pick < 0) return candidates[i]![0];
  }
  return candidates[candidates.length - 1]![0];
}

/** Gives each connected part of a community its own id (a fresh id past every existing one). */
function splitDisconnected(g: ArcGraph, communities: Uint32Array): void {
  const n = g.n;
  const seen = new Uint8Array(n);
  const claimed = new Set<number>();
  let fresh = 0;
  for (const c of communities) fresh = Math.max(fresh, c + 1);
  const stack: number[] = [];
  for (let r = 0; r < n; r++) {
    if (seen[r]) continue;
    const c = communities[r]!;
    const id = claimed.has(c) ? fresh++ : c;
    claimed.add(c);
    seen[r] = 1;
    stack.push(r);
    while (stack.length > 0) {
      const u = stack.pop()!;
      communities[u] = id;
      for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) {
        const w = g.targets[e]!;
        if (!seen[w] && communities[w] === c) {
          seen[w] = 1;
          stack.push(w);
        }
      }
    }
  }
}
