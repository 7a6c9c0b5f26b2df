import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';

/** Options of {@link modularityReference} and {@link modularity}. */
export interface ModularityOptions {
  /** γ: larger favours smaller communities (default 1). */
  resolution?: number;
  /** Read the graph's edge weights (default true); `false` counts every edge as 1. */
  weight?: boolean;
}

/** Options of {@link louvainReference} and {@link louvain}. */
export interface LouvainOptions {
  /** γ of the modularity being maximised (default 1). */
  resolution?: number;
  /** Stop after this many levels (default: until no level gains more than `threshold`). */
  maxLevels?: number;
  /** A level that gains no more modularity than this is the last (default 1e-7, as networkx). */
  threshold?: number;
  /** Seeds the vertex order (reference) or the half of the vertices that may move in a sweep (GPU). Default 1. */
  seed?: number;
  /** Read the graph's edge weights (default true). */
  weight?: boolean;
  /**
   * How a GPU sweep finds each vertex's weight to each neighbouring community: `'hash'`, per-vertex hash
   * tables filled by one pass over the arcs (the default when twice the arcs fit one storage binding), or
   * `'sort'`, a sort of the arcs by target community and a segmented reduction of the runs (the default
   * beyond). Both choose the same moves on unweighted graphs; the reference ignores it.
   */
  localMoving?: 'hash' | 'sort';
}

export interface LouvainResult {
  /** The final community of every vertex, 0 .. count - 1. */
  communities: Uint32Array;
  /** Per level, the community of every original vertex after that level. */
  levels: Uint32Array[];
  /** Modularity of `communities` (of the undirected graph when the input was directed). */
  modularity: number;
  /** Number of communities. */
  count: number;
  /** True when `graph` was directed and ran as its undirected graph. */
  undirected: boolean;
}

/** A weighted undirected graph as arcs grouped by source, each loop's weight doubled (its degree share). */
export interface ArcGraph {
  n: number;
  offsets: Uint32Array;
  targets: Uint32Array;
  /** Degree contribution of the arc: its weight, twice that for a loop. */
  share: Float64Array;
}

/** The edge weights `modularity` reads, checked: finite and non-negative. */
function edgeWeights(csr: HostCsr, weight: boolean | undefined, who: string): ArrayLike<number> | undefined {
  if (weight === false || csr.weights === undefined) return undefined;
  for (let e = 0; e < csr.edgeCount; e++) {
    const w = csr.weights[e]!;
    if (!(w >= 0) || !Number.isFinite(w)) {
      throw new InputError(`${who} needs finite non-negative weights; edge ${e} weighs ${w}`, 'graph');
    }
  }
  return csr.weights;
}

/** The undirected view of `csr` as an {@link ArcGraph}: a directed arc counts as an undirected edge. */
export function arcGraph(csr: HostCsr, weight: boolean | undefined, who: string): ArcGraph {
  const n = csr.vertexCount;
  const w = edgeWeights(csr, weight, who);
  const src: number[] = [];
  const dst: number[] = [];
  const share: number[] = [];
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      const x = w ? w[e]! : 1;
      if (csr.directed) {
        src.push(u, v);
        dst.push(v, u);
        share.push(x, x);
      } else {
        src.push(u);
        dst.push(v);
        share.push(u === v ? 2 * x : x);
      }
    }
  }
  return fromArcs(n, src, dst, share);
}

function fromArcs(n: number, src: number[], dst: number[], share: number[]): ArcGraph {
  const offsets = new Uint32Array(n + 1);
  for (const u of src) offsets[u + 1]!++;
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  const at = offsets.slice(0, n);
  const targets = new Uint32Array(src.length);
  const shares = new Float64Array(src.length);
  for (let i = 0; i < src.length; i++) {
    const p = at[src[i]!]!++;
    targets[p] = dst[i]!;
    shares[p] = share[i]!;
  }
  return { n, offsets, targets, share: shares };
}

function checkPartition(partition: ArrayLike<number>, n: number): void {
  if (partition.length !== n) {
    throw new InputError(`partition has ${partition.length} entries for ${n} vertices`, 'partition');
  }
  for (let v = 0; v < n; v++) {
    const c = partition[v]!;
    if (!Number.isInteger(c) || c < 0 || c > 0xffffffff) {
      throw new InputError(`partition[${v}] = ${c} is not a u32 community id`, 'partition');
    }
  }
}

export function checkResolution(resolution: number): void {
  if (!Number.isFinite(resolution) || resolution < 0) {
    throw new InputError(`resolution must be a finite number >= 0, got ${resolution}`, 'resolution');
  }
}

/**
 * Modularity of a partition (one community id per vertex), as networkx `modularity`: for an undirected graph
 * Σ_c L_c / m − γ (d_c / 2m)², for a directed one Σ_c L_c / m − γ out_c in_c / m²; a graph of total weight 0
 * has modularity 0.
 */
export function modularityReference(
  csr: HostCsr,
  partition: ArrayLike<number>,
  options: ModularityOptions = {},
): number {
  checkOptionsObject('modularityReference', options);
  const n = csr.vertexCount;
  const resolution = options.resolution ?? 1;
  checkResolution(resolution);
  checkPartition(partition, n);
  const w = edgeWeights(csr, options.weight, 'modularity');
  const out = new Map<number, number>();
  const inn = new Map<number, number>();
  let intra = 0;
  let total = 0;
  for (let u = 0; u < n; u++) {
    const cu = partition[u]!;
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      const x = w ? w[e]! : 1;
      // Undirected: both arcs of an edge are stored, a loop once; count a loop's share twice.
      const share = !csr.directed && u === v ? 2 * x : x;
      total += share;
      if (partition[v] === cu) intra += share;
      out.set(cu, (out.get(cu) ?? 0) + share);
      const cv = partition[v]!;
      inn.set(cv, (inn.get(cv) ?? 0) + share);
    }
  }
  if (total === 0) return 0;
  let expected = 0;
  // Undirected: d_c is the degree sum (out-arcs), as networkx; the stored arcs' weights need not mirror.
  for (const [c, d] of out) expected += d * (csr.directed ? (inn.get(c) ?? 0) : d);
  return intra / total - (resolution * expected) / (total * total);
}

/** A deterministic generator of 32-bit words (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/**
 * One level of sequential local moving (networkx `_one_level`) from singletons or from `initial`: the community
 * of each vertex, and if any moved.
 */
export function oneLevel(
  g: ArcGraph,
  resolution: number,
  next: () => number,
  initial?: Uint32Array,
): { comm: Uint32Array; moved: boolean } {
  const n = g.n;
  const k = new Float64Array(n);
  let m2 = 0;
  for (let u = 0; u < n; u++) {
    for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) k[u]! += g.share[e]!;
    m2 += k[u]!;
  }
  const comm = initial ? initial.slice() : Uint32Array.from({ length: n }, (_, i) => i);
  const stot = new Float64Array(n);
  for (let u = 0; u < n; u++) stot[comm[u]!]! += k[u]!;
  const order = Uint32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  let moved = false;
  if (m2 === 0) return { comm, moved };
  const toComm = new Map<number, number>();
  for (;;) {
    let moves = 0;
    for (const u of order) {
      toComm.clear();
      for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) {
        const v = g.targets[e]!;
        if (v !== u) toComm.set(comm[v]!, (toComm.get(comm[v]!) ?? 0) + g.share[e]!);
      }
      const own = comm[u]!;
      const ku = k[u]!;
      stot[own]! -= ku;
      const score = (c: number) => (toComm.get(c) ?? 0) - (resolution * stot[c]! * ku) / m2;
      let best = own;
      let bestScore = score(own);
      for (const c of toComm.keys()) {
        const s = score(c);
        if (s > bestScore) {
          best = c;
          bestScore = s;
        }
      }
      stot[best]! += ku;
      if (best !== own) {
        comm[u] = best;
        moves++;
        moved = true;
      }
    }
    if (moves === 0) break;
  }
  return { comm, moved };
}

/** Renumbers `comm` to 0 .. count - 1 in order of first appearance; returns the count. */
export function renumber(comm: Uint32Array): number {
  const ids = new Map<number, number>();
  for (let i = 0; i < comm.length; i++) {
    let id = ids.get(comm[i]!);
    if (id === undefined) {
      id = ids.size;
      ids.set(comm[i]!, id);
    }
    comm[i] = id;
  }
  return ids.size;
}

/** The community graph: one vertex per community, arcs between communities summed, inner arcs as loops. */
export function aggregate(g: ArcGraph, comm: Uint32Array, count: number): ArcGraph {
  const sums = new Map<number, number>();
  for (let u = 0; u < g.n; u++) {
    for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) {
      const key = comm[u]! * count + comm[g.targets[e]!]!;
      sums.set(key, (sums.get(key) ?? 0) + g.share[e]!);
    }
  }
  const src: number[] = [];
  const dst: number[] = [];
  const share: number[] = [];
  for (const [key, s] of sums) {
    src.push(Math.floor(key / count));
    dst.push(key % count);
    share.push(s);
  }
  return fromArcs(count, src, dst, share);
}

/** Modularity of `comm` on an {@link ArcGraph}. */
export function arcModularity(g: ArcGraph, comm: ArrayLike<number>, resolution: number): number {
  const d = new Map<number, number>();
  let intra = 0;
  let m2 = 0;
  for (let u = 0; u < g.n; u++) {
    for (let e = g.offsets[u]!; e < g.offsets[u + 1]!; e++) {
      m2 += g.share[e]!;
      if (comm[g.targets[e]!] === comm[u]) intra += g.share[e]!;
      d.set(comm[u]!, (d.get(comm[u]!) ?? 0) + g.share[e]!);
    }
  }
  if (m2 === 0) return 0;
  let expected = 0;
  for (const x of d.values()) expected += x * x;
  return intra / m2 - (resolution * expected) / (m2 * m2);
}

export function checkLouvainOptions(
  options: LouvainOptions,
): Required<Omit<LouvainOptions, 'weight' | 'localMoving'>> & { localMoving: 'hash' | 'sort' | undefined } {
  const resolution = options.resolution ?? 1;
  checkResolution(resolution);
  const maxLevels = options.maxLevels ?? Number.POSITIVE_INFINITY;
  if (!(maxLevels >= 1) || (Number.isFinite(maxLevels) && !Number.isInteger(maxLevels))) {
    throw new InputError(`maxLevels must be an integer >= 1, got ${maxLevels}`, 'maxLevels');
  }
  const threshold = options.threshold ?? 1e-7;
  if (!Number.isFinite(threshold))
    throw new InputError(`threshold must be finite, got ${threshold}`, 'threshold');
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new InputError(`seed must be an integer, got ${seed}`, 'seed');
  const localMoving = options.localMoving;
  if (localMoving !== undefined && localMoving !== 'hash' && localMoving !== 'sort') {
    throw new InputError(`localMoving must be 'hash' or 'sort', got ${String(localMoving)}`, 'localMoving');
  }
  return { resolution, maxLevels, threshold, seed, localMoving };
}

/**
 * Sequential Louvain as networkx `louvain_communities`: local moving in a seeded random vertex order until no
 * vertex moves, then the community graph, level after level until a level gains no more than `threshold`.
 * A directed graph runs as its undirected graph. The CPU baseline and test oracle of {@link louvain}.
 */
export function louvainReference(csr: HostCsr, options: LouvainOptions = {}): LouvainResult {
  checkOptionsObject('louvainReference', options);
  const { resolution, maxLevels, threshold, seed } = checkLouvainOptions(options);
  const n = csr.vertexCount;
  let g = arcGraph(csr, options.weight, 'louvain');
  const next = rng(seed);
  const part = Uint32Array.from({ length: n }, (_, i) => i);
  const levels: Uint32Array[] = [];
  let q = arcModularity(
    g,
    Uint32Array.from({ length: g.n }, (_, i) => i),
    resolution,
  );
  while (levels.length < maxLevels) {
    const { comm, moved } = oneLevel(g, resolution, next);
    if (!moved) break;
    const count = renumber(comm);
    for (let v = 0; v < n; v++) part[v] = comm[part[v]!]!;
    levels.push(part.slice());
    const newQ = arcModularity(g, comm, resolution);
    if (newQ - q <= threshold) break;
    q = newQ;
    g = aggregate(g, comm, count);
  }
  const communities = part.slice();
  const count = renumber(communities);
  const modularityValue = arcModularity(arcGraph(csr, options.weight, 'louvain'), communities, resolution);
  return { communities, levels, modularity: modularityValue, count, undirected: csr.directed };
}

/** Options of {@link labelPropagationReference} and {@link labelPropagation}. */
export interface LabelPropagationOptions {
  /** Stop after this many sweeps over all colour classes (default 100). */
  maxIterations?: number;
  /** Seeds the GPU colouring whose classes update together (default 1). */
  seed?: number;
  /**
   * How the GPU counts each vertex's neighbouring labels: `'hash'`, per-vertex hash tables filled by one
   * pass over a colour class's arcs (the default when twice the arcs fit one storage binding), or `'sort'`,
   * a sort of the class's arcs by label (the default beyond). Both give the same labels; the reference
   * ignores it.
   */
  counting?: 'hash' | 'sort';
}

export interface LabelPropagationResult {
  /** The community of every vertex, 0 .. count - 1, numbered in order of the smallest vertex of each. */
  labels: Uint32Array;
  /** Number of communities. */
  count: number;
  /** Sweeps run, the last one changing no label when `converged`. */
  iterations: number;
  converged: boolean;
  /** True when `graph` was directed and ran as its undirected graph. */
  undirected: boolean;
}

/** Renumbers labels densely in order of first appearance by vertex id. */
export function denseLabels(raw: ArrayLike<number>): { labels: Uint32Array; count: number } {
  const labels = Uint32Array.from(raw);
  return { labels, count: renumber(labels) };
}

/**
 * The simple undirected graph of `csr` as networkx's `Graph` sees it: each vertex's distinct neighbours in
 * increasing order, a vertex with a self-loop among its own neighbours, arcs of a directed graph both ways.
 */
function simpleNeighbors(csr: HostCsr): Uint32Array[] {
  const sets = Array.from({ length: csr.vertexCount }, () => new Set<number>());
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      sets[u]!.add(v);
      sets[v]!.add(u);
    }
  }
  return sets.map((s) => Uint32Array.from(s).sort());
}

/**
 * Semi-synchronous label propagation as networkx `label_propagation_communities` (Cordasco–Gargano): labels
 * start as vertex ids; the colour classes of a proper colouring update in increasing colour order, each
 * vertex of a class from its neighbours' labels before the class: it keeps its label if that is among the
 * most frequent, else takes the largest of the most frequent ("Prec-Max"). Neighbours are those of the
 * simple undirected graph (parallel edges count once, a self-loop votes for the
 * vertex's own label), so a directed graph runs as its undirected graph. Stops after a sweep that changes no
 * label. `colors` defaults to networkx's `greedy_color` (largest degree first, ties by id), which makes the
 * partition equal networkx's on a graph whose nodes were added in id order.
 */
export function labelPropagationReference(
  csr: HostCsr,
  options: LabelPropagationOptions & { colors?: ArrayLike<number> } = {},
): LabelPropagationResult {
  checkOptionsObject('labelPropagationReference', options);
  const n = csr.vertexCount;
  const maxIterations = checkMaxIterations(options.maxIterations);
  const nbrs = simpleNeighbors(csr);
  const colors = options.colors ?? largestFirstColors(nbrs);
  if (colors.length !== n) {
    throw new InputError(`colors has ${colors.length} entries for ${n} vertices`, 'colors');
  }
  const classes = new Map<number, number[]>();
  for (let v = 0; v < n; v++) {
    const list = classes.get(colors[v]!) ?? [];
    list.push(v);
    classes.set(colors[v]!, list);
  }
  const order = [...classes.keys()].sort((a, b) => a - b).map((c) => classes.get(c)!);
  const label = Uint32Array.from({ length: n }, (_, i) => i);
  const freq = new Map<number, number>();
  let iterations = 0;
  let converged = false;
  while (iterations < maxIterations) {
    iterations++;
    let changed = 0;
    for (const members of order) {
      const updates: [number, number][] = [];
      for (const v of members) {
        freq.clear();
        for (const w of nbrs[v]!) freq.set(label[w]!, (freq.get(label[w]!) ?? 0) + 1);
        let most = 0;
        let largest = 0;
        for (const [l, f] of freq) {
          if (f > most || (f === most && l > largest)) {
            most = f;
            largest = l;
          }
        }
        if (most > 0 && freq.get(label[v]!) !== most) updates.push([v, largest]);
      }
      for (const [v, l] of updates) label[v] = l;
      changed += updates.length;
    }
    if (changed === 0) {
      converged = true;
      break;
    }
  }
  return { ...denseLabels(label), iterations, converged, undirected: csr.directed };
}

function checkMaxIterations(maxIterations: number | undefined): number {
  const value = maxIterations ?? 100;
  if (!Number.isInteger(value) || value < 1) {
    throw new InputError(`maxIterations must be an integer >= 1, got ${value}`, 'maxIterations');
  }
  return value;
}

/** Checks label propagation's options; returns `maxIterations` and `seed` with their defaults. */
export function checkLabelPropagationOptions(options: LabelPropagationOptions): {
  maxIterations: number;
  seed: number;
  counting: 'hash' | 'sort' | undefined;
} {
  const seed = options.seed ?? 1;
  if (!Number.isInteger(seed)) throw new InputError(`seed must be an integer, got ${seed}`, 'seed');
  const counting = options.counting;
  if (counting !== undefined && counting !== 'hash' && counting !== 'sort') {
    throw new InputError(`counting must be 'hash' or 'sort', got ${String(counting)}`, 'counting');
  }
  return { maxIterations: checkMaxIterations(options.maxIterations), seed, counting };
}

/**
 * networkx `greedy_color` with its default strategy: vertices by decreasing degree (a self-loop counting
 * twice, ties in id order), each taking the smallest colour no coloured neighbour has.
 */
function largestFirstColors(nbrs: Uint32Array[]): Uint32Array {
  const n = nbrs.length;
  const degree = (v: number) => nbrs[v]!.length + (nbrs[v]!.includes(v) ? 1 : 0);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => degree(b) - degree(a) || a - b);
  const colors = new Uint32Array(n).fill(0xffffffff);
  const seen = new Set<number>();
  for (const v of order) {
    seen.clear();
    for (const w of nbrs[v]!) seen.add(colors[w]!);
    let c = 0;
    while (seen.has(c)) c++;
    colors[v] = c;
  }
  return colors;
}
