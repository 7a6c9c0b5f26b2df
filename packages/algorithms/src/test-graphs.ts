// Test inputs: small graphs of every shape the algorithms must handle, cleaned the way users expect.
import { type HostCsr, type HostEdgeList, hostCsrFromEdgeList } from '@weft/graph';
import { grid, kronecker, randomGeometric } from '@weft/graph/generators';
import { mulberry32 } from '@weft/testing';

export interface TestGraph {
  name: string;
  csr: HostCsr;
}

function clean(edges: HostEdgeList, weighted: 'u32' | 'f32' | false, seed: number): HostCsr {
  const r = mulberry32(seed);
  const m = edges.src.length;
  let weights: Uint32Array | Float32Array | undefined;
  if (weighted === 'u32') weights = Uint32Array.from({ length: m }, () => 1 + Math.floor(r() * 255));
  if (weighted === 'f32') weights = Float32Array.from({ length: m }, () => r() * 10);
  return hostCsrFromEdgeList({ ...edges, ...(weights ? { weights } : {}) }).csr;
}

/** Random edges with duplicates and self-loops (the builder drops loops and merges duplicates). */
export function randomEdges(n: number, m: number, seed: number, directed: boolean): HostEdgeList {
  const r = mulberry32(seed);
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    src[i] = Math.floor(r() * n);
    // Every fifth edge repeats an earlier one, every seventh is a self-loop.
    if (i % 5 === 4) {
      src[i] = src[i - 3]!;
      dst[i] = dst[i - 3]!;
    } else dst[i] = i % 7 === 6 ? src[i]! : Math.floor(r() * n);
  }
  return { vertexCount: n, src, dst, directed };
}

/** The path 0 - 1 - ... - (n - 1). */
export function path(n: number, directed = false): HostEdgeList {
  return {
    vertexCount: n,
    src: Uint32Array.from({ length: Math.max(0, n - 1) }, (_, i) => i),
    dst: Uint32Array.from({ length: Math.max(0, n - 1) }, (_, i) => i + 1),
    directed,
  };
}

/** `edges` with random u32 weights in [min, max], built into a CSR. */
export function withWeights(edges: HostEdgeList, seed: number, min = 1, max = 255): HostCsr {
  const r = mulberry32(seed);
  const weights = Uint32Array.from(
    { length: edges.src.length },
    () => min + Math.floor(r() * (max - min + 1)),
  );
  return hostCsrFromEdgeList({ ...edges, weights }).csr;
}

/** Two random clusters plus isolated vertices: disconnected. */
function clusters(seed: number): HostEdgeList {
  const a = randomEdges(200, 600, seed, false);
  const b = randomEdges(150, 400, seed + 1, false);
  return {
    vertexCount: 400,
    src: Uint32Array.from([...a.src, ...Array.from(b.src, (v) => v + 220)]),
    dst: Uint32Array.from([...a.dst, ...Array.from(b.dst, (v) => v + 220)]),
    directed: false,
  };
}

/** The corpus: fixed shapes, then `randomCount` random graphs of varied size, density and direction. */
export function testGraphs(weighted: 'u32' | 'f32' | false, randomCount: number): TestGraph[] {
  const fixed: [string, HostEdgeList][] = [
    ['single vertex', { vertexCount: 1, src: new Uint32Array(0), dst: new Uint32Array(0), directed: false }],
    [
      'two isolated vertices',
      { vertexCount: 2, src: new Uint32Array(0), dst: new Uint32Array(0), directed: true },
    ],
    [
      'only self-loops',
      { vertexCount: 3, src: Uint32Array.of(0, 1, 2), dst: Uint32Array.of(0, 1, 2), directed: true },
    ],
    ['disconnected clusters', clusters(3)],
    ['kronecker scale 11', kronecker({ scale: 11, edgeFactor: 8, seed: 5 })],
    ['grid 30 x 24', grid({ width: 30, height: 24 })],
    ['path 700', path(700)],
    ['random geometric', randomGeometric({ n: 1500, avgDegree: 6, seed: 7 })],
    ['directed random with duplicates and loops', randomEdges(800, 2400, 9, true)],
  ];
  const out = fixed.map(([name, e], i) => ({ name, csr: clean(e, weighted, 100 + i) }));
  const r = mulberry32(12345);
  for (let i = 0; i < randomCount; i++) {
    const n = 1 + Math.floor(r() * 600);
    const m = Math.floor(r() * n * (r() < 0.3 ? 0.8 : 6));
    const directed = r() < 0.5;
    out.push({
      name: `random ${i} (n ${n}, m ${m}, ${directed ? 'directed' : 'undirected'})`,
      csr: clean(randomEdges(n, m, 1000 + i, directed), weighted, i),
    });
  }
  return out;
}

/** A few sources: 0, the last vertex, one of degree 0 when there is one, one in the middle. */
export function testSources(csr: HostCsr): number[] {
  const n = csr.vertexCount;
  const s = new Set([0, n - 1, Math.floor(n / 2)]);
  for (let v = 0; v < n; v++) {
    if (csr.offsets[v + 1] === csr.offsets[v]) {
      s.add(v);
      break;
    }
  }
  return [...s].filter((v) => v >= 0 && v < n);
}

/** A small graph of a named family, as a raw edge list (duplicates and self-loops included). */
export interface FamilyGraph {
  family: string;
  edges: HostEdgeList;
}

const FAMILIES = ['uniform', 'disconnected', 'skewed', 'hub', 'high-diameter'] as const;

/**
 * `count` small graphs (up to ~130 vertices), cycling through the families: uniform random; disconnected
 * (random blobs and isolated vertices); skewed (Kronecker, scale 4-7); hub (a star plus sparse edges);
 * high-diameter (a path or cycle with rare chords and pendant leaves). Every graph gets repeated edges and
 * self-loops on top, which the CSR builder must merge and drop.
 */
export function randomFamilies(count: number, seed: number, directed: boolean): FamilyGraph[] {
  const r = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
  const out: FamilyGraph[] = [];
  for (let i = 0; i < count; i++) {
    const family = FAMILIES[i % FAMILIES.length]!;
    const src: number[] = [];
    const dst: number[] = [];
    const edge = (a: number, b: number) => {
      src.push(a);
      dst.push(b);
    };
    let n: number;
    if (family === 'uniform') {
      n = int(1, 120);
      const m = int(0, 4 * n);
      for (let e = 0; e < m; e++) edge(int(0, n - 1), int(0, n - 1));
    } else if (family === 'disconnected') {
      n = int(10, 130);
      // Blobs on disjoint id ranges; the ids past the last blob stay isolated.
      for (let start = 0; start + 3 < n * 0.8; ) {
        const size = int(2, 20);
        const end = Math.min(start + size, Math.floor(n * 0.8));
        for (let e = 0; e < 2 * (end - start); e++) edge(int(start, end - 1), int(start, end - 1));
        start = end + int(0, 3);
      }
    } else if (family === 'skewed') {
      const k = kronecker({ scale: int(4, 7), edgeFactor: int(2, 8), seed: int(1, 1 << 30) });
      n = k.vertexCount;
      for (let e = 0; e < k.src.length; e++) edge(k.src[e]!, k.dst[e]!);
    } else if (family === 'hub') {
      n = int(5, 130);
      const hub = int(0, n - 1);
      for (let v = 0; v < n; v++) {
        if (v === hub || r() >= 0.9) continue;
        if (r() < 0.5) edge(hub, v);
        else edge(v, hub);
      }
      for (let e = 0; e < n / 3; e++) edge(int(0, n - 1), int(0, n - 1));
    } else {
      n = int(20, 130);
      const cycle = r() < 0.5;
      for (let v = 0; v + 1 < n; v++) if (r() < 0.97) edge(r() < 0.8 ? v : v + 1, r() < 0.8 ? v + 1 : v);
      if (cycle) edge(n - 1, 0);
      for (let e = 0; e < 2; e++) edge(int(0, n - 1), int(0, n - 1));
    }
    // Repeats of earlier edges and self-loops.
    const m = src.length;
    for (let e = 0; e < m / 5; e++) {
      const j = int(0, m - 1);
      edge(src[j]!, dst[j]!);
    }
    for (let e = 0; e < 3; e++) {
      const v = int(0, n - 1);
      edge(v, v);
    }
    out.push({
      family,
      edges: { vertexCount: n, src: Uint32Array.from(src), dst: Uint32Array.from(dst), directed },
    });
  }
  return out;
}

/**
 * The disjoint union of `graphs` (ids shifted past the graphs before), so that one GPU run covers them
 * all; `firsts[i]` is graph i's first vertex. Weights are drawn per edge: u32 in [1, 255] or f32 in [0, 10).
 */
export function disjointUnion(
  graphs: readonly FamilyGraph[],
  weighted: 'u32' | 'f32' | false,
  seed: number,
): { edges: HostEdgeList; firsts: number[] } {
  const firsts: number[] = [];
  let n = 0;
  let m = 0;
  for (const g of graphs) {
    firsts.push(n);
    n += g.edges.vertexCount;
    m += g.edges.src.length;
  }
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  let at = 0;
  graphs.forEach((g, i) => {
    for (let e = 0; e < g.edges.src.length; e++, at++) {
      src[at] = g.edges.src[e]! + firsts[i]!;
      dst[at] = g.edges.dst[e]! + firsts[i]!;
    }
  });
  const r = mulberry32(seed);
  const directed = graphs[0]?.edges.directed ?? false;
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed };
  if (weighted === 'u32') edges.weights = Uint32Array.from({ length: m }, () => 1 + Math.floor(r() * 255));
  if (weighted === 'f32') edges.weights = Float32Array.from({ length: m }, () => r() * 10);
  return { edges, firsts };
}

/** An undirected graph of `pairs`, each edge weighing `weight(i)` both ways. */
export function undirected(
  vertexCount: number,
  pairs: [number, number][],
  weight: (i: number) => number,
): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount,
    src: Uint32Array.from(pairs, (p) => p[0]),
    dst: Uint32Array.from(pairs, (p) => p[1]),
    weights: Uint32Array.from(pairs, (_, i) => weight(i)),
    directed: false,
  }).csr;
}

/**
 * A path of `handle` vertices ending in a hub with `bristles` neighbours, each with a twig, all twigs joined
 * to a knot, then a path of `tail`, with random weights in [1, 16]: from 0 the frontier is one vertex a
 * level, more than `bristles` for a few levels, then one again.
 */
export function broom(handle: number, bristles: number, tail: number, seed: number): HostCsr {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < handle; i++) pairs.push([i, i + 1]);
  const hub = handle - 1;
  const knot = handle + 2 * bristles;
  for (let j = 0; j < bristles; j++) {
    pairs.push([hub, handle + j], [handle + j, handle + bristles + j], [handle + bristles + j, knot]);
  }
  for (let t = 0; t < tail; t++) pairs.push([knot + t, knot + t + 1]);
  const r = mulberry32(seed);
  return undirected(knot + tail + 1, pairs, () => 1 + Math.floor(r() * 16));
}

/** The simple undirected graph of a CSR's arcs (each arc an edge, loops dropped, parallel edges merged). */
export function undirectedSimple(g: HostCsr): HostCsr {
  const src = new Uint32Array(g.edgeCount);
  for (let v = 0; v < g.vertexCount; v++) src.fill(v, g.offsets[v]!, g.offsets[v + 1]!);
  return hostCsrFromEdgeList({ vertexCount: g.vertexCount, src, dst: g.targets, directed: false }).csr;
}
