import { uploadGraph } from '@weft/graph';
import { csrNeighbors } from '@weft/operators';
import { expectArrayEqual, expectClose, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { bfsReference } from './bfs/reference.ts';
import { connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { pageRank } from './pagerank.ts';
import { ssspReference } from './sssp/reference.ts';
import { sssp } from './sssp/sssp.ts';
import { testGraphs, testSources } from './test-graphs.ts';
import { triangleCount } from './triangles.ts';

describe('algorithms on a NeighborGraph (a CSR through csrNeighbors) equal the CSR runs', () => {
  for (const { name, csr } of testGraphs('u32', 2)) {
    it(name, () =>
      gpuTest(async (device) => {
        const graph = uploadGraph(device, csr);
        const g = csrNeighbors(graph);
        try {
          for (const source of testSources(csr).slice(0, 2)) {
            const want = bfsReference(csr, source).depths;
            expectArrayEqual((await bfs(g, source)).depths, want, `bfs from ${source}`);
            const mapped = await bfs(g, source, { loadBalance: 'merge-path', parents: true });
            expectArrayEqual(mapped.depths, want, `balanced bfs from ${source}`);
            for (const claim of ['bitmap', 'depth'] as const) {
              expectArrayEqual(
                (await bfs(g, source, { claim })).depths,
                want,
                `${claim} claims from ${source}`,
              );
            }
            const distances = (await sssp(g, source)).distances;
            expectArrayEqual(distances, ssspReference(csr, source), `sssp from ${source}`);
          }
          const ranks = await pageRank(graph, {
            weight: null,
            direction: csr.directed ? 'push' : 'pull',
            tolerance: 1e-6,
          });
          const got = await pageRank(g, { tolerance: 1e-6 });
          expectClose(got.ranks, ranks.ranks, (v) => 1e-4 * ranks.ranks[v]!);
          const labels = (await connectedComponents(g)).labels;
          expectArrayEqual(labels, componentsReference(csr).labels, 'components');
          if (!csr.directed) {
            const triangles = await triangleCount(graph);
            const mine = await triangleCount(g);
            expect(mine.count).toBe(triangles.count);
            expectArrayEqual(mine.perVertex, triangles.perVertex, 'triangles per vertex');
          }
        } finally {
          graph.destroy();
        }
      }),
    );
  }
});
