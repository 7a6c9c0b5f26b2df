import type { HostCsr } from '@weft/graph';

/*
 * Plain TypeScript algorithms on a host CSR: the test oracles and the CPU baselines of the bench.
 * They follow the same conventions as the GPU versions (see each function).
 */

/** BFS depths from `source` (-1 unreached) and parents (-1 for the source and unreached vertices). */
export function bfsReference(csr: HostCsr, source: number): { depths: Int32Array; parents: Int32Array } {
  const n = csr.vertexCount;
  const depths = new Int32Array(n).fill(-1);
  const parents = new Int32Array(n).fill(-1);
  const queue = new Uint32Array(n);
  depths[source] = 0;
  queue[0] = source;
  let head = 0;
  let tail = 1;
  while (head < tail) {
    const u = queue[head++]!;
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (depths[v] === -1) {
        depths[v] = depths[u]! + 1;
        parents[v] = u;
        queue[tail++] = v;
      }
    }
  }
  return { depths, parents };
}

/** `w(e)` of an edge: 1 without weights; f32 weights added in f32 like the GPU does. */
function edgeWeight(csr: HostCsr): (e: number) => number {
  const w = csr.weights;
  return w === undefined ? () => 1 : (e) => w[e]!;
}

/**
 * Dijkstra from `source` over non-negative weights (binary heap): distances, `Infinity` unreached. With f32
 * weights every sum is rounded to f32 (`Math.fround`), so the result is the GPU's fixed point exactly.
 */
export function ssspReference(csr: HostCsr, source: number): Float64Array {
  const n = csr.vertexCount;
  const dist = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const weight = edgeWeight(csr);
  const add =
    csr.weights instanceof Float32Array
      ? (a: number, b: number) => Math.fround(a + b)
      : (a: number, b: number) => a + b;
  const heapV: number[] = [];
  const heapD: number[] = [];
  const push = (v: number, d: number) => {
    let i = heapV.length;
    heapV.push(v);
    heapD.push(d);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heapD[p]! <= d) break;
      heapV[i] = heapV[p]!;
      heapD[i] = heapD[p]!;
      i = p;
    }
    heapV[i] = v;
    heapD[i] = d;
  };
  const pop = (): [number, number] => {
    const top: [number, number] = [heapV[0]!, heapD[0]!];
    const v = heapV.pop()!;
    const d = heapD.pop()!;
    const size = heapV.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && heapD[c + 1]! < heapD[c]!) c++;
        if (heapD[c]! >= d) break;
        heapV[i] = heapV[c]!;
        heapD[i] = heapD[c]!;
        i = c;
      }
      heapV[i] = v;
      heapD[i] = d;
    }
    return top;
  };
  dist[source] = 0;
  push(source, 0);
  while (heapV.length > 0) {
    const [u, d] = pop();
    if (d > dist[u]!) continue;
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      const nd = add(d, weight(e));
      if (nd < dist[v]!) {
        dist[v] = nd;
        push(v, nd);
      }
    }
  }
  return dist;
}

export interface PageRankReferenceOptions {
  alpha?: number;
  tolerance?: number;
  maxIterations?: number;
}

/**
 * PageRank as networkx computes it (power iteration in f64): uniform teleport, a dangling vertex's rank
 * spread evenly over all vertices, ranks summing to 1; stops when no rank changes by more than
 * `tolerance` relative to itself (as the GPU version; networkx uses the L1 change below `N * tol`) or
 * after `maxIterations`.
 */
export function pageRankReference(
  csr: HostCsr,
  options: PageRankReferenceOptions = {},
): { ranks: Float64Array; iterations: number; converged: boolean } {
  const n = csr.vertexCount;
  const alpha = options.alpha ?? 0.85;
  const tolerance = options.tolerance ?? 1e-5;
  const maxIterations = options.maxIterations ?? 100;
  let ranks = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let it = 1; it <= maxIterations; it++) {
    let dangling = 0;
    next.fill(0);
    for (let u = 0; u < n; u++) {
      const deg = csr.offsets[u + 1]! - csr.offsets[u]!;
      if (deg === 0) {
        dangling += ranks[u]!;
        continue;
      }
      const share = ranks[u]! / deg;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) next[csr.targets[e]!]! += share;
    }
    let change = 0;
    for (let v = 0; v < n; v++) {
      next[v] = (1 - alpha) / n + alpha * (next[v]! + dangling / n);
      change = Math.max(change, Math.abs(next[v]! - ranks[v]!) / Math.max(next[v]!, 1e-300));
    }
    [ranks, next] = [next, ranks];
    if (change < tolerance) return { ranks, iterations: it, converged: true };
  }
  return { ranks, iterations: maxIterations, converged: n === 0 };
}

/** Weakly connected components by union-find: each vertex labelled with the smallest id of its component. */
export function componentsReference(csr: HostCsr): { labels: Uint32Array; count: number } {
  const n = csr.vertexCount;
  const parent = Uint32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const a = find(u);
      const b = find(csr.targets[e]!);
      // Union by smaller id, so every root is its component's smallest vertex.
      if (a < b) parent[b] = a;
      else if (b < a) parent[a] = b;
    }
  }
  const labels = new Uint32Array(n);
  let count = 0;
  for (let v = 0; v < n; v++) {
    labels[v] = find(v);
    if (labels[v] === v) count++;
  }
  return { labels, count };
}

/** Edges a traversal from `reached` vertices examines: the sum of their out-degrees (for TEPS). */
export function edgesFrom(csr: HostCsr, reached: (v: number) => boolean): number {
  let m = 0;
  for (let v = 0; v < csr.vertexCount; v++) if (reached(v)) m += csr.offsets[v + 1]! - csr.offsets[v]!;
  return m;
}

/**
 * Triangles of an undirected simple CSR, each counted once. Vertices are ranked by (degree, id) and each
 * edge is oriented from the lower rank to the higher, which bounds every out-list by sqrt(2m); each vertex
 * marks its out-neighbors and counts the marked out-neighbors of each of them: O(m sqrt m). Working in rank
 * space keeps the hubs, which most oriented edges point to, in one small range of the mark array (cache).
 */
export function trianglesReference(csr: HostCsr): number {
  const n = csr.vertexCount;
  const { offsets, targets } = csr;
  // rank[v]: v's place in (degree, id) order, by a counting sort on degree (stable: ids ascend).
  const byDegree = new Uint32Array(n + 1);
  for (let v = 0; v < n; v++) byDegree[offsets[v + 1]! - offsets[v]! + 1]!++;
  for (let d = 0; d < n; d++) byDegree[d + 1]! += byDegree[d]!;
  const rank = new Uint32Array(n);
  const vertexOf = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    const r = byDegree[offsets[v + 1]! - offsets[v]!]!++;
    rank[v] = r;
    vertexOf[r] = v;
  }
  // Oriented CSR in rank space: row r lists the higher ranks among its vertex's neighbors.
  const outOffsets = new Uint32Array(n + 1);
  for (let r = 0; r < n; r++) {
    const u = vertexOf[r]!;
    let k = 0;
    for (let e = offsets[u]!; e < offsets[u + 1]!; e++) if (rank[targets[e]!]! > r) k++;
    outOffsets[r + 1] = outOffsets[r]! + k;
  }
  const out = new Uint32Array(outOffsets[n]!);
  for (let r = 0; r < n; r++) {
    const u = vertexOf[r]!;
    let at = outOffsets[r]!;
    for (let e = offsets[u]!; e < offsets[u + 1]!; e++) {
      const t = rank[targets[e]!]!;
      if (t > r) out[at++] = t;
    }
  }
  const mark = new Int32Array(n).fill(-1);
  let count = 0;
  for (let r = 0; r < n; r++) {
    for (let e = outOffsets[r]!; e < outOffsets[r + 1]!; e++) mark[out[e]!] = r;
    for (let e = outOffsets[r]!; e < outOffsets[r + 1]!; e++) {
      const s = out[e]!;
      for (let f = outOffsets[s]!; f < outOffsets[s + 1]!; f++) if (mark[out[f]!] === r) count++;
    }
  }
  return count;
}
