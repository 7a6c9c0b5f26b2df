import { atomic, wgsl } from '@weft/gpu';
import { FrontierQueue, type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { AdvanceWorkspace, advancePush } from './advance.ts';

const degree = (csr: HostCsr, v: number) => csr.offsets[v + 1]! - csr.offsets[v]!;
const sorted = (a: ArrayLike<number>) => Uint32Array.from(a).sort();

describe("advancePush loadBalance 'auto' (chosen on the GPU per call)", () => {
  const graphs: [string, HostCsr][] = [
    ['kronecker 11', hostCsrFromEdgeList(kronecker({ scale: 11, edgeFactor: 8, seed: 2 })).csr],
    ['grid 40 x 30', hostCsrFromEdgeList(grid({ width: 40, height: 30 })).csr],
  ];
  for (const [name, csr] of graphs) {
    it(`${name}: low-degree frontiers walk a thread per vertex, a hub switches to merge path; same visits`, () =>
      gpuTest(async (device) => {
        const n = csr.vertexCount;
        const graph = uploadGraph(device, csr);
        const queue = new FrontierQueue(device, n, { sizeMultiplier: 2 });
        const out = new FrontierQueue(device, Math.max(1, csr.edgeCount), { label: 'out' });
        const space = new AdvanceWorkspace(device, queue.capacity);
        const hits = device.array('u32', csr.edgeCount);
        let hub = 0;
        for (let v = 0; v < n; v++) if (degree(csr, v) > degree(csr, hub)) hub = v;
        const r = mulberry32(n);
        const low = Array.from({ length: n }, (_, v) => v).filter((v) => degree(csr, v) <= 4);
        const lowPicks = Array.from({ length: 300 }, () => low[Math.floor(r() * low.length)]!);
        const cases: [string, number[], boolean][] = [
          ['low degrees (with repeats)', lowPicks, true],
          ['low degrees and the hub', [...lowPicks, hub], degree(csr, hub) <= 32],
          ['empty', [], true],
        ];
        for (const [what, picks, mapped] of cases) {
          queue.set(picks);
          await hits.fill(0);
          const visit = wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  atomicAdd(&${atomic(hits)}[edge], 1u);
  return (dst & 1u) == 0u;
}`;
          await advancePush(device, graph, queue.current, visit, {
            output: out.next,
            workspace: space,
            loadBalance: 'auto',
          });
          out.swap();
          const wantHits = new Uint32Array(csr.edgeCount);
          const wantOut: number[] = [];
          let edges = 0;
          for (const v of picks) {
            for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
              wantHits[e]!++;
              edges++;
              if ((csr.targets[e]! & 1) === 0) wantOut.push(csr.targets[e]!);
            }
          }
          expectArrayEqual(await hits.download(), wantHits, `${name}, ${what}: visits`);
          expectArrayEqual(sorted(await out.toArray()), sorted(wantOut), `${name}, ${what}: output`);
          const [lbsEdges, walked, segments, largest] = await space.balance.download();
          const maxDegree = Math.max(0, ...picks.map((v) => degree(csr, v)));
          expect(largest, `${name}, ${what}: largest degree`).toBe(maxDegree);
          expect([lbsEdges, walked, segments], `${name}, ${what}: chosen sizes`).toEqual(
            mapped ? [0, picks.length, 0] : [edges, 0, picks.length],
          );
        }
        for (const a of [graph, queue, out, space, hits]) a.destroy();
      }));
  }
});
