import type { HostCsr } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

/**
 * The simple undirected graph of `csr`'s arcs (both directions, self-loops dropped, duplicates merged) as
 * rows of neighbors, in O(n + m): every arc listed both ways, then each row deduplicated with a stamp array.
 */
function simpleUndirected(csr: HostCsr): { offsets: Uint32Array; targets: Uint32Array } {
  const n = csr.vertexCount;
  const start = new Uint32Array(n + 1);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (u !== v) {
        start[u + 1]!++;
        start[v + 1]!++;
      }
    }
  }
  for (let v = 0; v < n; v++) start[v + 1]! += start[v]!;
  const adj = new Uint32Array(start[n]!);
  const fill = start.slice(0, n);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (u !== v) {
        adj[fill[u]!++] = v;
        adj[fill[v]!++] = u;
      }
    }
  }
  // Rows shrink in place: a row's kept neighbors never pass its own start.
  const offsets = new Uint32Array(n + 1);
  const stamp = new Int32Array(n).fill(-1);
  let kept = 0;
  for (let v = 0; v < n; v++) {
    for (let k = start[v]!; k < start[v + 1]!; k++) {
      const w = adj[k]!;
      if (stamp[w] === v) continue;
      stamp[w] = v;
      adj[kept++] = w;
    }
    offsets[v + 1] = kept;
  }
  return { offsets, targets: adj.subarray(0, kept) };
}

/**
 * Core numbers (networkx `core_number`) by Batagelj and Zaversnik's bucket algorithm, O(n + m): vertices
 * sorted by degree in buckets, each taken in order fixes its core and moves its higher-degree neighbors one
 * bucket down. Runs on the simple undirected graph of the arcs (self-loops ignored, parallel edges merged).
 */
export function coreNumberReference(csr: HostCsr): { core: Uint32Array; maxCore: number } {
  const g = simpleUndirected(csr);
  const n = csr.vertexCount;
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
