import { type Recorder, rw, transform, wgsl } from '@weft/gpu';
import { FrontierQueue, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { enact } from './enactor.ts';
import { IterationLog } from './trace.ts';

describe('IterationLog', () => {
  it('logs frontier lengths and degree sums past one chunk (1024 iterations), on the GPU', () =>
    gpuTest(async (device) => {
      const r = mulberry32(4);
      const n = 300;
      const m = 2000;
      const src = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
      const dst = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
      const { csr } = hostCsrFromEdgeList({ vertexCount: n, src, dst, directed: true });
      const graph = uploadGraph(device, csr);
      const queue = new FrontierQueue(device, n);
      const log = new IterationLog(device);
      const iterations = 1100;
      const frontier: number[] = [];
      const edges: number[] = [];
      // Frontiers of varied lengths (0 included), each recorded into its own slot, one submit per 100.
      for (let start = 0; start < iterations; start += 100) {
        const rec = device.recorder();
        for (let i = start; i < Math.min(iterations, start + 100); i++) {
          const len = i % 37 === 0 ? 0 : 1 + ((i * 7919) % n);
          const first = (i * 31) % (n - len + 1);
          const vertices = Array.from({ length: len }, (_, k) => first + k);
          frontier.push(len);
          edges.push(vertices.reduce((a, v) => a + csr.offsets[v + 1]! - csr.offsets[v]!, 0));
          // Plain host counts for even iterations, GPU frontiers for odd ones.
          if (i % 2 === 0) await log.recordCounts(rec, i, len, edges[i]!);
          else {
            const items = rec.scratch('u32', Math.max(1, len), 'items');
            if (len > 0) items.upload(Uint32Array.from(vertices));
            const length = rec.scratch('u32', 1, 'length');
            length.upload([len]);
            await log.recordFrontier(rec, i, { items, length: { array: length, index: 0 } }, graph.offsets);
          }
        }
        await rec.submit();
      }
      const read = await log.read(iterations);
      expect(read.frontier).toEqual(frontier);
      expect(read.edges).toEqual(edges);
      expect((await log.read(5)).edges).toEqual(edges.slice(0, 5));
      await expect(log.read(iterations + 1024)).rejects.toThrow(/never recorded/);
      log.destroy();
      queue.destroy();
      graph.destroy();
    }));

  it('enact with timing gives one GPU time per submit where timestamps exist', () =>
    gpuTest(async (device) => {
      const counter = device.upload(Uint32Array.of(5));
      const loop = {
        async step(rec: Recorder) {
          await transform(
            rec,
            1,
            wgsl`(i: u32) { if (${rw(counter)}[0] > 0u) { ${rw(counter)}[0] -= 1u; } }`,
          );
        },
        active: () => ({ array: counter, index: 0 }),
      };
      const timed = await enact(device, loop, { batch: 1, maxBatch: 1, timing: true });
      expect(timed.iterations).toBe(5);
      expect(timed.submits).toBe(5);
      if (device.hasTimestamps) expect(timed.timesMs).toHaveLength(5);
      else expect(timed.timesMs).toBeUndefined();
      counter.upload([3]);
      expect((await enact(device, loop)).timesMs).toBeUndefined();
      counter.destroy();
    }));
});
