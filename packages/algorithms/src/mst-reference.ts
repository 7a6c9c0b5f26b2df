import type { HostCsr } from '@weft/graph';

/**
 * Kruskal's minimum spanning forest on the host, the reference for `minimumSpanningForest`: the same edges
 * (arcs with source < target of an undirected graph, every non-loop arc of a directed one) taken in order of
 * (weight, edge id), so with that tie-break it picks the same forest.
 */
export function mstReference(csr: HostCsr): { weight: number; edges: Uint32Array; trees: number } {
  const n = csr.vertexCount;
  const ids: number[] = [];
  const src = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < n; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      src[e] = v;
      const t = csr.targets[e]!;
      if (csr.directed ? t !== v : v < t) ids.push(e);
    }
  }
  const w = (e: number) => (csr.weights ? csr.weights[e]! : 1);
  ids.sort((a, b) => w(a) - w(b) || a - b);
  const parent = Uint32Array.from({ length: n }, (_, i) => i);
  const find = (v: number): number => {
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]!]!;
      v = parent[v]!;
    }
    return v;
  };
  const edges: number[] = [];
  let weight = 0;
  for (const e of ids) {
    const a = find(src[e]!);
    const b = find(csr.targets[e]!);
    if (a === b) continue;
    parent[Math.max(a, b)] = Math.min(a, b);
    edges.push(e);
    weight += w(e);
  }
  return { weight, edges: Uint32Array.from(edges).sort(), trees: n - edges.length };
}
