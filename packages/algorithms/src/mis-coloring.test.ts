import { uploadGraph } from '@weft/graph';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { graphColoring } from './coloring.ts';
import { maximalIndependentSet } from './mis.ts';
import { testGraphs, undirectedSimple } from './test-graphs.ts';
import { verifyColoring, verifyIndependentSet } from './verify.ts';

describe('maximal independent set and coloring', () => {
  it('are maximal / proper on the undirected corpus and random graphs, for two seeds', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 30)) {
        if (csr.directed) continue;
        const graph = uploadGraph(device, csr);
        let maxDegree = 0;
        for (let v = 0; v < csr.vertexCount; v++)
          maxDegree = Math.max(maxDegree, csr.offsets[v + 1]! - csr.offsets[v]!);
        const sets: string[] = [];
        for (const seed of [1, 2]) {
          const mis = await maximalIndependentSet(graph, { seed });
          expect(verifyIndependentSet(csr, mis.inSet), `${name} mis, seed ${seed}`).toBeNull();
          sets.push(mis.inSet.join(''));
          const coloring = await graphColoring(graph, { seed });
          expect(verifyColoring(csr, coloring.colors), `${name} coloring, seed ${seed}`).toBeNull();
          // Two colors per round and at most one round per vertex of the longest priority chain.
          expect(coloring.colorCount, name).toBeLessThanOrEqual(2 * csr.vertexCount);
        }
        if (csr.edgeCount > 100) expect(sets[0], `${name}: seeds change the set`).not.toBe(sets[1]);
        graph.destroy();
      }
    }));

  it('read a directed graph as the simple undirected graph of its arcs, and say so', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 20)) {
        if (!csr.directed) continue;
        const ug = undirectedSimple(csr);
        const graph = uploadGraph(device, csr);
        const mis = await maximalIndependentSet(graph);
        expect(mis.undirected, name).toBe(true);
        expect(verifyIndependentSet(ug, mis.inSet), `${name} mis`).toBeNull();
        const coloring = await graphColoring(graph);
        expect(coloring.undirected, name).toBe(true);
        expect(verifyColoring(ug, coloring.colors), `${name} coloring`).toBeNull();
        graph.destroy();
      }
    }));
});
