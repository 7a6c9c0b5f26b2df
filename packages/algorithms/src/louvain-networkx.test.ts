// GPU Louvain against networkx's louvain_communities on the small real graphs of ../test-data: the best
// modularity of networkx over seeds 0..4 is checked in (networkx-louvain.json, made by
// networkx-louvain.py), so the test needs no Python.
import { readFile } from 'node:fs/promises';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { bytesSource, parseMatrixMarket } from '@weft/graph/io';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { modularityReference } from './community-reference.ts';
import { louvain } from './louvain.ts';

interface NetworkxLouvain {
  graphs: Record<string, { vertices: number; edges: number; modularity: number }>;
}

/** Weft's seeds tried per graph; the best is compared, as networkx's figure is its best of five seeds. */
const SEEDS = [1, 2, 3];

describe('louvain vs networkx on real graphs', () => {
  it("reaches 0.99x networkx's best modularity on each test-data graph", () =>
    gpuTest(async (device) => {
      const dir = new URL('../test-data/', import.meta.url);
      const want: NetworkxLouvain = JSON.parse(await readFile(new URL('networkx-louvain.json', dir), 'utf8'));
      expect(Object.keys(want.graphs).length).toBeGreaterThanOrEqual(12);
      for (const [file, nx] of Object.entries(want.graphs)) {
        const bytes = await readFile(new URL(file, dir));
        const edges = await parseMatrixMarket(bytesSource(new Uint8Array(bytes)), { name: file });
        // networkx's graph: symmetrized, diagonal dropped, duplicates merged keeping the smallest weight.
        const { csr } = hostCsrFromEdgeList({ ...edges, directed: false });
        expect(csr.vertexCount, file).toBe(nx.vertices);
        expect(csr.edgeCount / 2, file).toBe(nx.edges);
        const graph = uploadGraph(device, csr);
        let best = Number.NEGATIVE_INFINITY;
        for (const seed of SEEDS) {
          const got = await louvain(graph, { seed });
          expect(got.modularity, `${file} seed ${seed}`).toBeCloseTo(
            modularityReference(csr, got.communities),
            5,
          );
          best = Math.max(best, got.modularity);
        }
        graph.destroy();
        expect(best, file).toBeGreaterThanOrEqual(0.99 * nx.modularity);
      }
    }));
});
