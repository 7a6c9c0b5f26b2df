import { atomic, u32, wgsl } from '@weft/gpu';
import { FrontierBitmap, FrontierQueue } from '@weft/graph';
import { advancePush, enact } from '@weft/operators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';

/** Host BFS levels over the model (0xffffffff unreached). */
function hostLevels(model: HostDynamicGraph, source: number): Uint32Array {
  const depth = new Uint32Array(model.vertexCount).fill(0xffffffff);
  depth[source] = 0;
  let frontier = [source];
  for (let level = 1; frontier.length > 0; level++) {
    const next: number[] = [];
    for (const u of frontier) {
      for (const v of model.adjacency[u]!.keys()) {
        if (depth[v] === 0xffffffff) {
          depth[v] = level;
          next.push(v);
        }
      }
    }
    frontier = next;
  }
  return depth;
}

describe('DynamicGraph as a NeighborGraph', () => {
  it('advancePush visits each out-edge with its slot; enact runs BFS on the tables', async () => {
    await gpuTest(async (device) => {
      const n = 400;
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: true, values: 'u32' });
      const model = new HostDynamicGraph(n, true);
      const rand = mulberry32(23);
      const src = Uint32Array.from({ length: 2400 }, () => Math.floor(rand() * n));
      const dst = Uint32Array.from({ length: 2400 }, () => Math.floor(rand() * n));
      const val = Uint32Array.from({ length: 2400 }, () => Math.floor(rand() * 1000));
      await g.insertEdges(src, dst, val);
      model.insertEdges(src, dst, val);
      await g.deleteEdges(src.subarray(0, 600), dst.subarray(0, 600));
      model.deleteEdges(src.subarray(0, 600), dst.subarray(0, 600));

      // Every edge once, its value read through the slot: in-degrees and per-target value sums.
      const inDegree = device.array('u32', n);
      const valueSum = device.array('u32', n);
      const rec = device.recorder();
      rec.clear(inDegree);
      rec.clear(valueSum);
      await advancePush(
        rec,
        g,
        'all',
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  atomicAdd(&${atomic(inDegree)}[dst], 1u);
  atomicAdd(&${atomic(valueSum)}[dst], ${g.values}[edge]);
  return false;
}`,
      );
      await rec.submit();
      const wantDegree = new Uint32Array(n);
      const wantSum = new Uint32Array(n);
      model.adjacency.forEach((adj) => {
        for (const [t, w] of adj) {
          wantDegree[t]!++;
          wantSum[t] = (wantSum[t]! + w) >>> 0;
        }
      });
      expectArrayEqual(await inDegree.download(), wantDegree, 'in-degrees');
      expectArrayEqual(await valueSum.download(), wantSum, 'value sums');

      // BFS levels: the operators' loop, unchanged, on the hash tables.
      const source = src[700]!;
      const depth = device.array('u32', n);
      await depth.fill(0xffffffff);
      depth.upload([0], source);
      const queue = new FrontierQueue(device, n);
      const visited = new FrontierBitmap(device, n);
      queue.set([source]);
      const { converged } = await enact(device, {
        async step(r, level) {
          const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  return atomicMin(&${atomic(depth)}[dst], ${u32(level + 1)}) == 0xffffffffu;
}`;
          await advancePush(r, g, queue.current, visit, { output: queue.next, visited });
          queue.swap();
        },
        active: () => queue.length,
        capacity: queue.capacity,
      });
      expect(converged).toBe(true);
      expectArrayEqual(await depth.download(), hostLevels(model, source), 'levels');
      for (const a of [inDegree, valueSum, depth, queue, visited, g]) a.destroy();
    });
  });
});
