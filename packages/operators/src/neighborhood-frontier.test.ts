import { min, plus, wgsl } from '@weft/gpu';
import { FrontierQueue, type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, it } from 'vitest';
import { neighborhoodReduce } from './neighborhood.ts';

const degreeSum = (csr: HostCsr, v: number) => {
  let s = 0;
  for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) s += csr.targets[e]!;
  return s;
};

describe('neighborhoodReduce with a frontier output', () => {
  it("'all' and a frontier with duplicates: kept vertices in input order, twice (stale output)", () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(kronecker({ scale: 12, edgeFactor: 4, seed: 8 })).csr;
      const n = csr.vertexCount;
      const graph = uploadGraph(device, csr);
      const values = device.array('u32', n);
      const out = new FrontierQueue(device, n);
      // All vertices: keep those with a neighbor of smaller id (min over out-neighbors below v).
      const smaller = wgsl`(v: u32, value: u32) -> bool { return value < v; }`;
      for (let round = 0; round < 2; round++) {
        await neighborhoodReduce(
          device,
          graph,
          'all',
          wgsl`(v: u32, nbr: u32, edge: u32) -> u32 { return nbr; }`,
          values,
          { monoid: min('u32'), frontier: { keep: smaller, output: out.next } },
        );
        out.swap();
        const want: number[] = [];
        for (let v = 0; v < n; v++) {
          if (csr.offsets[v + 1]! > csr.offsets[v]! && csr.targets[csr.offsets[v]!]! < v) want.push(v);
        }
        expectArrayEqual(await out.toArray(), want, `all, round ${round}`);
      }
      // A frontier: keep vertices whose neighbor-id sum is even and non-zero.
      const r = mulberry32(3);
      const picks = Array.from({ length: 3000 }, () => Math.floor(r() * n));
      const input = new FrontierQueue(device, n, { sizeMultiplier: 3000 / n + 1 });
      input.set(picks);
      const evenSum = wgsl`(v: u32, value: u32) -> bool { return value != 0u && (value & 1u) == 0u; }`;
      await neighborhoodReduce(
        device,
        graph,
        input.current,
        wgsl`(v: u32, nbr: u32, edge: u32) -> u32 { return nbr; }`,
        values,
        { monoid: plus('u32'), frontier: { keep: evenSum, output: out.next } },
      );
      out.swap();
      const want = picks.filter((v) => {
        const s = degreeSum(csr, v) >>> 0;
        return s !== 0 && s % 2 === 0;
      });
      expectArrayEqual(await out.toArray(), want, 'frontier');
      for (const a of [graph, values, out, input]) a.destroy();
    }));
});
