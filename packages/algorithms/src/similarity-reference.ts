import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';

// Plain TypeScript references on a host CSR: the test oracles and the bench's CPU baselines.

/** Vertex pairs: two columns, or one flat array of (first, second) pairs. */
export type VertexPairs = { src: ArrayLike<number>; dst: ArrayLike<number> } | Uint32Array;

/** Which similarity of two neighbour sets. */
export type SimilarityMetric = 'jaccard' | 'overlap';

export interface SimilarityResult {
  /** The pairs' first vertices. */
  first: Uint32Array;
  /** The pairs' second vertices. */
  second: Uint32Array;
  /** The similarity of each pair (jaccard or overlap coefficient). */
  score: Float32Array;
  /** |N(first) ∩ N(second)| of each pair. */
  common: Uint32Array;
  /** True when `graph` was directed and ran as its undirected graph. */
  undirected: boolean;
}

export interface JaccardAllOptions {
  /** Keep the `topK` most similar 2-hop neighbours of each vertex (ties: the smaller id). Default all. */
  topK?: number | undefined;
}

/** The two columns of `pairs`, checked against a graph of `n` vertices. */
export function pairColumns(pairs: VertexPairs, n: number): { first: Uint32Array; second: Uint32Array } {
  let first: Uint32Array;
  let second: Uint32Array;
  if (pairs instanceof Uint32Array) {
    if (pairs.length % 2 !== 0)
      throw new InputError(`a flat pair list needs an even length, not ${pairs.length}`, 'pairs');
    first = new Uint32Array(pairs.length / 2);
    second = new Uint32Array(pairs.length / 2);
    for (let i = 0; i < first.length; i++) {
      first[i] = pairs[2 * i]!;
      second[i] = pairs[2 * i + 1]!;
    }
  } else {
    if (pairs.src.length !== pairs.dst.length) {
      throw new InputError(
        `pairs.src has ${pairs.src.length} entries but pairs.dst ${pairs.dst.length}`,
        'pairs.dst',
      );
    }
    first = checkVertices(pairs.src, n, 'pairs.src');
    second = checkVertices(pairs.dst, n, 'pairs.dst');
  }
  checkVertices(first, n, 'pairs');
  checkVertices(second, n, 'pairs');
  return { first, second };
}

/** `vertices` as a Uint32Array, each checked to be a vertex of a graph of `n`. */
export function checkVertices(vertices: ArrayLike<number>, n: number, where: string): Uint32Array {
  for (let i = 0; i < vertices.length; i++) {
    const v = vertices[i]!;
    if (!Number.isInteger(v) || v < 0 || v >= n) {
      throw new InputError(`entry ${i} (${v}) is not a vertex (the graph has ${n})`, where);
    }
  }
  return Uint32Array.from(vertices);
}

/** Checks `topK`: a positive integer, or absent for all. */
export function checkTopK(topK: number | undefined): number {
  if (topK === undefined) return 0xffffffff;
  if (!Number.isInteger(topK) || topK < 1)
    throw new InputError(`topK must be a positive integer, not ${topK}`, 'options.topK');
  return Math.min(topK, 0xffffffff);
}

/** Sorted neighbour lists of the undirected simple graph: both directions, loops and duplicates dropped. */
function neighbourSets(csr: HostCsr): Uint32Array[] {
  const n = csr.vertexCount;
  const sets: Set<number>[] = Array.from({ length: n }, () => new Set());
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (v === u) continue;
      sets[u]!.add(v);
      sets[v]!.add(u);
    }
  }
  return sets.map((s) => Uint32Array.from(s).sort());
}

function commonCount(a: Uint32Array, b: Uint32Array): number {
  let i = 0;
  let j = 0;
  let c = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      c++;
      i++;
      j++;
    }
  }
  return c;
}

function score(metric: SimilarityMetric, common: number, da: number, db: number): number {
  const below = metric === 'jaccard' ? da + db - common : Math.min(da, db);
  return below > 0 ? common / below : 0;
}

function similarityReference(csr: HostCsr, pairs: VertexPairs, metric: SimilarityMetric): SimilarityResult {
  const { first, second } = pairColumns(pairs, csr.vertexCount);
  const sets = neighbourSets(csr);
  const common = new Uint32Array(first.length);
  const scores = new Float32Array(first.length);
  for (let i = 0; i < first.length; i++) {
    const a = sets[first[i]!]!;
    const b = sets[second[i]!]!;
    common[i] = commonCount(a, b);
    scores[i] = score(metric, common[i]!, a.length, b.length);
  }
  return { first, second, score: scores, common, undirected: csr.directed };
}

/**
 * networkx's `jaccard_coefficient` of each pair, |N(u) ∩ N(v)| / |N(u) ∪ N(v)| (0 when the union is empty),
 * on the undirected simple graph: a directed graph's arcs count both ways, and self-loops are ignored.
 */
export function jaccardReference(csr: HostCsr, pairs: VertexPairs): SimilarityResult {
  return similarityReference(csr, pairs, 'jaccard');
}

/** cuGraph's `overlap` of each pair, |N(u) ∩ N(v)| / min(|N(u)|, |N(v)|) (0 when either set is empty). */
export function overlapReference(csr: HostCsr, pairs: VertexPairs): SimilarityResult {
  return similarityReference(csr, pairs, 'overlap');
}

/**
 * The Jaccard similarity of each given vertex with each of its 2-hop neighbours (the vertices other than
 * itself that share a neighbour with it), the `topK` best per vertex: grouped by the vertices' order in
 * `vertices`, each group by score descending, ties by the smaller id.
 */
export function jaccardAllReference(
  csr: HostCsr,
  vertices: ArrayLike<number>,
  options: JaccardAllOptions = {},
): SimilarityResult {
  checkOptionsObject('jaccardAllReference', options);
  const sources = checkVertices(vertices, csr.vertexCount, 'vertices');
  const topK = checkTopK(options.topK);
  const sets = neighbourSets(csr);
  const first: number[] = [];
  const second: number[] = [];
  const scores: number[] = [];
  const commons: number[] = [];
  const count = new Uint32Array(csr.vertexCount);
  for (const u of sources) {
    const touched: number[] = [];
    for (const w of sets[u]!) {
      for (const v of sets[w]!) {
        if (v === u) continue;
        if (count[v] === 0) touched.push(v);
        count[v]!++;
      }
    }
    const found = touched.map((v) => {
      const c = count[v]!;
      count[v] = 0;
      return { v, c, s: Math.fround(score('jaccard', c, sets[u]!.length, sets[v]!.length)) };
    });
    found.sort((x, y) => y.s - x.s || x.v - y.v);
    for (const f of found.slice(0, topK)) {
      first.push(u);
      second.push(f.v);
      scores.push(f.s);
      commons.push(f.c);
    }
  }
  return {
    first: Uint32Array.from(first),
    second: Uint32Array.from(second),
    score: Float32Array.from(scores),
    common: Uint32Array.from(commons),
    undirected: csr.directed,
  };
}
