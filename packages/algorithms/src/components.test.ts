import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { type ComponentsAlgorithm, connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { testGraphs } from './test-graphs.ts';
import { verifyComponents } from './verify.ts';

const ALGORITHMS: ComponentsAlgorithm[] = ['union-find', 'label-propagation'];

/** `edges` as a CSR (duplicates merged, loops dropped). */
function csrOf(vertexCount: number, edges: [number, number][], directed: boolean): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount,
    src: Uint32Array.from(edges, (e) => e[0]),
    dst: Uint32Array.from(edges, (e) => e[1]),
    directed,
  }).csr;
}

describe('connectedComponents', () => {
  for (const algorithm of ALGORITHMS) {
    it(`${algorithm}: labels every component by its smallest vertex, on the corpus and random graphs`, () =>
      gpuTest(async (device) => {
        for (const [i, { name, csr }] of testGraphs(false, 50).entries()) {
          // Union-find links every CSR arc of a directed graph: it needs no CSC.
          const csc = csr.directed && algorithm === 'label-propagation';
          const graph = uploadGraph(device, csr, { csc });
          const result = await connectedComponents(graph, {
            algorithm,
            loadBalance: (['merge-path', 'thread-mapped', 'per-advance'] as const)[i % 3]!,
          });
          expect(verifyComponents(csr, result.labels, result.count), name).toBeNull();
          expectArrayEqual(result.labels, componentsReference(csr).labels, `${name} labels`);
          if (algorithm === 'union-find') expect(result.iterations, name).toBe(1);
          graph.destroy();
        }
      }));
  }

  it('an empty graph has no components, one vertex is one; label propagation on a directed graph needs its CSC', () =>
    gpuTest(async (device) => {
      for (const algorithm of ALGORITHMS) {
        const empty = uploadGraph(device, csrOf(0, [], false));
        expect(await connectedComponents(empty, { algorithm })).toMatchObject({ count: 0 });
        empty.destroy();
        const one = uploadGraph(device, csrOf(1, [], true), { csc: true });
        const r = await connectedComponents(one, { algorithm });
        expect(r.count).toBe(1);
        expect([...r.labels]).toEqual([0]);
        one.destroy();
      }
      const csr = csrOf(3, [[2, 1]], true);
      const directed = uploadGraph(device, csr);
      await expect(connectedComponents(directed, { algorithm: 'label-propagation' })).rejects.toThrow(
        /csc: true/,
      );
      const r = await connectedComponents(directed);
      expectArrayEqual(r.labels, componentsReference(csr).labels, 'labels');
      expect(r.count).toBe(2);
      await expect(
        // @ts-expect-error: not an algorithm
        connectedComponents(directed, { algorithm: 'bfs' }),
      ).rejects.toThrow(/algorithm must be/);
      directed.destroy();
    }));

  it('union-find: one iteration on high-diameter graphs (paths, a grid) and on stars', () =>
    gpuTest(async (device) => {
      const n = 20_000;
      const r = mulberry32(7);
      const perm = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        [perm[i], perm[j]] = [perm[j]!, perm[i]!];
      }
      const path = (id: (i: number) => number) =>
        Array.from({ length: n - 1 }, (_, i): [number, number] => [id(i), id(i + 1)]);
      const star = (hub: number, leaves: number[]) => leaves.map((v): [number, number] => [hub, v]);
      const others = (hub: number) => perm.filter((v) => v !== hub);
      const graphs: [string, HostCsr][] = [
        [
          'path',
          csrOf(
            n,
            path((i) => i),
            false,
          ),
        ],
        [
          'directed path, arcs from larger ids',
          csrOf(
            n,
            path((i) => n - 1 - i),
            true,
          ),
        ],
        [
          'path through shuffled ids',
          csrOf(
            n,
            path((i) => perm[i]!),
            false,
          ),
        ],
        ['grid 150 x 130', hostCsrFromEdgeList(grid({ width: 150, height: 130 })).csr],
        // Every edge's link meets the same root: the compare-exchanges contend on it.
        ['star, hub last', csrOf(n, star(n - 1, others(n - 1)), false)],
        ['directed star, hub in the middle', csrOf(n, star(n >> 1, others(n >> 1)), true)],
        // Two stars on half the vertices each, isolated vertices besides.
        ['two stars', csrOf(n, [...star(5, perm.slice(0, 8000)), ...star(7, perm.slice(10_000))], false)],
      ];
      for (const [name, csr] of graphs) {
        const graph = uploadGraph(device, csr);
        const result = await connectedComponents(graph);
        expect(result.iterations, name).toBe(1);
        expect(verifyComponents(csr, result.labels, result.count), name).toBeNull();
        expectArrayEqual(result.labels, componentsReference(csr).labels, `${name} labels`);
        graph.destroy();
      }
    }));
});
