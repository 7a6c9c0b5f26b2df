import { requestDevice, type WeftDevice } from '@weft/gpu';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { csrNeighbors, gatherNeighbors, releaseNeighborParts } from '@weft/operators';
import { expectArrayEqual, expectClose } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { pageRank } from './pagerank.ts';

// 2 KiB a binding: 512 targets a chunk, so the gathered lists below span two.
let shared: Promise<WeftDevice> | undefined;
const device = () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({ label: 'chunked neighbor graph', bindingBudget: 2048 });
  return shared;
};
afterAll(async () => (await shared)?.destroy());

describe('pull PageRank on a NeighborGraph whose gathered lists span chunks', () => {
  it('equals the CSR run', async () => {
    const d = await device();
    const { csr } = hostCsrFromEdgeList({ ...kronecker({ scale: 6, seed: 5 }), directed: false });
    expect(csr.edgeCount).toBeGreaterThan(512);
    const graph = uploadGraph(d, csr);
    try {
      const want = await pageRank(graph, { weight: null, tolerance: 1e-6 });
      // With a version, the pull gathers the lists (kept for the version) rather than walking parts.
      const g = { ...csrNeighbors(graph), version: 1 };
      const got = await pageRank(g, { tolerance: 1e-6 });
      const lists = await gatherNeighbors(g);
      expect(lists?.targets.chunks.length).toBe(Math.ceil(csr.edgeCount / 512));
      expectArrayEqual(await lists!.offsets.download(), csr.offsets, 'gathered offsets');
      releaseNeighborParts(g);
      expect(got.iterations).toBe(want.iterations);
      expectClose(got.ranks, want.ranks, (v) => 1e-5 * want.ranks[v]!);
    } finally {
      graph.destroy();
    }
  });
});
