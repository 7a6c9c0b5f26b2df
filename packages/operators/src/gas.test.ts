import { f32, min, plus, rw, wgsl } from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { gas } from './gas.ts';

function randomCsr(n: number, m: number, seed: number, directed: boolean): HostCsr {
  const r = mulberry32(seed);
  const src = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  const dst = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  return hostCsrFromEdgeList({ vertexCount: n, src, dst, directed }).csr;
}

/** Each vertex's smallest vertex id in its weak component. */
function weakLabels(csr: HostCsr): Uint32Array {
  const parent = Uint32Array.from({ length: csr.vertexCount }, (_, v) => v);
  const find = (v: number): number => {
    let r = v;
    while (parent[r] !== r) r = parent[r]!;
    return r;
  };
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const [a, b] = [find(u), find(csr.targets[e]!)];
      parent[Math.max(a, b)] = Math.min(a, b);
    }
  }
  return Uint32Array.from({ length: csr.vertexCount }, (_, v) => find(v));
}

describe('gas', () => {
  it('min-label components: scatter activates neighbors of changed vertices; all-edge gathers', () =>
    gpuTest(async (device) => {
      for (const [i, [n, m, directed]] of (
        [
          [1, 0, false],
          [120, 100, false],
          [257, 900, false],
          [150, 300, true],
        ] as const
      ).entries()) {
        const csr = randomCsr(n, m, 10 + i, directed);
        const graph = uploadGraph(device, csr, { csc: directed });
        const labels = device.array('u32', n);
        const changed = device.array('u32', n);
        labels.upload(Uint32Array.from({ length: n }, (_, v) => v));
        const program = {
          gatherEdges: 'all' as const,
          gather: wgsl`(v: u32, u: u32, edge: u32) -> u32 { return ${labels}[u]; }`,
          sum: min('u32'),
          apply: wgsl`(v: u32, total: u32) -> f32 {
  let old = ${labels}[v];
  let c = total < old;
  ${rw(changed)}[v] = select(0u, 1u, c);
  ${rw(labels)}[v] = min(old, total);
  return select(0.0, 1.0, c);
}`,
          // Out-edges reach every neighbor only in an undirected graph.
          ...(directed
            ? {}
            : { scatter: wgsl`(src: u32, dst: u32, edge: u32) -> bool { return ${changed}[src] != 0u; }` }),
        };
        const run = await gas(graph, program);
        expect(run.converged).toBe(true);
        expectArrayEqual(await labels.download(), weakLabels(csr), `graph ${i}`);
        labels.destroy();
        changed.destroy();
        graph.destroy();
      }
    }));

  it('out-edge gathers, f32 tolerance and maxIterations', () =>
    gpuTest(async (device) => {
      const csr = randomCsr(200, 700, 3, true);
      const graph = uploadGraph(device, csr);
      const degree = device.array('f32', 200);
      const x = device.array('f32', 200);
      const out = {
        gatherEdges: 'out' as const,
        gather: wgsl`(v: u32, u: u32, edge: u32) -> f32 { return 1.0; }`,
        sum: plus('f32'),
        apply: wgsl`(v: u32, total: f32) -> f32 { ${rw(degree)}[v] = total; return 0.0; }`,
      };
      expect(await gas(graph, out)).toMatchObject({ iterations: 1, converged: true, residuals: [0] });
      const want = Float32Array.from({ length: 200 }, (_, v) => csr.offsets[v + 1]! - csr.offsets[v]!);
      expectArrayEqual(await degree.download(), want, 'out-degrees');
      // x halves towards 0: the L1 residual 200 * 2^-k falls below 1e-3 after 18 iterations.
      x.upload(new Float32Array(200).fill(1));
      const halve = {
        gatherEdges: 'out' as const,
        gather: wgsl`(v: u32, u: u32, edge: u32) -> f32 { return 0.0; }`,
        sum: plus('f32'),
        apply: wgsl`(v: u32, total: f32) -> f32 { let y = ${x}[v] * ${f32(0.5)}; ${rw(x)}[v] = y; return y; }`,
      };
      expect(await gas(graph, halve, { tolerance: 1e-3 })).toMatchObject({ iterations: 18, converged: true });
      expect(await gas(graph, halve, { tolerance: 1e-30, maxIterations: 5 })).toMatchObject({
        iterations: 5,
        converged: false,
      });
      await expect(gas(graph, { ...out, gatherEdges: 'in' })).rejects.toThrow(/csc: true/);
      await expect(gas(graph, [out, { ...out, scatter: out.gather }])).rejects.toThrow(/single-phase/);
      for (const a of [degree, x]) a.destroy();
      graph.destroy();
    }));
});
