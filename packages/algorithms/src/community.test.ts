import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { modularity } from './community-gpu.ts';
import { labelPropagationReference, louvainReference, modularityReference } from './community-reference.ts';
import { louvain } from './louvain.ts';

/** A host CSR from edge pairs (f32 weights when given), loops and duplicates kept. */
function csrOf(n: number, pairs: number[][], directed = false, weights?: number[]): HostCsr {
  return hostCsrFromEdgeList(
    {
      vertexCount: n,
      src: Uint32Array.from(pairs, (p) => p[0]!),
      dst: Uint32Array.from(pairs, (p) => p[1]!),
      ...(weights ? { weights: Float32Array.from(weights) } : {}),
      directed,
    },
    { keepSelfLoops: true, dedupe: 'none' },
  ).csr;
}

/** A stochastic block model: `blocks` groups of `size`, edge chance `pIn` inside a group and `pOut` across. */
function blockModel(blocks: number, size: number, pIn: number, pOut: number, seed: number, weighted = false) {
  const random = mulberry32(seed);
  const n = blocks * size;
  const pairs: number[][] = [];
  const weights: number[] = [];
  for (let u = 0; u < n; u++) {
    for (let v = u + 1; v < n; v++) {
      const same = Math.floor(u / size) === Math.floor(v / size);
      if (random() < (same ? pIn : pOut)) {
        pairs.push([u, v]);
        weights.push(1 + Math.floor(random() * 4));
      }
    }
  }
  return csrOf(n, pairs, false, weighted ? weights : undefined);
}

/** `count` cliques of `size` joined in a ring by one edge each. */
function ringOfCliques(count: number, size: number): HostCsr {
  const pairs: number[][] = [];
  for (let c = 0; c < count; c++) {
    for (let i = 0; i < size; i++)
      for (let j = i + 1; j < size; j++) pairs.push([c * size + i, c * size + j]);
    pairs.push([c * size, ((c + 1) % count) * size + 1]);
  }
  return csrOf(count * size, pairs);
}

function randomPartition(n: number, k: number, seed: number): Uint32Array {
  const random = mulberry32(seed);
  return Uint32Array.from({ length: n }, () => Math.floor(random() * k) * 7 + 3);
}

describe('modularity', () => {
  it('matches networkx values on small graphs', () => {
    // networkx: modularity(barbell-like two triangles joined by an edge, [{0,1,2},{3,4,5}]) = 5/14.
    const two = csrOf(6, [
      [0, 1],
      [1, 2],
      [0, 2],
      [3, 4],
      [4, 5],
      [3, 5],
      [2, 3],
    ]);
    expect(modularityReference(two, [0, 0, 0, 1, 1, 1])).toBeCloseTo(5 / 14, 12);
    // A loop of weight w adds w to m and 2w to its vertex's degree; directed uses out x in / m^2.
    const loop = csrOf(2, [
      [0, 0],
      [0, 1],
    ]);
    expect(modularityReference(loop, [0, 1])).toBeCloseTo(1 / 2 - (9 + 1) / 16, 12);
    const arc = csrOf(
      3,
      [
        [0, 1],
        [1, 2],
        [2, 0],
      ],
      true,
    );
    expect(modularityReference(arc, [0, 0, 1])).toBeCloseTo(1 / 3 - (2 * 2 + 1 * 1) / 9, 12);
  });

  it('GPU equals the reference on random graphs and partitions, weighted, directed, with loops', () =>
    gpuTest(async (device) => {
      const random = mulberry32(5);
      for (let t = 0; t < 12; t++) {
        const n = 1 + Math.floor(random() * 300);
        const m = Math.floor(random() * 4 * n);
        const pairs = Array.from({ length: m }, () => [Math.floor(random() * n), Math.floor(random() * n)]);
        const weights = pairs.map(() => Math.round(random() * 8 * 4) / 4);
        const csr = csrOf(n, pairs, t % 3 === 2, t % 2 === 0 ? weights : undefined);
        const graph = uploadGraph(device, csr);
        const partition = randomPartition(n, 1 + (t % 5) * 3, t);
        for (const resolution of [1, 0.5]) {
          const want = modularityReference(csr, partition, { resolution });
          expect(await modularity(graph, partition, { resolution }), `case ${t}`).toBeCloseTo(want, 5);
        }
        graph.destroy();
      }
    }));

  it('refuses bad partitions and weights', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, csrOf(3, [[0, 1]], false, [-1]));
      await expect(modularity(graph, [0, 1])).rejects.toThrow(/partition has 2 entries/);
      await expect(modularity(graph, [0, 1, 2])).rejects.toThrow(/non-negative weights/);
      expect(await modularity(graph, [0, 1, 2], { weight: false })).toBeCloseTo(-0.5, 6);
      graph.destroy();
    }));
});

describe('louvain', () => {
  it('reaches the reference modularity on planted communities; reports modularity() of its partition', () =>
    gpuTest(async (device) => {
      const graphs = [
        ringOfCliques(12, 5),
        blockModel(4, 24, 0.35, 0.02, 1),
        blockModel(6, 16, 0.5, 0.03, 2, true),
      ];
      for (const [i, csr] of graphs.entries()) {
        const graph = uploadGraph(device, csr);
        const want = louvainReference(csr);
        const got = await louvain(graph, { seed: i });
        expect(got.modularity, `graph ${i}`).toBeGreaterThanOrEqual(0.99 * want.modularity - 1e-4);
        expect(got.modularity).toBeCloseTo(modularityReference(csr, got.communities), 5);
        expect(got.modularity).toBeCloseTo(await modularity(graph, got.communities), 5);
        expect(new Set(got.communities).size).toBe(got.count);
        expect(got.levels.at(-1)).toEqual(got.communities);
        graph.destroy();
      }
    }));

  it('handles empty, edgeless, looped and directed graphs; checks its options', () =>
    gpuTest(async (device) => {
      for (const csr of [
        csrOf(0, []),
        csrOf(1, []),
        csrOf(5, [
          [0, 0],
          [3, 3],
        ]),
        csrOf(4, [[0, 1]]),
      ]) {
        const graph = uploadGraph(device, csr);
        const got = await louvain(graph);
        const want = louvainReference(csr);
        expect(got.modularity).toBeCloseTo(want.modularity, 6);
        expect(got.count).toBe(want.count);
        graph.destroy();
      }
      // Directed: runs on the undirected graph, whose modularity it reports.
      const pairs = [
        [0, 1],
        [0, 2],
        [0, 3],
        [4, 5],
        [5, 6],
        [4, 6],
        [3, 4],
      ];
      const graph = uploadGraph(device, csrOf(7, pairs, true));
      const got = await louvain(graph);
      expect(got.undirected).toBe(true);
      expect(got.modularity).toBeCloseTo(modularityReference(csrOf(7, pairs), got.communities), 5);
      expect(got.modularity).toBeGreaterThan(0.3);
      await expect(louvain(graph, { maxLevels: 0 })).rejects.toThrow(/maxLevels/);
      await expect(louvain(graph, { resolution: -1 })).rejects.toThrow(/resolution/);
      expect((await louvain(graph, { maxLevels: 1 })).levels.length).toBeLessThanOrEqual(1);
      graph.destroy();
    }));
});

describe('labelPropagationReference', () => {
  it('finds the cliques of a ring of cliques and keeps labels that tie', () => {
    const csr = ringOfCliques(6, 5);
    const got = labelPropagationReference(csr);
    expect(got.converged).toBe(true);
    expect(new Set(got.labels).size).toBe(got.count);
    // Converged: every vertex's label is among the most frequent of its neighbours'; cliques stay whole.
    for (let v = 0; v < 30; v++) {
      const freq = new Map<number, number>();
      for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
        const l = got.labels[csr.targets[e]!]!;
        freq.set(l, (freq.get(l) ?? 0) + 1);
      }
      expect(freq.get(got.labels[v]!)).toBe(Math.max(...freq.values()));
      expect(got.labels[v]).toBe(got.labels[v - (v % 5) + 2]);
    }
    // An edge: the first coloured end takes the other's label, then nothing changes.
    expect(labelPropagationReference(csrOf(2, [[0, 1]])).labels).toEqual(Uint32Array.from([0, 0]));
    expect(() => labelPropagationReference(csrOf(2, []), { maxIterations: 0 })).toThrow(/maxIterations/);
  });
});
