import { atomic, wgsl } from '@weft/gpu';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { forEachEdge } from './for-each-edge.ts';
import { HostDynamicGraph } from './reference.ts';

describe('forEachEdge', () => {
  it('visits every live edge once with its value, after insertions and deletions', async () => {
    await gpuTest(async (device) => {
      const n = 300;
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: true, values: 'u32' });
      const model = new HostDynamicGraph(n, true);
      const rand = mulberry32(17);
      const src = Uint32Array.from({ length: 6000 }, () => Math.floor(rand() * n));
      const dst = Uint32Array.from({ length: 6000 }, () => Math.floor(rand() * n));
      const val = Uint32Array.from({ length: 6000 }, () => Math.floor(rand() * 1000));
      await g.insertEdges(src, dst, val);
      model.insertEdges(src, dst, val);
      await g.deleteEdges(src.subarray(0, 2000), dst.subarray(0, 2000));
      model.deleteEdges(src.subarray(0, 2000), dst.subarray(0, 2000));
      await g.deleteVertices([5, 6]);
      model.deleteVertices([5, 6]);
      for (let rep = 0; rep < 2; rep++) {
        // In-degrees and per-target value sums: each edge must be seen exactly once, with its own value.
        const inDegree = device.array('u32', n);
        const valueSum = device.array('u32', n);
        const rec = device.recorder();
        rec.clear(inDegree);
        rec.clear(valueSum);
        await forEachEdge(
          rec,
          g,
          wgsl`(s: u32, t: u32, w: u32) {
            atomicAdd(&${atomic(inDegree)}[t], 1u);
            atomicAdd(&${atomic(valueSum)}[t], w);
          }`,
        );
        await rec.submit();
        const wantDegree = new Uint32Array(n);
        const wantSum = new Uint32Array(n);
        model.adjacency.forEach((adj) => {
          for (const [t, w] of adj) {
            wantDegree[t]!++;
            wantSum[t]! += w;
          }
        });
        expectArrayEqual(await inDegree.download(), wantDegree, 'in-degrees');
        expectArrayEqual(await valueSum.download(), wantSum, 'value sums');
        inDegree.destroy();
        valueSum.destroy();
        // Second round: more edges, so the same kernel runs over a changed (and grown) pool.
        const more = Uint32Array.from({ length: 20000 }, () => Math.floor(rand() * n));
        const moreDst = Uint32Array.from({ length: 20000 }, () => Math.floor(rand() * n));
        const moreVal = Uint32Array.from({ length: 20000 }, () => Math.floor(rand() * 1000));
        await g.insertEdges(more, moreDst, moreVal);
        model.insertEdges(more, moreDst, moreVal);
      }
      g.destroy();
    });
  });

  it('covers a pool of more than 65,535 workgroups of key slots', async () => {
    await gpuTest(async (device) => {
      // 600,000 slabs * 30 slots / 256 threads = 70,313 workgroups: the grid is split in two dimensions.
      const n = 2 ** 19;
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: true, slabCapacity: 600_000 });
      const src = Uint32Array.of(0, n - 1, n - 1, 12345, n - 2);
      const dst = Uint32Array.of(n - 1, 0, 7, n - 1, n - 1);
      await g.insertEdges(src, dst);
      const inDegree = device.array('u32', n);
      const rec = device.recorder();
      rec.clear(inDegree);
      await forEachEdge(rec, g, wgsl`(s: u32, t: u32, w: u32) { atomicAdd(&${atomic(inDegree)}[t], 1u); }`);
      await rec.submit();
      const want = new Uint32Array(n);
      want[n - 1] = 3;
      want[0] = 1;
      want[7] = 1;
      expectArrayEqual(await inDegree.download(), want, 'in-degrees');
      inDegree.destroy();
      g.destroy();
    });
  });
});
