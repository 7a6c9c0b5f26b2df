import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { testGraphs, testSources } from '../test-graphs.ts';
import { verifySssp } from '../verify.ts';
import { sssp } from './sssp.ts';

describe('sssp', () => {
  for (const weights of ['u32', 'f32', false] as const) {
    it(`matches Dijkstra, ${weights || 'unweighted'} weights`, () =>
      gpuTest(async (device) => {
        for (const { name, csr } of testGraphs(weights, 30)) {
          const graph = uploadGraph(device, csr);
          for (const source of testSources(csr).slice(0, 2)) {
            const loadBalance = source % 2 === 0 ? 'merge-path' : 'thread-mapped';
            // Alternate Bellman-Ford and near-far (bucket widths around the mean weight).
            const delta =
              source % 3 === 0 ? undefined : weights === 'u32' ? 100 : weights === 'f32' ? 2.5 : 2;
            const { distances, parents } = await sssp(graph, source, {
              loadBalance,
              parents: true,
              ...(delta === undefined ? {} : { delta }),
            });
            // f32: the reference adds in f32 too, so the fixed points agree up to rounding ties.
            expect(
              verifySssp(csr, source, distances, weights === 'f32' ? 1e-6 : 0, parents),
              `${name}, source ${source}`,
            ).toBeNull();
          }
          graph.destroy();
        }
      }));
  }

  it('near-far with tiny, typical and huge buckets matches Bellman-Ford; bad deltas are refused', () =>
    gpuTest(async (device) => {
      const { csr } = hostCsrFromEdgeList(kronecker({ scale: 10, edgeFactor: 8, seed: 9, weights: true }));
      const graph = uploadGraph(device, csr);
      const plain = await sssp(graph, 1);
      for (const delta of [1, 64, 1e6]) {
        const nearFar = await sssp(graph, 1, { delta });
        expect(verifySssp(csr, 1, nearFar.distances), `delta ${delta}`).toBeNull();
        if (delta === 1) expect(nearFar.iterations).toBeGreaterThan(plain.iterations);
      }
      await expect(sssp(graph, 1, { delta: 0.5 })).rejects.toThrow(/delta/);
      graph.destroy();
    }));

  it('large u32 weights saturate below the unreached marker; bad sources are rejected', () =>
    gpuTest(async (device) => {
      const csr = {
        vertexCount: 4,
        edgeCount: 3,
        offsets: Uint32Array.of(0, 1, 2, 3, 3),
        targets: Uint32Array.of(1, 2, 3),
        weights: Uint32Array.of(2 ** 31, 2 ** 31 + 5, 7),
        directed: true,
      };
      const graph = uploadGraph(device, csr);
      const { distances } = await sssp(graph, 0);
      expect(Array.from(distances)).toEqual([0, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 2]);
      await expect(sssp(graph, 4)).rejects.toThrow(/not a vertex/);
      graph.destroy();
    }));
});
