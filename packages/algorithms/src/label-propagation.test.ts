import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid } from '@weft/graph/generators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { graphColoring } from './coloring.ts';
import { labelPropagationReference } from './community-reference.ts';
import { labelPropagation } from './label-propagation.ts';
import { randomEdges } from './test-graphs.ts';

/** A host CSR from edge pairs, loops and duplicates kept. */
function csrOf(n: number, pairs: number[][], directed = false): HostCsr {
  return hostCsrFromEdgeList(
    {
      vertexCount: n,
      src: Uint32Array.from(pairs, (p) => p[0]!),
      dst: Uint32Array.from(pairs, (p) => p[1]!),
      directed,
    },
    { keepSelfLoops: true, dedupe: 'none', symmetrize: false },
  ).csr;
}

/** Pairs from a flat list [u0, v0, u1, v1, ...]. */
const pairsOf = (flat: number[]) =>
  Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!, flat[2 * i + 1]!]);

/** The partition as sorted member lists, ordered like Python's sorted lists of lists. */
function partition(labels: ArrayLike<number>): number[][] {
  const parts = new Map<number, number[]>();
  for (let v = 0; v < labels.length; v++) parts.set(labels[v]!, [...(parts.get(labels[v]!) ?? []), v]);
  return [...parts.values()].sort((a, b) => a[0]! - b[0]!);
}

// networkx 3.6 label_propagation_communities on nx.karate_club_graph().
const KARATE = [
  0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 0, 10, 0, 11, 0, 12, 0, 13, 0, 17, 0, 19, 0, 21, 0, 31, 1,
  2, 1, 3, 1, 7, 1, 13, 1, 17, 1, 19, 1, 21, 1, 30, 2, 3, 2, 7, 2, 8, 2, 9, 2, 13, 2, 27, 2, 28, 2, 32, 3, 7,
  3, 12, 3, 13, 4, 6, 4, 10, 5, 6, 5, 10, 5, 16, 6, 16, 8, 30, 8, 32, 8, 33, 9, 33, 13, 33, 14, 32, 14, 33,
  15, 32, 15, 33, 18, 32, 18, 33, 19, 33, 20, 32, 20, 33, 22, 32, 22, 33, 23, 25, 23, 27, 23, 29, 23, 32, 23,
  33, 24, 25, 24, 27, 24, 31, 25, 31, 26, 29, 26, 33, 27, 33, 28, 31, 28, 33, 29, 32, 29, 33, 30, 32, 30, 33,
  31, 32, 31, 33, 32, 33,
];
const KARATE_LPA = [
  [0, 1, 3, 4, 7, 10, 11, 12, 13, 17, 19, 21, 24, 25, 31],
  [2, 8, 9, 14, 15, 18, 20, 22, 23, 26, 27, 28, 29, 30, 32, 33],
  [5, 6, 16],
];
// networkx on a multigraph edge list with loops and duplicates (nx.Graph merges them, a loop is a neighbour).
const LOOPY = [
  1, 9, 4, 8, 2, 1, 9, 9, 3, 5, 1, 8, 1, 9, 0, 9, 3, 7, 8, 6, 5, 7, 9, 7, 5, 4, 3, 2, 3, 1, 9, 4, 8, 7, 5, 7,
  4, 9, 1, 1, 8, 6, 2, 5, 2, 7, 6, 0, 1, 8, 9, 5, 5, 5, 9, 7, 9, 7, 1, 1, 4, 7, 1, 0, 4, 9, 7, 4,
];
const LOOPY_LPA = [
  [0, 1, 4, 6, 8, 9],
  [2, 3, 5, 7],
];

/** The reference on the colouring the GPU uses: graphColoring of the simple undirected graph, same seed. */
async function referenceOnGpuColours(
  device: Parameters<typeof uploadGraph>[0],
  csr: HostCsr,
  seed: number,
  maxIterations?: number,
) {
  const arcsSrc: number[] = [];
  for (let u = 0; u < csr.vertexCount; u++)
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) arcsSrc.push(u);
  const simple = hostCsrFromEdgeList(
    {
      vertexCount: csr.vertexCount,
      src: Uint32Array.from(arcsSrc),
      dst: csr.targets.slice(0, csr.edgeCount),
      directed: false,
    },
    { keepSelfLoops: true, dedupe: 'first' },
  ).csr;
  const g = uploadGraph(device, simple);
  const { colors } = await graphColoring(g, { seed });
  g.destroy();
  return labelPropagationReference(csr, { colors, ...(maxIterations ? { maxIterations } : {}) });
}

describe('labelPropagationReference', () => {
  it('equals networkx label_propagation_communities', () => {
    expect(partition(labelPropagationReference(csrOf(34, pairsOf(KARATE))).labels)).toEqual(KARATE_LPA);
    expect(partition(labelPropagationReference(csrOf(10, pairsOf(LOOPY))).labels)).toEqual(LOOPY_LPA);
    // The same multigraph as directed arcs: run as the undirected graph.
    const directed = labelPropagationReference(csrOf(10, pairsOf(LOOPY), true));
    expect(partition(directed.labels)).toEqual(LOOPY_LPA);
    expect(directed.undirected).toBe(true);
  });
});

describe('labelPropagation', () => {
  it('equals the reference on its colouring: random graphs, loops, duplicates, directed', () =>
    gpuTest(async (device) => {
      const random = mulberry32(30);
      const graphs = [csrOf(34, pairsOf(KARATE)), hostCsrFromEdgeList(grid({ width: 9, height: 7 })).csr];
      for (let t = 0; t < 16; t++) {
        const n = 1 + Math.floor(random() * 200);
        const m = Math.floor(random() * n * (t % 4 === 0 ? 0.7 : 4));
        const e = randomEdges(n, m, 300 + t, t % 3 === 0);
        graphs.push(hostCsrFromEdgeList(e, { keepSelfLoops: true, dedupe: 'none', symmetrize: false }).csr);
      }
      // Colour classes beyond a workgroup per vertex (thousands of vertices), and a hub of 5000 arcs.
      const big = randomEdges(12_000, 9000, 330, false);
      graphs.push(hostCsrFromEdgeList(big, { keepSelfLoops: true, dedupe: 'none', symmetrize: false }).csr);
      graphs.push(
        csrOf(
          6001,
          Array.from({ length: 6000 }, (_, i) => [i % 3 === 0 ? 0 : 1 + ((7 * i) % 6000), i + 1]),
        ),
      );
      for (const [i, csr] of graphs.entries()) {
        const seed = 1 + (i % 3);
        const graph = uploadGraph(device, csr);
        const want = await referenceOnGpuColours(device, csr, seed);
        // Label counts by hash tables (the default) and by sorting each class's arcs.
        for (const counting of ['hash', 'sort'] as const) {
          const got = await labelPropagation(graph, { seed, counting });
          expect(got.labels, `graph ${i}, ${counting}`).toEqual(want.labels);
          expect(
            [got.count, got.iterations, got.converged, got.undirected],
            `graph ${i}, ${counting}`,
          ).toEqual([want.count, want.iterations, want.converged, want.undirected]);
        }
        graph.destroy();
      }
    }));

  it('handles empty, isolated, looped, star and path graphs; stops at maxIterations; checks options', () =>
    gpuTest(async (device) => {
      const star = Array.from({ length: 300 }, (_, i) => [0, i + 1]);
      const path = Array.from({ length: 129 }, (_, i) => [i, i + 1]);
      for (const csr of [
        csrOf(0, []),
        csrOf(1, []),
        csrOf(4, [[1, 2]]),
        csrOf(3, [
          [0, 0],
          [1, 1],
          [1, 1],
        ]),
        csrOf(301, star),
        csrOf(130, path, true),
      ]) {
        const graph = uploadGraph(device, csr);
        const want = await referenceOnGpuColours(device, csr, 1);
        expect(await labelPropagation(graph)).toEqual(want);
        expect(await labelPropagation(graph, { counting: 'sort' })).toEqual(want);
        graph.destroy();
      }
      const csr = csrOf(130, path);
      const graph = uploadGraph(device, csr);
      const once = await labelPropagation(graph, { maxIterations: 1, seed: 4 });
      expect(once).toEqual(await referenceOnGpuColours(device, csr, 4, 1));
      expect(once.converged).toBe(false);
      await expect(labelPropagation(graph, { maxIterations: 0 })).rejects.toThrow(/maxIterations/);
      await expect(labelPropagation(graph, { seed: 0.5 })).rejects.toThrow(/seed/);
      await expect(labelPropagation(graph, { counting: 'heap' as 'hash' })).rejects.toThrow(/counting/);
      graph.destroy();
    }));
});
