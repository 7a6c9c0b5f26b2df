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

  it('decodes the distances on the device as the host does, value for value', () =>
    gpuTest(async (device) => {
      for (const weights of ['u32', 'f32', false] as const) {
        for (const { name, csr } of testGraphs(weights, 3)) {
          const graph = uploadGraph(device, csr);
          const source = testSources(csr)[0]!;
          const onDevice = (await sssp(graph, source, { strategy: 'frontier' })).distances;
          const onHost = (await sssp(graph, source, { strategy: 'frontier', decode: 'host' })).distances;
          expect(onDevice.length).toBe(csr.vertexCount);
          const differ = onDevice.findIndex((d, v) => !Object.is(d, onHost[v]));
          expect(differ, `${name}, ${weights || 'unweighted'}`).toBe(-1);
          graph.destroy();
        }
      }
    }));

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

  it('a distance past 2^32 - 2 is reported, not returned saturated; bad sources are rejected', () =>
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
      // Issue #28: these saturated at 2^32 - 2 and were returned as distances.
      for (const delta of ['off', 'auto', 5] as const) {
        // Bulk near-far too: a saturated distance plus delta must still move its threshold on.
        const options = delta === 5 ? { delta, smallFrontier: 'off' as const } : { delta };
        await expect(sssp(graph, 0, options)).rejects.toThrow(/vertex 2 reached 2\^32 - 2/);
      }
      // Below the bound the same arcs give exact distances.
      expect(Array.from((await sssp(graph, 1)).distances)).toEqual([
        Number.POSITIVE_INFINITY,
        0,
        2 ** 31 + 5,
        2 ** 31 + 12,
      ]);
      await expect(sssp(graph, 4)).rejects.toThrow(/not a vertex/);
      graph.destroy();
    }));

  const path = (weights: Int32Array | Float32Array) => ({
    vertexCount: 4,
    edgeCount: 3,
    offsets: Uint32Array.of(0, 1, 2, 3, 3),
    targets: Uint32Array.of(1, 2, 3),
    weights,
    directed: true,
  });

  it('refuses negative, NaN and infinite weights naming the edge', () =>
    gpuTest(async (device) => {
      const cases = [
        [Int32Array.of(5, -8, 1), /weight -8 of edge 1 -> 2 \(edge 1\) is negative/],
        [Float32Array.of(1, 2, -0.5), /weight -0.5 of edge 2 -> 3 \(edge 2\) is negative/],
        [Float32Array.of(Number.NaN, 2, 3), /weight NaN of edge 0 -> 1 \(edge 0\) is NaN/],
        [Float32Array.of(1, Number.POSITIVE_INFINITY, 3), /weight Infinity of edge 1 -> 2.*infinite/],
      ] as const;
      for (const [weights, message] of cases) {
        const graph = uploadGraph(device, path(weights));
        await expect(sssp(graph, 0)).rejects.toThrow(message);
        graph.destroy();
      }
      // -0 and zero weights are fine.
      const graph = uploadGraph(device, path(Float32Array.of(-0, 0, 1.5)));
      expect(Array.from((await sssp(graph, 0)).distances)).toEqual([0, 0, 0, 1.5]);
      graph.destroy();
    }));

  it('bulk near-far ends where an f32 distance plus delta rounds back to it', () =>
    gpuTest(async (device) => {
      const csr = path(Float32Array.of(2 ** 25, 1, 1));
      const graph = uploadGraph(device, csr);
      const { distances } = await sssp(graph, 0, { delta: 1, smallFrontier: 'off' });
      expect(verifySssp(csr, 0, distances)).toBeNull();
      graph.destroy();
    }));

  it('reports f32 distances that overflow instead of calling them unreachable', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, path(Float32Array.of(3e38, 3e38, 1)));
      for (const decode of ['device', 'host'] as const) {
        await expect(sssp(graph, 0, { decode })).rejects.toThrow(/vertex 2 reached the largest finite f32/);
      }
      graph.destroy();
    }));
});
