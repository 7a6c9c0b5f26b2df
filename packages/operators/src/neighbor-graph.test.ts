import { atomic, max, min, wgsl } from '@weft/gpu';
import { FrontierQueue, type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { advancePush } from './advance.ts';
import { intersectionCount } from './intersection.ts';
import { neighborhoodReduce } from './neighborhood.ts';
import { csrNeighbors, type NeighborGraph } from './neighbors.ts';

function csrOf(n: number, src: number[], dst: number[]): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(src),
    dst: Uint32Array.from(dst),
    directed: true,
  }).csr;
}

function randomCsr(n: number, m: number, seed: number): HostCsr {
  const r = mulberry32(seed);
  const src = Array.from({ length: m }, () => Math.floor(r() * n));
  const dst = Array.from({ length: m }, () => Math.floor(r() * n));
  return csrOf(n, src, dst);
}

/** A hub with `spokes` out-edges (a star), some of them twice, and a self-loop. */
function hubCsr(n: number, spokes: number): HostCsr {
  const src: number[] = [0];
  const dst: number[] = [0];
  for (let i = 0; i < spokes; i++) {
    src.push(0);
    dst.push(1 + (i % (n - 1)));
  }
  for (let v = 1; v + 1 < n; v++) {
    src.push(v);
    dst.push(v + 1);
  }
  return csrOf(n, src, dst);
}

const graphs: [string, () => HostCsr][] = [
  ['empty', () => randomCsr(0, 0, 1)],
  ['one vertex', () => randomCsr(1, 0, 1)],
  ['no edges', () => randomCsr(40, 0, 1)],
  ['random', () => randomCsr(300, 2000, 2)],
  ['hub of 64', () => hubCsr(70, 64)],
  ['hub of 257 (duplicates)', () => hubCsr(200, 257)],
  [
    'path',
    () =>
      csrOf(
        300,
        [...Array(299).keys()],
        [...Array(299).keys()].map((v) => v + 1),
      ),
  ],
];

/** The same lists without parts and edge blocks, so that each vertex's list is walked by one thread. */
function withoutParts(g: NeighborGraph): NeighborGraph {
  const { parts: _, edgeBlocks: __, ...rest } = g;
  return rest;
}

const rowOf = (csr: HostCsr, v: number) => csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!);

describe('operators on a NeighborGraph', () => {
  for (const [name, make] of graphs) {
    it(`${name}: advance, neighborhood reduction and intersection equal the CSR's`, () =>
      gpuTest(async (device) => {
        const csr = make();
        const n = csr.vertexCount;
        const m = csr.edgeCount;
        const graph = uploadGraph(device, csr);
        const r = mulberry32(n + 3);
        const picks = Array.from({ length: Math.ceil(n / 2) + 1 }, (_, i) =>
          i === 0 ? 0 : Math.floor(r() * n),
        ).filter((v) => v < n);
        const queue = new FrontierQueue(device, Math.max(1, n), { sizeMultiplier: 2 });
        queue.set(picks);
        const hits = device.array('u32', Math.max(1, m));
        const minOut = device.array('u32', Math.max(1, n, picks.length));
        const sumOut = device.array('u32', Math.max(1, n, picks.length));
        const want = new Uint32Array(Math.max(1, m));
        for (const v of picks) for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) want[e]!++;
        const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  atomicAdd(&${atomic(hits)}[edge], 1u);
  return false;
}`;
        const f = wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return dst * 7u + src + edge % 5u; }`;
        for (const g of [csrNeighbors(graph), withoutParts(csrNeighbors(graph))]) {
          await hits.fill(0);
          await advancePush(device, g, queue.current, visit);
          expectArrayEqual(await hits.download(), want, 'edge visits of the frontier');
          await hits.fill(0);
          await advancePush(device, g, 'all', visit);
          expectArrayEqual(await hits.download(), m > 0 ? new Uint32Array(m).fill(1) : [0], 'every edge');

          for (const input of ['all', queue.current] as const) {
            const len = input === 'all' ? n : picks.length;
            if (len === 0) continue;
            await neighborhoodReduce(device, graph, input, f, minOut, { monoid: min('u32') });
            const wantMin = await minOut.download(0, len);
            await neighborhoodReduce(device, graph, input, f, sumOut);
            const wantSum = await sumOut.download(0, len);
            await minOut.fill(1);
            await sumOut.fill(1);
            await neighborhoodReduce(device, g, input, f, minOut, { monoid: min('u32') });
            await neighborhoodReduce(device, g, input, f, sumOut);
            expectArrayEqual(await minOut.download(0, len), wantMin, 'min over neighbors');
            expectArrayEqual(await sumOut.download(0, len), wantSum, 'sum over neighbors');
          }
        }

        // Pairs: random ones, a vertex with itself, the hub with others.
        const pairs = Math.min(400, n * 2);
        if (pairs > 0) {
          const a = Uint32Array.from({ length: pairs }, (_, i) => (i % 5 === 0 ? 0 : Math.floor(r() * n)));
          const b = Uint32Array.from({ length: pairs }, (_, i) =>
            i % 7 === 0 ? a[i]! : Math.floor(r() * n),
          );
          const da = device.upload(a);
          const db = device.upload(b);
          const out = device.array('u32', pairs);
          const starts = device.array('u32', pairs);
          const neighbors = device.array('u32', Math.max(1, pairs * 64));
          const total = device.array('u32', 1);
          const accept = wgsl`(a: u32, b: u32, w: u32) -> bool { return w != a; }`;
          await intersectionCount(device, csrNeighbors(graph), da, db, pairs, out, {
            accept,
            emit: { starts, neighbors, total },
          });
          const counts = await out.download();
          const got = await neighbors.download();
          const first = await starts.download();
          for (let i = 0; i < pairs; i++) {
            const other = new Set(rowOf(csr, b[i]!));
            const common = [...new Set(rowOf(csr, a[i]!))].filter((w) => other.has(w) && w !== a[i]);
            expect(counts[i], `pair ${i}`).toBe(common.length);
            const emitted = Array.from(got.subarray(first[i]!, first[i]! + counts[i]!)).sort((x, y) => x - y);
            expect(emitted, `pair ${i}'s common neighbors`).toEqual(common.sort((x, y) => x - y));
          }
          const { hasEdge: _, ...plain } = csrNeighbors(graph);
          await expect(intersectionCount(device, plain, da, db, pairs, out)).rejects.toThrow(/hasEdge/);
          for (const x of [da, db, out, starts, neighbors, total]) x.destroy();
        }
        await expect(
          neighborhoodReduce(device, csrNeighbors(graph), 'all', f, minOut, { direction: 'in' }),
        ).rejects.toThrow(/out-edges only/);
        if (n === 0) {
          const out = new FrontierQueue(device, 1);
          await out.next.count.upload([5]);
          const keep = wgsl`(v: u32, value: u32) -> bool { return true; }`;
          await neighborhoodReduce(device, csrNeighbors(graph), queue.current, f, minOut, {
            frontier: { keep, output: out.next },
          });
          expect((await out.next.count.download())[0], 'an empty frontier emitted').toBe(0);
          out.destroy();
        }
        for (const x of [hits, minOut, sumOut, queue, graph]) x.destroy();
      }));
  }

  it('neighborhood reduction as a frontier: kept vertices in input order, as on the CSR', () =>
    gpuTest(async (device) => {
      const csr = hubCsr(300, 700);
      const graph = uploadGraph(device, csr);
      const f = wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return dst; }`;
      const keep = wgsl`(v: u32, value: u32) -> bool { return value % 3u == 1u; }`;
      const picks = [0, 5, 5, 299, 17, 0, 120, 64];
      const queue = new FrontierQueue(device, 300, { sizeMultiplier: 2 });
      queue.set(picks);
      const got: number[][] = [];
      for (const g of [graph, csrNeighbors(graph), withoutParts(csrNeighbors(graph))]) {
        for (const input of ['all', queue.current] as const) {
          const out = new FrontierQueue(device, 300, { sizeMultiplier: 2 });
          const sums = device.array('u32', 300);
          await neighborhoodReduce(device, g, input, f, sums, { frontier: { keep, output: out.next } });
          out.swap();
          got.push(Array.from(await out.toArray()));
          out.destroy();
          sums.destroy();
        }
      }
      expect(got[0]!.length).toBeGreaterThan(10);
      for (let i = 2; i < got.length; i++) expect(got[i], `run ${i}`).toEqual(got[i % 2]);
      for (const x of [queue, graph]) x.destroy();
    }));

  it('f32 reduction (max) over parts equals the CSR fold', () =>
    gpuTest(async (device) => {
      const csr = hubCsr(300, 1000);
      const graph = uploadGraph(device, csr);
      const f = wgsl`(src: u32, dst: u32, edge: u32) -> f32 { return f32(dst) * 0.5 - f32(src); }`;
      const want = device.array('f32', 300);
      const got = device.array('f32', 300);
      await neighborhoodReduce(device, graph, 'all', f, want, { monoid: max('f32') });
      await neighborhoodReduce(device, csrNeighbors(graph), 'all', f, got, { monoid: max('f32') });
      expectArrayEqual(await got.download(), await want.download(), 'max');
      for (const x of [want, got, graph]) x.destroy();
    }));
});
