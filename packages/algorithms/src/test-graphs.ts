// Test inputs: small graphs of every shape the algorithms must handle, cleaned the way users expect.
import {
  csrFromEdgeList,
  grid,
  type HostCsr,
  type HostEdgeList,
  kronecker,
  randomGeometric,
} from '@weft/graph';
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
  return csrFromEdgeList({ ...edges, ...(weights ? { weights } : {}) }).csr;
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

function path(n: number): HostEdgeList {
  return {
    vertexCount: n,
    src: Uint32Array.from({ length: Math.max(0, n - 1) }, (_, i) => i),
    dst: Uint32Array.from({ length: Math.max(0, n - 1) }, (_, i) => i + 1),
    directed: false,
  };
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
