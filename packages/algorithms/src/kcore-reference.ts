import { type HostCsr, hostCsrFromEdgeList } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

/** The simple undirected graph of `csr`'s arcs: both directions, self-loops dropped, duplicates merged. */
function simpleUndirected(csr: HostCsr): HostCsr {
  const src = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < csr.vertexCount; v++) src.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
  return hostCsrFromEdgeList({
    vertexCount: csr.vertexCount,
    src,
    dst: csr.targets.subarray(0, csr.edgeCount),
    directed: false,
  }).csr;
}

/**
 * Core numbers (networkx `core_number`) by Batagelj and Zaversnik's bucket algorithm, O(n + m): vertices
 * sorted by degree in buckets, each taken in order fixes its core and moves its higher-degree neighbors one
 * bucket down. Runs on the simple undirected graph of the arcs (self-loops ignored, parallel edges merged).
 */
export function coreNumberReference(csr: HostCsr): { core: Uint32Array; maxCore: number } {
  const g = simpleUndirected(csr);
  const n = g.vertexCount;
  const deg = new Uint32Array(n);
  let most = 0;
  for (let v = 0; v < n; v++) {
    deg[v] = g.offsets[v + 1]! - g.offsets[v]!;
    most = Math.max(most, deg[v]!);
  }
  // bin[d]: where the vertices of degree d start in `vert`; pos[v]: v's place in `vert`.
  const bin = new Uint32Array(most + 2);
  for (let v = 0; v < n; v++) bin[deg[v]! + 1]!++;
  for (let d = 1; d <= most + 1; d++) bin[d]! += bin[d - 1]!;
  const pos = new Uint32Array(n);
  const vert = new Uint32Array(n);
  const fill = bin.slice();
  for (let v = 0; v < n; v++) {
    pos[v] = fill[deg[v]!]!++;
    vert[pos[v]!] = v;
  }
  let maxCore = 0;
  for (let i = 0; i < n; i++) {
    const v = vert[i]!;
    maxCore = Math.max(maxCore, deg[v]!);
    for (let e = g.offsets[v]!; e < g.offsets[v + 1]!; e++) {
      const u = g.targets[e]!;
      if (deg[u]! <= deg[v]!) continue;
      // Move u to the front of its bucket, then shrink the bucket past it.
      const du = deg[u]!;
      const pu = pos[u]!;
      const pw = bin[du]!;
      const w = vert[pw]!;
      if (u !== w) {
        vert[pu] = w;
        pos[w] = pu;
        vert[pw] = u;
        pos[u] = pw;
      }
      bin[du]!++;
      deg[u] = du - 1;
    }
  }
  return { core: deg, maxCore };
}
