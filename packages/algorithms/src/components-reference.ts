import type { HostCsr } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

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
