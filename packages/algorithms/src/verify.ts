import { checkOptionsObject } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import { type BetweennessSampling, betweennessReference } from './betweenness-reference.ts';
import { bfsReference } from './bfs/reference.ts';
import { componentsReference } from './components-reference.ts';
import { coreNumberReference } from './kcore-reference.ts';
import { mstReference } from './mst-reference.ts';
import { pageRankReference } from './pagerank-reference.ts';
import { sccReference } from './scc-reference.ts';
import { ssspReference } from './sssp/reference.ts';

/*
 * Verifiers in the GAP / Graph500 style: each checks a result against the TypeScript reference and the
 * graph's own constraints, and returns null when it is correct, else the first problem found.
 */

/** BFS depths must equal the reference (they are unique); each parent must be an in-neighbor one level up. */
export function verifyBfs(
  csr: HostCsr,
  source: number,
  depths: Int32Array,
  parents?: Int32Array,
): string | null {
  const want = bfsReference(csr, source).depths;
  if (depths.length !== want.length) return `${depths.length} depths for ${want.length} vertices`;
  for (let v = 0; v < want.length; v++) {
    if (depths[v] !== want[v]) return `depth of vertex ${v} is ${depths[v]}, expected ${want[v]}`;
  }
  if (parents === undefined) return null;
  for (let v = 0; v < want.length; v++) {
    const p = parents[v]!;
    if (v === source || want[v] === -1) {
      if (p !== -1) return `vertex ${v} (${v === source ? 'the source' : 'unreached'}) has parent ${p}`;
      continue;
    }
    if (p < 0 || p >= csr.vertexCount || want[p] !== want[v]! - 1) {
      return `parent ${p} of vertex ${v} (depth ${want[v]}) is not one level up`;
    }
    let edge = false;
    for (let e = csr.offsets[p]!; e < csr.offsets[p + 1]! && !edge; e++) edge = csr.targets[e] === v;
    if (!edge) return `parent ${p} of vertex ${v} has no edge to it`;
  }
  return null;
}

/**
 * SSSP distances within `relTolerance` of Dijkstra's (`Infinity` where unreachable); with `parents`, each
 * reached vertex but the source has a parent whose edge to it is tight (f32 weights: the sum in f32).
 */
export function verifySssp(
  csr: HostCsr,
  source: number,
  distances: Float64Array,
  relTolerance = 0,
  parents?: Int32Array,
): string | null {
  const want = ssspReference(csr, source);
  if (distances.length !== want.length) return `${distances.length} distances for ${want.length} vertices`;
  for (let v = 0; v < want.length; v++) {
    const a = distances[v]!;
    const b = want[v]!;
    if (a === b) continue;
    if (!Number.isFinite(a) || !Number.isFinite(b) || Math.abs(a - b) > relTolerance * Math.abs(b)) {
      return `distance of vertex ${v} is ${a}, expected ${b}`;
    }
  }
  if (parents === undefined) return null;
  const f32 = csr.weights instanceof Float32Array;
  for (let v = 0; v < want.length; v++) {
    const p = parents[v]!;
    if (v === source || want[v] === Number.POSITIVE_INFINITY) {
      if (p !== -1) return `vertex ${v} (${v === source ? 'the source' : 'unreached'}) has parent ${p}`;
      continue;
    }
    if (p < 0 || p >= csr.vertexCount) return `vertex ${v} has no parent (${p})`;
    let tight = false;
    for (let e = csr.offsets[p]!; e < csr.offsets[p + 1]! && !tight; e++) {
      if (csr.targets[e] !== v) continue;
      const w = csr.weights === undefined ? 1 : csr.weights[e]!;
      const sum = f32 ? Math.fround(distances[p]! + w) : distances[p]! + w;
      tight = sum === distances[v];
    }
    if (!tight) return `parent ${p} of vertex ${v} has no tight edge to it`;
  }
  return null;
}

/**
 * PageRank within `relTolerance` of the f64 reference run to a tight tolerance, and summing to 1.
 * The default 1e-4 is what the default stopping rule promises (f32 sums included).
 */
export function verifyPageRank(
  csr: HostCsr,
  ranks: Float32Array | Float64Array,
  options: { alpha?: number; relTolerance?: number; weight?: 'weights' | null } = {},
): string | null {
  checkOptionsObject('verifyPageRank', options);
  const n = csr.vertexCount;
  if (ranks.length !== n) return `${ranks.length} ranks for ${n} vertices`;
  if (n === 0) return null;
  const alpha = options.alpha ?? 0.85;
  const tol = options.relTolerance ?? 1e-4;
  const weight = options.weight === null ? { weight: null } : {};
  const want = pageRankReference(csr, { alpha, tolerance: 1e-9, maxIterations: 10_000, ...weight }).ranks;
  let sum = 0;
  for (let v = 0; v < n; v++) {
    sum += ranks[v]!;
    if (!(Math.abs(ranks[v]! - want[v]!) <= tol * want[v]!)) {
      return `rank of vertex ${v} is ${ranks[v]}, expected ${want[v]} (relative tolerance ${tol})`;
    }
  }
  if (Math.abs(sum - 1) > 1e-3) return `ranks sum to ${sum}, expected 1`;
  return null;
}

/** Labels equal across every edge and the same partition as the reference (any label values). */
export function verifyComponents(csr: HostCsr, labels: Uint32Array, count?: number): string | null {
  const want = componentsReference(csr);
  if (labels.length !== want.labels.length)
    return `${labels.length} labels for ${want.labels.length} vertices`;
  if (count !== undefined && count !== want.count) return `${count} components, expected ${want.count}`;
  const mine = new Map<number, number>();
  const theirs = new Map<number, number>();
  for (let v = 0; v < labels.length; v++) {
    const a = labels[v]!;
    const b = want.labels[v]!;
    if ((mine.get(b) ?? a) !== a || (theirs.get(a) ?? b) !== b) {
      return `vertex ${v} has label ${a}: components do not match the reference (its component is led by ${b})`;
    }
    mine.set(b, a);
    theirs.set(a, b);
  }
  return null;
}

/**
 * Strongly connected components: the same partition as Tarjan's, each labelled by its smallest vertex (the
 * labels are unique, so they must equal the reference's).
 */
export function verifyScc(csr: HostCsr, labels: Uint32Array, count?: number): string | null {
  const want = sccReference(csr);
  if (labels.length !== want.labels.length)
    return `${labels.length} labels for ${want.labels.length} vertices`;
  if (count !== undefined && count !== want.count) return `${count} components, expected ${want.count}`;
  for (let v = 0; v < labels.length; v++) {
    if (labels[v] !== want.labels[v]) {
      return `vertex ${v} has label ${labels[v]}, expected ${want.labels[v]} (the smallest vertex of its component)`;
    }
  }
  return null;
}

/** Core numbers equal Batagelj-Zaversnik's on the simple undirected graph of the arcs (they are unique). */
export function verifyCoreNumbers(csr: HostCsr, core: Uint32Array, maxCore?: number): string | null {
  const want = coreNumberReference(csr);
  if (core.length !== want.core.length) return `${core.length} core numbers for ${want.core.length} vertices`;
  for (let v = 0; v < core.length; v++) {
    if (core[v] !== want.core[v]) return `core number of vertex ${v} is ${core[v]}, expected ${want.core[v]}`;
  }
  if (maxCore !== undefined && maxCore !== want.maxCore)
    return `max core ${maxCore}, expected ${want.maxCore}`;
  return null;
}

/** Independent (no edge inside the set) and maximal (every vertex outside has a neighbor inside). */
export function verifyIndependentSet(csr: HostCsr, inSet: ArrayLike<number>): string | null {
  if (inSet.length !== csr.vertexCount) return `${inSet.length} flags for ${csr.vertexCount} vertices`;
  for (let u = 0; u < csr.vertexCount; u++) {
    let covered = inSet[u] === 1;
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (v === u) continue;
      if (inSet[u] === 1 && inSet[v] === 1) return `edge ${u} - ${v} has both ends in the set`;
      if (inSet[v] === 1) covered = true;
    }
    if (!covered) return `vertex ${u} is outside the set with no neighbor in it: not maximal`;
  }
  return null;
}

/** Every vertex colored (not 0xffffffff) and no edge between two vertices of one color. */
export function verifyColoring(csr: HostCsr, colors: ArrayLike<number>): string | null {
  if (colors.length !== csr.vertexCount) return `${colors.length} colors for ${csr.vertexCount} vertices`;
  for (let u = 0; u < csr.vertexCount; u++) {
    if (colors[u] === 0xffffffff) return `vertex ${u} has no color`;
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (v !== u && colors[v] === colors[u]) return `edge ${u} - ${v}: both have color ${colors[u]}`;
    }
  }
  return null;
}

/** Edges a traversal from `reached` vertices examines: the sum of their out-degrees (for TEPS). */
export function edgesFrom(
  csr: Pick<HostCsr, 'vertexCount' | 'offsets'>,
  reached: (v: number) => boolean,
): number {
  let m = 0;
  for (let v = 0; v < csr.vertexCount; v++) if (reached(v)) m += csr.offsets[v + 1]! - csr.offsets[v]!;
  return m;
}

/**
 * Betweenness values within `relTolerance` (default 1e-4) relative of the f64 reference run with the same
 * options (the same sampled sources); NaN where the reference has NaN (networkx's k = 1 sources).
 */
export function verifyBetweenness(
  csr: HostCsr,
  values: Float32Array | Float64Array,
  options: BetweennessSampling & { relTolerance?: number } = {},
): string | null {
  checkOptionsObject('verifyBetweenness', options);
  const want = betweennessReference(csr, options);
  if (values.length !== want.length) return `${values.length} values for ${want.length} vertices`;
  const tol = options.relTolerance ?? 1e-4;
  for (let v = 0; v < want.length; v++) {
    const [got, w] = [values[v]!, want[v]!];
    if (Number.isNaN(w) ? !Number.isNaN(got) : !(Math.abs(got - w) <= tol * Math.abs(w))) {
      return `betweenness of vertex ${v} is ${got}, expected ${w} (relative tolerance ${tol})`;
    }
  }
  return null;
}

/**
 * A minimum spanning forest: `edges` are distinct CSR edge ids of candidate arcs (source < target on an
 * undirected graph, any non-loop arc of a directed one), they close no cycle, and they number the vertex
 * count less the reference's tree count, so they span every component; their weights add up to `weight` and
 * to Kruskal's total (within `relTolerance`, default 1e-6, for f32 sums taken in another order), so the forest
 * is minimum. `trees`, when given, must equal the reference's.
 */
export function verifySpanningForest(
  csr: HostCsr,
  edges: Uint32Array,
  weight: number,
  trees?: number,
  relTolerance = 1e-6,
): string | null {
  const n = csr.vertexCount;
  const want = mstReference(csr);
  if (trees !== undefined && trees !== want.trees) return `${trees} trees, expected ${want.trees}`;
  if (edges.length !== n - want.trees) {
    return `${edges.length} forest edges, expected ${n - want.trees} (${want.trees} trees)`;
  }
  const src = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < n; v++) src.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
  const parent = Uint32Array.from({ length: n }, (_, i) => i);
  const find = (v: number): number => {
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]!]!;
      v = parent[v]!;
    }
    return v;
  };
  const used = new Uint8Array(csr.edgeCount);
  let sum = 0;
  for (const e of edges) {
    if (e >= csr.edgeCount) return `edge id ${e} is not an edge (the graph has ${csr.edgeCount})`;
    if (used[e]) return `edge ${e} appears twice`;
    used[e] = 1;
    const [u, v] = [src[e]!, csr.targets[e]!];
    if (csr.directed ? u === v : u >= v) return `edge ${e} (${u} -> ${v}) is not a candidate edge`;
    const [a, b] = [find(u), find(v)];
    if (a === b) return `edge ${e} (${u} -> ${v}) closes a cycle`;
    parent[Math.max(a, b)] = Math.min(a, b);
    sum += csr.weights ? csr.weights[e]! : 1;
  }
  const close = (x: number, y: number) => Math.abs(x - y) <= relTolerance * Math.max(1, Math.abs(y));
  if (!close(sum, weight)) return `weight ${weight}, but the forest's edges weigh ${sum}`;
  if (!close(weight, want.weight)) return `weight ${weight}, expected ${want.weight} (Kruskal)`;
  return null;
}
