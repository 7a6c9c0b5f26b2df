import { uploadGraph } from '@weft/graph';
import { expectArrayEqual, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { connectedComponents } from './components.ts';
import { componentsReference } from './reference.ts';
import { testGraphs } from './test-graphs.ts';
import { verifyComponents } from './verify.ts';

describe('connectedComponents', () => {
  it('labels every component by its smallest vertex, on the corpus and random graphs', () =>
    gpuTest(async (device) => {
      for (const [i, { name, csr }] of testGraphs(false, 50).entries()) {
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const result = await connectedComponents(device, graph, {
          loadBalance: (['merge-path', 'thread-mapped', 'per-iteration'] as const)[i % 3]!,
        });
        expect(verifyComponents(csr, result.labels, result.count), name).toBeNull();
        expectArrayEqual(result.labels, componentsReference(csr).labels, `${name} labels`);
        graph.destroy();
      }
    }));

  it('an empty graph has no components; a directed graph needs its CSC', () =>
    gpuTest(async (device) => {
      const empty = uploadGraph(device, {
        vertexCount: 0,
        edgeCount: 0,
        offsets: Uint32Array.of(0),
        targets: new Uint32Array(0),
        directed: false,
      });
      expect(await connectedComponents(device, empty)).toMatchObject({ count: 0 });
      empty.destroy();
      const directed = uploadGraph(device, {
        vertexCount: 2,
        edgeCount: 1,
        offsets: Uint32Array.of(0, 1, 1),
        targets: Uint32Array.of(1),
        directed: true,
      });
      await expect(connectedComponents(device, directed)).rejects.toThrow(/csc: true/);
      directed.destroy();
    }));
});
