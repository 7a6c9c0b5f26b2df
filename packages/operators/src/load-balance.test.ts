import { atomic, InputError, wgsl } from '@weft/gpu';
import { DeviceGraph, FrontierQueue, type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { AdvanceWorkspace, advancePush } from './advance.ts';
import {
  checkLoadBalance,
  type LoadBalance,
  resolveLoadBalance,
  THREAD_MAPPED_MAX_DEGREE,
} from './load-balance.ts';

const degree = (csr: HostCsr, v: number) => csr.offsets[v + 1]! - csr.offsets[v]!;
const sorted = (a: ArrayLike<number>) => Uint32Array.from(a).sort();

describe("advancePush loadBalance 'per-advance' (chosen on the GPU per call)", () => {
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
          const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  atomicAdd(&${atomic(hits)}[edge], 1u);
  return (dst & 1u) == 0u;
}`;
          await advancePush(device, graph, queue.current, visit, {
            output: out.next,
            workspace: space,
            loadBalance: 'per-advance',
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

describe("loadBalance 'auto' (from the graph's largest out-degree)", () => {
  const hostMax = (csr: HostCsr) =>
    Math.max(0, ...Array.from({ length: csr.vertexCount }, (_, v) => degree(csr, v)));
  it('thread-mapped up to THREAD_MAPPED_MAX_DEGREE, else merge path; measured once on the GPU when unknown', () =>
    gpuTest(async (device) => {
      const mesh = hostCsrFromEdgeList(grid({ width: 30, height: 20 })).csr;
      const skewed = hostCsrFromEdgeList(kronecker({ scale: 10, edgeFactor: 8, seed: 3 })).csr;
      for (const [csr, want] of [
        [mesh, 'thread-mapped'],
        [skewed, 'merge-path'],
      ] as const) {
        expect(hostMax(csr) <= THREAD_MAPPED_MAX_DEGREE).toBe(want === 'thread-mapped');
        const uploaded = uploadGraph(device, csr);
        expect(uploaded.knownMaxOutDegree).toBe(hostMax(csr));
        expect(resolveLoadBalance(uploaded, 'auto')).toBe(want);
        expect(resolveLoadBalance(uploaded, 'per-advance')).toBe('per-advance');
        // A graph built without host degrees: 'auto' asks for the measurement, which the GPU makes once.
        const bare = new DeviceGraph(
          device,
          csr.vertexCount,
          csr.edgeCount,
          csr.directed,
          uploaded.offsets,
          uploaded.targets,
          undefined,
          undefined,
        );
        expect(() => resolveLoadBalance(bare, 'auto')).toThrow(/maxOutDegree/);
        expect(await bare.maxOutDegree()).toBe(hostMax(csr));
        expect(resolveLoadBalance(bare, 'auto')).toBe(want);
        uploaded.destroy();
      }
    }));
});

describe('an unknown loadBalance', () => {
  // It ran as merge path before: a typo chose a strategy silently.
  it('is an InputError naming the option, the value and the strategies, from resolveLoadBalance and advancePush', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, hostCsrFromEdgeList(grid({ width: 4, height: 3 })).csr);
      const queue = new FrontierQueue(device, graph.vertexCount);
      queue.set([0, 5]);
      const message =
        /^loadBalance: loadBalance must be one of auto, merge-path, thread-mapped, per-advance, got 'twc'$/;
      try {
        for (const value of ['twc', 'Auto', '', 'merge_path']) {
          expect(() => resolveLoadBalance(graph, value as LoadBalance)).toThrow(InputError);
        }
        expect(() => resolveLoadBalance(graph, 'twc' as LoadBalance)).toThrow(message);
        expect(() => checkLoadBalance('twc' as LoadBalance)).toThrow(message);
        expect(() => checkLoadBalance(undefined)).not.toThrow();
        for (const value of ['merge-path', 'thread-mapped', 'per-advance', 'auto'] as const) {
          expect(resolveLoadBalance(graph, value)).toBe(value === 'auto' ? 'thread-mapped' : value);
        }
        const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool { return true; }`;
        await expect(
          advancePush(device, graph, queue.current, visit, { loadBalance: 'twc' as LoadBalance }),
        ).rejects.toThrow(InputError);
        await expect(
          advancePush(device, graph, queue.current, visit, { loadBalance: 'twc' as LoadBalance }),
        ).rejects.toThrow(message);
      } finally {
        graph.destroy();
        queue.destroy();
      }
    }));
});
