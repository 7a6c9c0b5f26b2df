import type { HostCsr } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

/** `w(e)` of an edge: 1 without weights; f32 weights added in f32 like the GPU does. */
function edgeWeight(csr: HostCsr): (e: number) => number {
  const w = csr.weights;
  return w === undefined ? () => 1 : (e) => w[e]!;
}

/**
 * Dijkstra from `source` over non-negative weights (binary heap): distances, `Infinity` unreached. With f32
 * weights every sum is rounded to f32 (`Math.fround`), so the result is the GPU's fixed point exactly.
 */
export function ssspReference(csr: HostCsr, source: number): Float64Array {
  const n = csr.vertexCount;
  const dist = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  const weight = edgeWeight(csr);
  const add =
    csr.weights instanceof Float32Array
      ? (a: number, b: number) => Math.fround(a + b)
      : (a: number, b: number) => a + b;
  const heapV: number[] = [];
  const heapD: number[] = [];
  const push = (v: number, d: number) => {
    let i = heapV.length;
    heapV.push(v);
    heapD.push(d);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heapD[p]! <= d) break;
      heapV[i] = heapV[p]!;
      heapD[i] = heapD[p]!;
      i = p;
    }
    heapV[i] = v;
    heapD[i] = d;
  };
  const pop = (): [number, number] => {
    const top: [number, number] = [heapV[0]!, heapD[0]!];
    const v = heapV.pop()!;
    const d = heapD.pop()!;
    const size = heapV.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= size) break;
        if (c + 1 < size && heapD[c + 1]! < heapD[c]!) c++;
        if (heapD[c]! >= d) break;
        heapV[i] = heapV[c]!;
        heapD[i] = heapD[c]!;
        i = c;
      }
      heapV[i] = v;
      heapD[i] = d;
    }
    return top;
  };
  dist[source] = 0;
  push(source, 0);
  while (heapV.length > 0) {
    const [u, d] = pop();
    if (d > dist[u]!) continue;
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      const nd = add(d, weight(e));
      if (nd < dist[v]!) {
        dist[v] = nd;
        push(v, nd);
      }
    }
  }
  return dist;
}
