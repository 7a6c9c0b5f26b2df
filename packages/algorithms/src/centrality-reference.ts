import { ConvergenceError, checkOptionsObject, checkTolerance, InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';

// Plain TypeScript references on a host CSR (f64, networkx's loops): the test oracles and the CPU baselines.

/** A source vertex set (uniform over its distinct vertices) or a non-negative weight per vertex. */
export type Personalization = { sources: readonly number[] } | { weights: ArrayLike<number> };

export interface PowerIterationOptions {
  /** networkx's `tol`: converged once the L1 change of an iteration is below `vertexCount * tolerance`. */
  tolerance?: number;
  maxIterations?: number;
}

export interface PersonalizedPageRankReferenceOptions extends PowerIterationOptions {
  alpha?: number;
  /** `null` ignores the graph's weights; by default they share each vertex's rank (networkx's default). */
  weight?: 'weights' | null;
}

export interface WeightedReferenceOptions extends PowerIterationOptions {
  /** `'weights'`: edges count with their weights; default `null` (networkx's `weight=None`). */
  weight?: 'weights' | null;
}

export interface HitsReferenceOptions extends PowerIterationOptions {
  /** `null` counts every edge 1; by default the graph's weights count (networkx's `hits` always weighs). */
  weight?: 'weights' | null;
}

export interface KatzReferenceOptions extends WeightedReferenceOptions {
  alpha?: number;
  beta?: number;
  normalized?: boolean;
}

/** The personalization as a vector summing to 1 (networkx normalizes it); an `InputError` if it cannot. */
export function personalizationVector(vertexCount: number, personalization: Personalization): Float64Array {
  const given = typeof personalization === 'object' && personalization !== null;
  const { sources, weights } = (given ? personalization : {}) as { sources?: unknown; weights?: unknown };
  // With both, one would be dropped silently; with neither (an array, a Set) the run would crash on undefined.
  if ((sources === undefined) === (weights === undefined)) {
    throw new InputError(
      'give { sources: [...] } or { weights: [...] }, exactly one of them',
      'personalization',
    );
  }
  const p = new Float64Array(vertexCount);
  if (sources !== undefined) {
    for (const s of sources as readonly number[]) {
      if (!Number.isInteger(s) || s < 0 || s >= vertexCount) {
        throw new InputError(`source ${s} is not a vertex (the graph has ${vertexCount})`, 'personalization');
      }
      p[s] = 1;
    }
  } else {
    const w = weights as ArrayLike<number>;
    if (w.length !== vertexCount) {
      throw new InputError(
        `${w.length} weights for ${vertexCount} vertices: give one per vertex`,
        'personalization',
      );
    }
    for (let v = 0; v < vertexCount; v++) {
      const x = w[v]!;
      if (!(x >= 0 && Number.isFinite(x))) {
        throw new InputError(
          `weight ${x} of vertex ${v} is not a finite non-negative number`,
          'personalization',
        );
      }
      p[v] = x;
    }
  }
  let sum = 0;
  for (const x of p) sum += x;
  if (vertexCount > 0 && !(sum > 0)) {
    throw new InputError(
      'the personalization is empty or all zero: give a source or a positive weight',
      'personalization',
    );
  }
  for (let v = 0; v < vertexCount; v++) p[v]! /= sum;
  return p;
}

/** Each power iteration's default stopping rule (networkx's, but HITS stops at an L1 change per vertex). */
const POWER_DEFAULTS = {
  personalizedPageRank: { tolerance: 1e-6, maxIterations: 100 },
  katzCentrality: { tolerance: 1e-6, maxIterations: 1000 },
  eigenvectorCentrality: { tolerance: 1e-6, maxIterations: 100 },
  hits: { tolerance: 1e-8, maxIterations: 100 },
} as const;

/** The tolerance and iteration bound of power iteration `who`: the options' or its defaults, checked. */
export function powerIterationSettings(
  who: keyof typeof POWER_DEFAULTS,
  options: { tolerance?: number; maxIterations?: number },
): { tolerance: number; maxIterations: number } {
  const tolerance = options.tolerance ?? POWER_DEFAULTS[who].tolerance;
  const maxIterations = options.maxIterations ?? POWER_DEFAULTS[who].maxIterations;
  checkTolerance(tolerance);
  if (!(Number.isInteger(maxIterations) && maxIterations >= 1)) {
    throw new InputError(`maxIterations must be a positive integer, got ${maxIterations}`, 'maxIterations');
  }
  return { tolerance, maxIterations };
}

/**
 * The graph's weights when `weight` asks for them (`byDefault`: when left out, whenever the graph has them),
 * checked finite and non-negative; `undefined` to count every edge 1.
 */
function referenceWeights(
  csr: HostCsr,
  weight: 'weights' | null | undefined,
  byDefault: boolean,
  who: string,
): ArrayLike<number> | undefined {
  if (weight !== undefined && weight !== null && weight !== 'weights') {
    throw new InputError(`weight must be 'weights' or null, got '${weight}'`, 'weight');
  }
  const w = csr.weights;
  if (weight === 'weights' && w === undefined) {
    throw new InputError("weight 'weights' but the graph has no weights", 'weight');
  }
  if (w === undefined || weight === null || (weight === undefined && !byDefault)) return undefined;
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const x = w[e]!;
      if (!(x >= 0 && Number.isFinite(x))) {
        const what = Number.isNaN(x) ? 'is NaN' : x < 0 ? 'is negative' : 'is infinite';
        throw new InputError(
          `weight ${x} of edge ${u} -> ${csr.targets[e]} (edge ${e}) ${what}: ${who} needs finite non-negative weights`,
          'graph.weights',
        );
      }
    }
  }
  if (!csr.directed) checkSymmetric(csr, w, who);
  return w;
}

/** The summed weight of `a`'s arcs to `b` (rows sorted by target: a binary search, then the group). */
function weightTo(csr: HostCsr, w: ArrayLike<number>, a: number, b: number): number {
  let lo = csr.offsets[a]!;
  let hi = csr.offsets[a + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (csr.targets[mid]! < b) lo = mid + 1;
    else hi = mid;
  }
  let sum = 0;
  for (let e = lo; e < csr.offsets[a + 1]! && csr.targets[e] === b; e++) sum += w[e]!;
  return sum;
}

/** As `checkSymmetricWeights` on the GPU: an undirected edge must weigh the same both ways. */
function checkSymmetric(csr: HostCsr, w: ArrayLike<number>, who: string): void {
  for (let v = 0; v < csr.vertexCount; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const u = csr.targets[e]!;
      if (e > csr.offsets[v]! && csr.targets[e - 1] === u) continue;
      const mine = weightTo(csr, w, v, u);
      const theirs = weightTo(csr, w, u, v);
      if (Math.abs(mine - theirs) > 1e-6 * Math.max(mine, theirs)) {
        throw new InputError(
          `the undirected graph's arc ${v} -> ${u} weighs ${mine} but ${u} -> ${v} weighs ${theirs}: ` +
            `${who} needs an undirected edge to weigh the same both ways`,
          'graph.weights',
        );
      }
    }
  }
}

/** `next[v] = sum of w(u, v) x[u] over in-edges u -> v` (networkx's `x[nbr] += xlast[n] * w`). */
function pullSums(csr: HostCsr, x: Float64Array, next: Float64Array, w?: ArrayLike<number>): void {
  next.fill(0);
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      next[csr.targets[e]!]! += w === undefined ? x[u]! : x[u]! * w[e]!;
    }
  }
}

function l1(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i]! - b[i]!);
  return s;
}

/**
 * networkx `pagerank(G, alpha, personalization)`: teleport to the personalization, and dangling vertices'
 * rank (no out-edges, or out-weights summing to 0) to it too (networkx's default `dangling`); a vertex's
 * rank shared over its out-edges in proportion to their weights (by default when the graph has weights);
 * starts uniform; L1 change below `n * tolerance`.
 */
export function personalizedPageRankReference(
  csr: HostCsr,
  personalization: Personalization,
  options: PersonalizedPageRankReferenceOptions = {},
): { ranks: Float64Array; iterations: number } {
  checkOptionsObject('personalizedPageRankReference', options);
  const n = csr.vertexCount;
  const alpha = options.alpha ?? 0.85;
  const { tolerance, maxIterations } = powerIterationSettings('personalizedPageRank', options);
  const p = personalizationVector(n, personalization);
  const w = referenceWeights(csr, options.weight, true, 'personalizedPageRank');
  if (n === 0) return { ranks: new Float64Array(0), iterations: 0 };
  const out = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) out[u]! += w === undefined ? 1 : w[e]!;
  }
  let x = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  let err = 0;
  for (let it = 1; it <= maxIterations; it++) {
    next.fill(0);
    let dangling = 0;
    for (let u = 0; u < n; u++) {
      if (out[u] === 0) {
        dangling += x[u]!;
        continue;
      }
      const share = (alpha * x[u]!) / out[u]!;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        next[csr.targets[e]!]! += w === undefined ? share : share * w[e]!;
      }
    }
    for (let v = 0; v < n; v++) next[v]! += (alpha * dangling + 1 - alpha) * p[v]!;
    err = l1(next, x);
    [x, next] = [next, x];
    if (err < n * tolerance) return { ranks: x, iterations: it };
  }
  throw new ConvergenceError('personalizedPageRank', maxIterations, err, n * tolerance);
}

/**
 * networkx `katz_centrality`: `x = alpha A^T x + beta` (`A` weighted with `weight: 'weights'`) from 0 until
 * the L1 change is below `n * tolerance`, then (normalized) divided by its L2 norm.
 */
export function katzCentralityReference(
  csr: HostCsr,
  options: KatzReferenceOptions = {},
): { centrality: Float64Array; iterations: number } {
  checkOptionsObject('katzCentralityReference', options);
  const n = csr.vertexCount;
  const alpha = options.alpha ?? 0.1;
  const beta = options.beta ?? 1;
  const { tolerance, maxIterations } = powerIterationSettings('katzCentrality', options);
  const w = referenceWeights(csr, options.weight, false, "katzCentrality with weight 'weights'");
  if (n === 0) return { centrality: new Float64Array(0), iterations: 0 };
  let x = new Float64Array(n);
  let next = new Float64Array(n);
  let err = 0;
  for (let it = 1; it <= maxIterations; it++) {
    pullSums(csr, x, next, w);
    for (let v = 0; v < n; v++) next[v] = alpha * next[v]! + beta;
    err = l1(next, x);
    [x, next] = [next, x];
    if (err < n * tolerance) {
      if (options.normalized ?? true) scale(x, 1 / (norm2(x) || 1));
      return { centrality: x, iterations: it };
    }
  }
  throw new ConvergenceError('katzCentrality', maxIterations, err, n * tolerance);
}

/**
 * networkx `eigenvector_centrality`: `x = (x + A^T x) / ||x + A^T x||_2` (`A` weighted with
 * `weight: 'weights'`) from the uniform vector until the L1 change is below `n * tolerance`.
 */
export function eigenvectorCentralityReference(
  csr: HostCsr,
  options: WeightedReferenceOptions = {},
): { centrality: Float64Array; iterations: number } {
  checkOptionsObject('eigenvectorCentralityReference', options);
  const n = csr.vertexCount;
  const { tolerance, maxIterations } = powerIterationSettings('eigenvectorCentrality', options);
  const w = referenceWeights(csr, options.weight, false, "eigenvectorCentrality with weight 'weights'");
  if (n === 0) throw new InputError('cannot compute centrality for the null graph', 'graph');
  let x = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  let err = 0;
  for (let it = 1; it <= maxIterations; it++) {
    pullSums(csr, x, next, w);
    for (let v = 0; v < n; v++) next[v]! += x[v]!;
    scale(next, 1 / (norm2(next) || 1));
    err = l1(next, x);
    [x, next] = [next, x];
    if (err < n * tolerance) return { centrality: x, iterations: it };
  }
  throw new ConvergenceError('eigenvectorCentrality', maxIterations, err, n * tolerance);
}

/**
 * networkx's power-iteration HITS: `a = A^T h`, `h = A a` (`A` weighted by default when the graph has
 * weights), each scaled to a largest entry of 1, until the L1 change of `h` is below `n * tolerance`
 * (networkx: below `tol`); both then scaled to sum 1.
 */
export function hitsReference(
  csr: HostCsr,
  options: HitsReferenceOptions = {},
): { hubs: Float64Array; authorities: Float64Array; iterations: number } {
  checkOptionsObject('hitsReference', options);
  const n = csr.vertexCount;
  const { tolerance, maxIterations } = powerIterationSettings('hits', options);
  const w = referenceWeights(csr, options.weight, true, 'hits');
  if (n === 0) return { hubs: new Float64Array(0), authorities: new Float64Array(0), iterations: 0 };
  if (csr.offsets[n] === 0) throw new InputError('HITS needs at least one edge', 'graph');
  let h = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  const a = new Float64Array(n);
  let err = 0;
  for (let it = 1; it <= maxIterations; it++) {
    pullSums(csr, h, a, w);
    next.fill(0);
    for (let u = 0; u < n; u++) {
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        next[u]! += w === undefined ? a[csr.targets[e]!]! : a[csr.targets[e]!]! * w[e]!;
      }
    }
    scale(next, 1 / (maxOf(next) || 1));
    scale(a, 1 / (maxOf(a) || 1));
    err = l1(next, h);
    [h, next] = [next, h];
    if (err < n * tolerance) {
      if (sumOf(h) === 0) {
        throw new InputError('HITS needs an edge of positive weight: every edge weighs 0', 'graph.weights');
      }
      scale(a, 1 / sumOf(a));
      scale(h, 1 / sumOf(h));
      return { hubs: h, authorities: a, iterations: it };
    }
  }
  throw new ConvergenceError('hits', maxIterations, err, n * tolerance);
}

function scale(x: Float64Array, s: number): void {
  for (let i = 0; i < x.length; i++) x[i]! *= s;
}

/** The L2 norm (a loop: spreading a large array into `Math.hypot` overflows the stack). */
export function norm2(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]! * x[i]!;
  return Math.sqrt(s);
}

function maxOf(x: Float64Array): number {
  let m = Number.NEGATIVE_INFINITY;
  for (const y of x) m = Math.max(m, y);
  return m;
}

export function sumOf(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i]!;
  return s;
}
