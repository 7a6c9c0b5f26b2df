import { atomic, requestDevice, wgsl } from '@weft/gpu';
import { FrontierQueue, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { advancePush } from './advance.ts';

const CHUNK = 64;

describe('advancePush one storage buffer over the stage limit', () => {
  it('stays load-balanced by binding one count buffer, and claims what the reference claims', async () => {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    const d = await requestDevice({
      label: 'shared counts',
      limits: { maxStorageBuffersPerShaderStage: 10 },
    });
    try {
      d.bindingBudget = 4 * CHUNK;
      // A hub-heavy graph, so a walk of one thread per vertex would differ from the tile in its dispatches.
      const csr = hostCsrFromEdgeList(
        kronecker({ scale: 6, edgeFactor: 3, seed: 7, a: 0.7, b: 0.1, c: 0.1 }),
      ).csr;
      const n = csr.vertexCount;
      const r = mulberry32(3);
      // The tile binds 4 buffers (3 with shared counts), the visit 5 plus one a target chunk: 2 chunks are
      // one over 10, 1 chunk fits as it is, 3 chunks walk a thread per vertex.
      const dispatches: Record<number, number> = {};
      for (const chunks of [1, 2, 3]) {
        const budget = Math.ceil(csr.edgeCount / chunks / CHUNK) * CHUNK;
        d.bindingBudget = 4 * Math.max(CHUNK, 2 ** Math.ceil(Math.log2(budget)));
        const graph = uploadGraph(d, csr);
        const made = graph.chunkedTargets.chunks.length;
        const frontier = Array.from({ length: n }, (_, v) => v).filter(() => r() < 0.3);
        const depth = d.upload(
          Uint32Array.from({ length: n }, (_, v) => (frontier.includes(v) ? 0 : 0xffffffff)),
        );
        const queue = new FrontierQueue(d, n);
        queue.set(frontier);
        const out = new FrontierQueue(d, Math.max(1, csr.edgeCount), { label: 'out' });
        const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  return atomicMin(&${atomic(depth)}[dst], 1u) > 1u;
}`;
        const rec = d.recorder({ label: `advance, ${made} chunks` });
        await advancePush(rec, graph, queue.current, claim, { output: out.next });
        dispatches[made] = rec.dispatchCount;
        await rec.submit();
        const want = new Set<number>();
        for (const v of frontier)
          for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
            if (!frontier.includes(csr.targets[e]!)) want.add(csr.targets[e]!);
          }
        out.swap();
        const got = [...(await out.toArray())].sort((x, y) => x - y);
        expectArrayEqual(
          Uint32Array.from(got),
          Uint32Array.from([...want].sort((x, y) => x - y)),
          `${made} chunks`,
        );
        for (const a of [graph, depth, queue, out]) a.destroy();
      }
      expect(Object.keys(dispatches).map(Number)).toEqual([1, 2, 3]);
      // Load-balanced: the degree scan, the merge-path partitions and the tile; thread-mapped: the walk, with
      // its hubs listed and walked apart (a reset, the walk, the hubs' thread count and their walk).
      expect(dispatches[1]).toBeGreaterThan(1);
      expect(dispatches[2]).toBe(dispatches[1]);
      expect(dispatches[3], JSON.stringify(dispatches)).not.toBe(dispatches[1]!);
    } finally {
      d.destroy();
    }
  });
});
