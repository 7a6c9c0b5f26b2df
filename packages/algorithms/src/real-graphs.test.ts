// Every algorithm on the small real graphs of ../test-data (see its README for sources), checked by the
// verifiers against the TypeScript references, and against the graphs' published figures.
import { readFile } from 'node:fs/promises';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { bytesSource, parseMatrixMarket } from '@weft/graph/io';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { graphColoring } from './coloring.ts';
import { connectedComponents } from './components.ts';
import { maximalIndependentSet } from './mis.ts';
import { pageRank } from './pagerank.ts';
import { sssp } from './sssp/sssp.ts';
import { triangleCount } from './triangles.ts';
import { trianglesReference } from './triangles-reference.ts';
import {
  verifyBfs,
  verifyColoring,
  verifyComponents,
  verifyIndependentSet,
  verifyPageRank,
  verifySssp,
} from './verify.ts';

interface Known {
  file: string;
  vertices: number;
  /** Edges of the simple graph (undirected: pairs; directed: arcs), self-loops excluded. */
  edges: number;
  directed: boolean;
  /** Triangles of the undirected simple graph. */
  triangles: number;
  components: number;
}

// Published figures: karate 34/78 with 45 triangles; Les Misérables 77/254; dolphins 62/159 with 95
// triangles; political books 105/441 with 560 triangles; SuiteSparse's nonzero counts for HB/bcspwr01
// (131), HB/can_73 (377) and HB/ibm32 (126) give the edge counts less the diagonal. The other triangle and
// component counts are networkx 3.6's on the same files (independent of this package's references).
const GRAPHS: Known[] = [
  { file: 'karate.mtx', vertices: 34, edges: 78, directed: false, triangles: 45, components: 1 },
  { file: 'lesmis.mtx', vertices: 77, edges: 254, directed: false, triangles: 467, components: 1 },
  { file: 'florentine.mtx', vertices: 15, edges: 20, directed: false, triangles: 3, components: 1 },
  { file: 'davis.mtx', vertices: 32, edges: 89, directed: false, triangles: 0, components: 1 },
  { file: 'krackhardt-kite.mtx', vertices: 10, edges: 18, directed: false, triangles: 11, components: 1 },
  { file: 'petersen.mtx', vertices: 10, edges: 15, directed: false, triangles: 0, components: 1 },
  { file: 'dolphins.mtx', vertices: 62, edges: 159, directed: false, triangles: 95, components: 1 },
  { file: 'polbooks.mtx', vertices: 105, edges: 441, directed: false, triangles: 560, components: 1 },
  { file: 'bcspwr01.mtx', vertices: 39, edges: 46, directed: false, triangles: 2, components: 1 },
  { file: 'can73.mtx', vertices: 73, edges: 152, directed: false, triangles: 32, components: 1 },
  { file: 'ibm32.mtx', vertices: 32, edges: 94, directed: true, triangles: 28, components: 1 },
  { file: 'hartford-drug.mtx', vertices: 212, edges: 337, directed: true, triangles: 35, components: 9 },
];

async function load(file: string): Promise<{ csr: HostCsr; undirected: HostCsr }> {
  const bytes = await readFile(new URL(`../test-data/${file}`, import.meta.url));
  const edges = await parseMatrixMarket(bytesSource(new Uint8Array(bytes)), { name: file });
  const { csr } = hostCsrFromEdgeList(edges);
  // Triangles, MIS and coloring are defined on the undirected simple graph.
  const undirected = edges.directed ? hostCsrFromEdgeList({ ...edges, directed: false }).csr : csr;
  return { csr, undirected };
}

/** A few BFS / SSSP sources: the first and last vertex, and the one of largest out-degree. */
function sources(csr: HostCsr): number[] {
  let hub = 0;
  for (let v = 0; v < csr.vertexCount; v++) {
    const d = csr.offsets[v + 1]! - csr.offsets[v]!;
    if (d > csr.offsets[hub + 1]! - csr.offsets[hub]!) hub = v;
  }
  return [...new Set([0, csr.vertexCount - 1, hub])];
}

describe('real graphs (test-data)', () => {
  it('load with the published vertex and edge counts', async () => {
    for (const g of GRAPHS) {
      const { csr, undirected } = await load(g.file);
      expect(csr.vertexCount, g.file).toBe(g.vertices);
      expect(csr.directed, g.file).toBe(g.directed);
      expect(g.directed ? csr.edgeCount : csr.edgeCount / 2, g.file).toBe(g.edges);
      expect(trianglesReference(undirected), `${g.file} triangles (reference)`).toBe(g.triangles);
    }
  });

  for (const g of GRAPHS) {
    it(`${g.file}: BFS, SSSP, PageRank, CC, triangles, MIS and coloring verify`, () =>
      gpuTest(async (device) => {
        const { csr, undirected } = await load(g.file);
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        for (const source of sources(csr)) {
          const what = `${g.file}, source ${source}`;
          for (const direction of ['push', 'auto'] as const) {
            const r = await bfs(graph, source, { parents: true, direction });
            expect(verifyBfs(csr, source, r.depths, r.parents), `${what}, bfs ${direction}`).toBeNull();
          }
          // The file's weights where it has them (karate, Les Misérables), else one per edge.
          for (const delta of [undefined, 2]) {
            const r = await sssp(graph, source, {
              parents: true,
              ...(delta === undefined ? {} : { delta }),
            });
            expect(verifySssp(csr, source, r.distances, 0, r.parents), `${what}, sssp`).toBeNull();
          }
        }
        for (const direction of ['pull', 'push'] as const) {
          const pr = await pageRank(graph, { direction });
          expect(pr.converged, g.file).toBe(true);
          expect(verifyPageRank(csr, pr.ranks), `${g.file} pagerank ${direction}`).toBeNull();
        }
        for (const algorithm of ['union-find', 'label-propagation'] as const) {
          const cc = await connectedComponents(graph, { algorithm });
          expect(verifyComponents(csr, cc.labels, cc.count), `${g.file} cc ${algorithm}`).toBeNull();
          expect(cc.count, `${g.file} components ${algorithm}`).toBe(g.components);
        }
        graph.destroy();

        const simple = uploadGraph(device, undirected);
        expect((await triangleCount(simple)).count, `${g.file} triangles`).toBe(g.triangles);
        const mis = await maximalIndependentSet(simple, { seed: 7 });
        expect(verifyIndependentSet(undirected, mis.inSet), `${g.file} mis`).toBeNull();
        const coloring = await graphColoring(simple, { seed: 7 });
        expect(verifyColoring(undirected, coloring.colors), `${g.file} coloring`).toBeNull();
        // Petersen's chromatic number is 3; a proper coloring of any graph with an edge needs 2.
        expect(coloring.colorCount).toBeGreaterThanOrEqual(g.file === 'petersen.mtx' ? 3 : 2);
        simple.destroy();
      }));
  }
});
