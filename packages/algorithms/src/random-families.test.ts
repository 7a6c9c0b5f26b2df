// Hundreds of small seeded graphs of every shape the issue names (disconnected, skewed, high-diameter,
// with duplicates and self-loops), batched: each direction's graphs form one disjoint union, so the
// whole-graph algorithms cover them all in one run, and BFS / SSSP run once from a source in each.
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { expectArrayEqual, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { graphColoring } from './coloring.ts';
import { connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { maximalIndependentSet } from './mis.ts';
import { pageRank } from './pagerank.ts';
import { sssp } from './sssp/sssp.ts';
import { disjointUnion, type FamilyGraph, randomFamilies } from './test-graphs.ts';
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

const PER_DIRECTION = 120;
const BALANCES = ['merge-path', 'thread-mapped', 'per-advance'] as const;

/** The vertex of largest out-degree of graph `i` of the union (a source that reaches something). */
function sourceIn(csr: HostCsr, first: number, count: number): number {
  let best = first;
  for (let v = first; v < first + count; v++) {
    if (csr.offsets[v + 1]! - csr.offsets[v]! > csr.offsets[best + 1]! - csr.offsets[best]!) best = v;
  }
  return best;
}

describe(`${2 * PER_DIRECTION} seeded random graphs of five families, batched`, () => {
  for (const directed of [false, true]) {
    const kind = directed ? 'directed' : 'undirected';
    const graphs: FamilyGraph[] = randomFamilies(PER_DIRECTION, directed ? 71 : 72, directed);
    const weighted = directed ? 'u32' : 'f32';
    const union = disjointUnion(graphs, weighted, 5);
    const { csr } = hostCsrFromEdgeList(union.edges);

    it(`${kind}: BFS (push, auto, idempotent) and SSSP (Bellman-Ford, near-far) from a source in each graph`, () =>
      gpuTest(async (device) => {
        const graph = uploadGraph(device, csr, { csc: directed });
        for (let i = 0; i < graphs.length; i++) {
          const source = sourceIn(csr, union.firsts[i]!, graphs[i]!.edges.vertexCount);
          const what = `${kind} graph ${i} (${graphs[i]!.family}), source ${source}`;
          const variant = i % 3;
          const b = await bfs(graph, source, {
            parents: true,
            loadBalance: BALANCES[(i >> 1) % 3]!,
            ...(variant === 1 ? { direction: 'auto' as const } : {}),
            ...(variant === 2 ? { idempotent: true } : {}),
          });
          expect(verifyBfs(csr, source, b.depths, b.parents), `${what}: bfs`).toBeNull();
          const s = await sssp(graph, source, {
            parents: i % 4 === 0,
            loadBalance: BALANCES[i % 3]!,
            ...(i % 2 === 1 ? { delta: directed ? 64 : 2.5 } : {}),
          });
          expect(
            verifySssp(csr, source, s.distances, directed ? 0 : 1e-6, s.parents),
            `${what}: sssp`,
          ).toBeNull();
        }
        graph.destroy();
      }));

    it(`${kind}: PageRank (pull, push) and CC on the union of all ${PER_DIRECTION}`, () =>
      gpuTest(async (device) => {
        const graph = uploadGraph(device, csr, { csc: directed });
        for (const direction of ['pull', 'push'] as const) {
          const pr = await pageRank(graph, { direction });
          expect(pr.converged, direction).toBe(true);
          expect(verifyPageRank(csr, pr.ranks), direction).toBeNull();
        }
        for (const algorithm of ['union-find', 'label-propagation'] as const) {
          const cc = await connectedComponents(graph, { algorithm });
          expect(verifyComponents(csr, cc.labels, cc.count), algorithm).toBeNull();
          expectArrayEqual(cc.labels, componentsReference(csr).labels, `${algorithm} labels`);
          // At least one component per graph: the union adds no edges between them.
          expect(cc.count, algorithm).toBeGreaterThanOrEqual(PER_DIRECTION);
        }
        graph.destroy();
      }));

    it(`${kind}: triangles, MIS and coloring on the union (as an undirected simple graph)`, () =>
      gpuTest(async (device) => {
        const simple = directed ? hostCsrFromEdgeList({ ...union.edges, directed: false }).csr : csr;
        const graph = uploadGraph(device, simple);
        const want = trianglesReference(simple);
        expect(want).toBeGreaterThan(0);
        expect((await triangleCount(graph)).count).toBe(want);
        for (const seed of [3, 4]) {
          const mis = await maximalIndependentSet(graph, { seed });
          expect(verifyIndependentSet(simple, mis.inSet), `mis, seed ${seed}`).toBeNull();
          const coloring = await graphColoring(graph, { seed });
          expect(verifyColoring(simple, coloring.colors), `coloring, seed ${seed}`).toBeNull();
        }
        graph.destroy();
      }));
  }

  it('the families are what they say (counts over the generated graphs)', () => {
    const graphs = randomFamilies(PER_DIRECTION, 72, false);
    const shape = (g: FamilyGraph) => {
      const { csr } = hostCsrFromEdgeList(g.edges);
      let maxDegree = 0;
      for (let v = 0; v < csr.vertexCount; v++)
        maxDegree = Math.max(maxDegree, csr.offsets[v + 1]! - csr.offsets[v]!);
      return { csr, maxDegree, components: componentsReference(csr).count };
    };
    for (const g of graphs) {
      const { csr, maxDegree, components } = shape(g);
      // Raw lists carry repeats and loops that the builder removes.
      expect(g.edges.src.length, g.family).toBeGreaterThan(csr.edgeCount / 2);
      if (g.family === 'disconnected') expect(components, g.family).toBeGreaterThan(1);
      if (g.family === 'hub' && csr.vertexCount >= 20)
        expect(maxDegree, g.family).toBeGreaterThan(csr.vertexCount / 2);
      if (g.family === 'high-diameter' && csr.vertexCount >= 40)
        expect(maxDegree, g.family).toBeLessThanOrEqual(8);
    }
  });
});
