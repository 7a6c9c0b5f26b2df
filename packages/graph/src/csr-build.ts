import { DeviceLimitError, InputError } from '@weft/gpu';
import {
  type HostCsc,
  type HostCsr,
  type HostEdgeList,
  type HostWeights,
  validateEdgeList,
} from './host-graph.ts';

/** Which weight survives when the same (source, target) pair appears more than once. */
export type DedupeRule = 'min' | 'max' | 'first' | 'last' | 'none';

export interface CsrBuildOptions {
  /** Keep one edge per (source, target), choosing its weight by this rule; `'none'` keeps multi-edges. Default `'min'`. */
  dedupe?: DedupeRule;
  /** Default false: edges `v -> v` are dropped. */
  keepSelfLoops?: boolean;
  /** Add the reverse of every edge. Default: `!edges.directed`. */
  symmetrize?: boolean;
  /**
   * Refuse, with a `DeviceLimitError` and before any per-vertex allocation, a graph of more vertices (a file
   * whose size line claims billions of vertices would otherwise take minutes and gigabytes to build). Callers
   * headed for a device pass its limit: `maxStorageBufferBindingSize / 4 - 1`.
   */
  maxVertexCount?: number;
}

/** What the builder changed; `edgeCount = input - selfLoopsDropped - duplicatesDropped + edgesAdded`. */
export interface CsrBuildReport {
  selfLoopsDropped: number;
  /** Input edges merged into an earlier edge with the same (source, target). */
  duplicatesDropped: number;
  /** Reverse edges that symmetrization added because the input lacked them. */
  edgesAdded: number;
}

export interface CsrBuildResult {
  csr: HostCsr;
  report: CsrBuildReport;
}

/*
 * Entries are coded as `2 * i` for input edge i as given and `2 * i + 1` for its reverse. The sorts are stable
 * and codes follow input order, so the group of (u, v) and the group of (v, u) hold the same input edges in the
 * same order: every weight rule ('first', 'min', ...) picks the same weight for both, and a symmetrized graph
 * has symmetric weights.
 */

/**
 * Builds a CSR from an edge list on the host: sorts by (source, target) with two stable counting sorts
 * (O(edges + vertices)), drops self-loops, merges duplicates and symmetrizes as asked.
 *
 * With `dedupe: 'none'`, symmetrization adds the reverse of (u, v) only where the input has no (v, u) at all,
 * so an already symmetric list (a symmetric Matrix Market file) is not doubled.
 */
export function csrFromEdgeList(edges: HostEdgeList, options: CsrBuildOptions = {}): CsrBuildResult {
  if (options.maxVertexCount !== undefined && edges.vertexCount > options.maxVertexCount) {
    throw new DeviceLimitError(
      `a CSR of ${edges.vertexCount} vertices`,
      edges.vertexCount,
      'maxVertexCount',
      options.maxVertexCount,
      'the graph has more vertices than the target device can hold',
    );
  }
  validateEdgeList(edges);
  const dedupe = options.dedupe ?? 'min';
  const keepSelfLoops = options.keepSelfLoops ?? false;
  const symmetrize = options.symmetrize ?? !edges.directed;
  if (!['min', 'max', 'first', 'last', 'none'].includes(dedupe)) {
    throw new InputError(`unknown dedupe rule '${dedupe}'`, 'options.dedupe');
  }
  const { src, dst } = edges;
  const m = src.length;
  if (2 * m > 2 ** 32 - 1) throw new InputError(`${m} edges exceed the builder's 2^31 limit`, 'edges.src');

  let selfLoops = 0;
  for (let i = 0; i < m; i++) if (src[i] === dst[i]) selfLoops++;
  const selfLoopsDropped = keepSelfLoops ? 0 : selfLoops;
  const kept = m - selfLoopsDropped;
  const mirrorAll = symmetrize && dedupe !== 'none';
  // Self-loops are their own reverse: never mirrored.
  let codes: Uint32Array = new Uint32Array(mirrorAll ? 2 * kept - (keepSelfLoops ? selfLoops : 0) : kept);
  let c = 0;
  for (let i = 0; i < m; i++) {
    const loop = src[i] === dst[i];
    if (loop && !keepSelfLoops) continue;
    codes[c++] = 2 * i;
    if (mirrorAll && !loop) codes[c++] = 2 * i + 1;
  }

  const n = edges.vertexCount;
  if (symmetrize && dedupe === 'none') codes = withMissingReverses(codes, src, dst, n);
  const { order, sources, targets: sortedTargets } = sortCodes(codes, src, dst, n);

  const offsets = new Uint32Array(n + 1);
  const targets = new Uint32Array(
    dedupe === 'none' ? codes.length : countGroups(order, sources, sortedTargets),
  );
  const w = edges.weights;
  const weights =
    w === undefined ? undefined : new (w.constructor as new (n: number) => HostWeights)(targets.length);
  let out = 0;
  let inputDistinct = 0;
  for (let k = 0; k < order.length; ) {
    const s = sources[k]!;
    const t = sortedTargets[k]!;
    let end = k + 1;
    if (dedupe !== 'none') while (end < order.length && sources[end] === s && sortedTargets[end] === t) end++;
    let hasOriginal = false;
    for (let j = k; j < end; j++) if ((order[j]! & 1) === 0) hasOriginal = true;
    if (hasOriginal) inputDistinct++;
    targets[out] = t;
    if (weights !== undefined) weights[out] = pickWeight(w!, order, k, end, dedupe);
    offsets[s + 1]!++;
    out++;
    k = end;
  }
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;

  const csr: HostCsr = {
    vertexCount: n,
    edgeCount: targets.length,
    offsets,
    targets,
    directed: symmetrize ? false : edges.directed,
  };
  if (weights !== undefined) csr.weights = weights;
  return {
    csr,
    report: {
      selfLoopsDropped,
      duplicatesDropped: kept - inputDistinct,
      edgesAdded: targets.length - inputDistinct,
    },
  };
}

interface SortedCodes {
  /** The codes ordered by (source, target) and, within equal pairs, by code (input order). */
  order: Uint32Array;
  /** Source and target of `order[k]`. */
  sources: Uint32Array;
  targets: Uint32Array;
}

/** Two stable counting sorts (by target, then by source): O(entries + vertices). */
function sortCodes(codes: Uint32Array, src: Uint32Array, dst: Uint32Array, n: number): SortedCodes {
  const count = new Uint32Array(n + 1);
  const e = codes.length;
  const keyT = new Uint32Array(e);
  const keyS = new Uint32Array(e);
  for (let j = 0; j < e; j++) {
    const code = codes[j]!;
    const i = code >>> 1;
    const t = code & 1 ? src[i]! : dst[i]!;
    keyT[j] = t;
    keyS[j] = code & 1 ? dst[i]! : src[i]!;
    count[t + 1]!++;
  }
  for (let v = 0; v < n; v++) count[v + 1]! += count[v]!;
  // Endpoints travel with the positions, so pass 2 reads sequentially and only its writes scatter.
  const codesByTarget = new Uint32Array(e);
  const sByT = new Uint32Array(e);
  const tByT = new Uint32Array(e);
  for (let j = 0; j < e; j++) {
    const t = keyT[j]!;
    const p = count[t]!++;
    codesByTarget[p] = codes[j]!;
    sByT[p] = keyS[j]!;
    tByT[p] = t;
  }
  count.fill(0);
  for (let j = 0; j < e; j++) count[keyS[j]! + 1]!++;
  for (let v = 0; v < n; v++) count[v + 1]! += count[v]!;
  const order = keyT;
  const sources = keyS;
  const targets = new Uint32Array(e);
  for (let k = 0; k < e; k++) {
    const s = sByT[k]!;
    const p = count[s]!++;
    order[p] = codesByTarget[k]!;
    sources[p] = s;
    targets[p] = tByT[k]!;
  }
  return { order, sources, targets };
}

function countGroups(order: Uint32Array, sources: Uint32Array, targets: Uint32Array): number {
  let groups = order.length > 0 ? 1 : 0;
  for (let k = 1; k < order.length; k++)
    if (sources[k] !== sources[k - 1] || targets[k] !== targets[k - 1]) groups++;
  return groups;
}

/** Appends the reverse of every non-loop edge (u, v) for which the input has no (v, u). */
function withMissingReverses(codes: Uint32Array, src: Uint32Array, dst: Uint32Array, n: number): Uint32Array {
  const { sources, targets } = sortCodes(codes, src, dst, n);
  const rowStart = new Uint32Array(n + 1);
  for (let k = 0; k < sources.length; k++) rowStart[sources[k]! + 1]!++;
  for (let v = 0; v < n; v++) rowStart[v + 1]! += rowStart[v]!;
  const added: number[] = [];
  for (let j = 0; j < codes.length; j++) {
    const code = codes[j]!;
    const u = src[code >>> 1]!;
    const v = dst[code >>> 1]!;
    if (u !== v && !sortedContains(targets, rowStart[v]!, rowStart[v + 1]!, u)) added.push(code | 1);
  }
  const out = new Uint32Array(codes.length + added.length);
  out.set(codes);
  out.set(added, codes.length);
  return out;
}

function sortedContains(a: Uint32Array, begin: number, end: number, x: number): boolean {
  let lo = begin;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && a[lo] === x;
}

function pickWeight(
  w: HostWeights,
  order: Uint32Array,
  begin: number,
  end: number,
  rule: DedupeRule,
): number {
  if (rule === 'first' || rule === 'none') return w[order[begin]! >>> 1]!;
  if (rule === 'last') return w[order[end - 1]! >>> 1]!;
  let best = w[order[begin]! >>> 1]!;
  for (let k = begin + 1; k < end; k++) {
    const x = w[order[k]! >>> 1]!;
    if (rule === 'min' ? x < best : x > best) best = x;
  }
  return best;
}

/**
 * The in-edge view of a CSR: in-edges grouped by target (sources ascending) and, for each, the position of
 * the same edge in the CSR, so per-edge values stored in CSR order serve both views.
 */
export function cscFromCsr(csr: HostCsr): HostCsc {
  const n = csr.vertexCount;
  const m = csr.edgeCount;
  const inOffsets = new Uint32Array(n + 1);
  for (let e = 0; e < m; e++) inOffsets[csr.targets[e]! + 1]!++;
  for (let v = 0; v < n; v++) inOffsets[v + 1]! += inOffsets[v]!;
  const next = inOffsets.slice(0, n);
  const sources = new Uint32Array(m);
  const inEdgeIds = new Uint32Array(m);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const p = next[csr.targets[e]!]!++;
      sources[p] = u;
      inEdgeIds[p] = e;
    }
  }
  return { inOffsets, sources, inEdgeIds };
}
