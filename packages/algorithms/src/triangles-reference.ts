import type { HostCsr } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

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
