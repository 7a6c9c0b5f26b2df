import type { HostCsr } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

/**
 * Strongly connected components by Tarjan's algorithm with an explicit call stack (no recursion limit):
 * each vertex labelled with the smallest id of its component. An undirected CSR stores both arcs of every
 * edge, so its components are the connected ones.
 */
export function sccReference(csr: HostCsr): { labels: Uint32Array; count: number } {
  const n = csr.vertexCount;
  const { offsets, targets } = csr;
  const index = new Int32Array(n).fill(-1);
  const low = new Int32Array(n);
  const onStack = new Uint8Array(n);
  const stack = new Uint32Array(n);
  // The call stack: a vertex and the next of its out-edges to look at.
  const callVertex = new Uint32Array(n);
  const callEdge = new Uint32Array(n);
  const labels = new Uint32Array(n);
  let sp = 0;
  let cp = 0;
  let next = 0;
  let count = 0;
  const enter = (v: number) => {
    index[v] = low[v] = next++;
    stack[sp++] = v;
    onStack[v] = 1;
    callVertex[cp] = v;
    callEdge[cp++] = offsets[v]!;
  };
  for (let root = 0; root < n; root++) {
    if (index[root] !== -1) continue;
    enter(root);
    while (cp > 0) {
      const v = callVertex[cp - 1]!;
      const e = callEdge[cp - 1]!;
      if (e < offsets[v + 1]!) {
        callEdge[cp - 1] = e + 1;
        const w = targets[e]!;
        if (index[w] === -1) enter(w);
        else if (onStack[w]) low[v] = Math.min(low[v]!, index[w]!);
        continue;
      }
      cp--;
      if (cp > 0) {
        const u = callVertex[cp - 1]!;
        low[u] = Math.min(low[u]!, low[v]!);
      }
      if (low[v] !== index[v]) continue;
      let start = sp - 1;
      while (stack[start] !== v) start--;
      let smallest = v;
      for (let i = start; i < sp; i++) smallest = Math.min(smallest, stack[i]!);
      for (let i = start; i < sp; i++) {
        labels[stack[i]!] = smallest;
        onStack[stack[i]!] = 0;
      }
      sp = start;
      count++;
    }
  }
  return { labels, count };
}
