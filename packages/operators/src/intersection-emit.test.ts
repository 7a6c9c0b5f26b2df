import { wgsl } from '@weft/gpu';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { intersectionCount } from './intersection.ts';

describe('intersectionCount with emit', () => {
  it('writes each pair’s common neighbors in increasing order at the scan of the counts', () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(kronecker({ scale: 10, edgeFactor: 8, seed: 11 })).csr;
      const graph = uploadGraph(device, csr);
      const n = csr.vertexCount;
      const r = mulberry32(5);
      const row = (v: number) => Array.from(csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!));
      for (const pairs of [0, 1, 3000]) {
        const a = Uint32Array.from({ length: pairs }, () => Math.floor(r() * n));
        const b = Uint32Array.from({ length: pairs }, (_, i) => (i % 5 === 0 ? a[i]! : Math.floor(r() * 64)));
        const wantCounts: number[] = [];
        const wantStarts: number[] = [];
        const wantNeighbors: number[] = [];
        for (let i = 0; i < pairs; i++) {
          const other = new Set(row(b[i]!));
          // Only even common neighbors are accepted.
          const common = row(a[i]!).filter((w) => other.has(w) && w % 2 === 0);
          wantStarts.push(wantNeighbors.length);
          wantCounts.push(common.length);
          wantNeighbors.push(...common);
        }
        const da = device.upload(pairs > 0 ? a : new Uint32Array(1));
        const db = device.upload(pairs > 0 ? b : new Uint32Array(1));
        const length = device.upload(Uint32Array.of(pairs));
        const counts = device.array('u32', Math.max(1, pairs));
        const starts = device.array('u32', Math.max(1, pairs));
        const total = device.array('u32', 1);
        // Full capacity, then one too small by a third: the prefix lands, the rest is dropped.
        for (const capacity of [wantNeighbors.length, Math.floor((wantNeighbors.length * 2) / 3)]) {
          const neighbors = device.array('u32', Math.max(1, capacity));
          await neighbors.fill(0xffffffff);
          await intersectionCount(device, graph, da, db, { array: length, index: 0 }, counts, {
            accept: wgsl`(a: u32, b: u32, w: u32) -> bool { return (w & 1u) == 0u; }`,
            emit: { starts, neighbors, total },
          });
          expect((await total.download())[0], `total, ${pairs} pairs`).toBe(wantNeighbors.length);
          if (pairs > 0) {
            expectArrayEqual(await counts.download(0, pairs), wantCounts, 'counts');
            expectArrayEqual(await starts.download(0, pairs), wantStarts, 'starts');
          }
          if (capacity > 0) {
            expectArrayEqual(
              await neighbors.download(0, capacity),
              wantNeighbors.slice(0, capacity),
              'neighbors',
            );
          }
          neighbors.destroy();
        }
        for (const x of [da, db, length, counts, starts, total]) x.destroy();
      }
      graph.destroy();
    }));
});
