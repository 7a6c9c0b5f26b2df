import type { HostCsr } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

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
