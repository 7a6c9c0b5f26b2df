import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker, randomGeometric } from '@weft/graph/generators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { louvainReference, modularityReference } from './community-reference.ts';
import { leiden } from './leiden.ts';
import { type LeidenResult, leidenReference } from './leiden-reference.ts';

/** Communities that are not connected in their induced subgraph. */
function disconnected(csr: HostCsr, comm: ArrayLike<number>): number[] {
  const seen = new Uint8Array(csr.vertexCount);
  const done = new Set<number>();
  const bad: number[] = [];
  for (let r = 0; r < csr.vertexCount; r++) {
    if (seen[r]) continue;
    if (done.has(comm[r]!)) bad.push(comm[r]!);
    done.add(comm[r]!);
    const stack = [r];
    seen[r] = 1;
    while (stack.length > 0) {
      const u = stack.pop()!;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const w = csr.targets[e]!;
        if (!seen[w] && comm[w] === comm[u]) {
          seen[w] = 1;
          stack.push(w);
        }
      }
    }
  }
  return bad;
}

/** A stochastic block model: `blocks` groups of `size`, edge chance `pIn` inside a group and `pOut` across. */
function blockModel(blocks: number, size: number, pIn: number, pOut: number, seed: number): HostCsr {
  const random = mulberry32(seed);
  const n = blocks * size;
  const src: number[] = [];
  const dst: number[] = [];
  for (let u = 0; u < n; u++) {
    for (let v = u + 1; v < n; v++) {
      if (random() < (Math.floor(u / size) === Math.floor(v / size) ? pIn : pOut)) {
        src.push(u);
        dst.push(v);
      }
    }
  }
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(src),
    dst: Uint32Array.from(dst),
    directed: false,
  }).csr;
}

describe('leidenReference', () => {
  it('leaves no community disconnected where Louvain does', () => {
    // Found by search: louvainReference (seed 1) leaves a community of this graph disconnected.
    const csr = hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 3, seed: 19 })).csr;
    const louvain = louvainReference(csr, { seed: 1 });
    expect(disconnected(csr, louvain.communities).length).toBeGreaterThan(0);
    const leiden = leidenReference(csr, { seed: 1 });
    expect(disconnected(csr, leiden.communities)).toEqual([]);
    // Connected before the final split of early stops too: the refinement did it.
    expect(disconnected(csr, leiden.levels.at(-1)!)).toEqual([]);
    expect(leiden.modularity).toBeGreaterThanOrEqual(0.99 * louvain.modularity - 1e-9);
  });

  it('keeps communities and refined sub-communities connected on random graphs, any theta', () => {
    for (let t = 0; t < 24; t++) {
      const edges =
        t % 2
          ? kronecker({ scale: 6 + (t % 4), edgeFactor: 2 + (t % 3), seed: t })
          : randomGeometric({ n: 60 + 10 * t, avgDegree: 3 + (t % 4), seed: t });
      const csr = hostCsrFromEdgeList(edges).csr;
      const theta = [0, 0.01, 0.5][t % 3]!;
      const got = leidenReference(csr, { seed: t, theta });
      expect(disconnected(csr, got.communities), `graph ${t}`).toEqual([]);
      expect(disconnected(csr, got.levels.at(-1)!), `graph ${t}`).toEqual([]);
      expect(got.refined.length).toBe(got.levels.length);
      for (const [i, refined] of got.refined.entries()) {
        expect(disconnected(csr, refined), `graph ${t} level ${i}`).toEqual([]);
        // A refinement: each refined sub-community lies inside one community of its level.
        const of = new Map<number, number>();
        for (let v = 0; v < csr.vertexCount; v++) {
          expect(of.get(refined[v]!) ?? got.levels[i]![v]).toBe(got.levels[i]![v]);
          of.set(refined[v]!, got.levels[i]![v]!);
        }
      }
      expect(got.count).toBe(new Set(got.communities).size);
      expect(got.modularity).toBeCloseTo(modularityReference(csr, got.communities), 9);
    }
  });

  it('reaches the Louvain reference modularity on planted communities', () => {
    const graphs = [
      blockModel(4, 24, 0.35, 0.02, 1),
      blockModel(6, 16, 0.5, 0.03, 2),
      blockModel(8, 12, 0.6, 0.05, 3),
    ];
    for (const [i, csr] of graphs.entries()) {
      for (const theta of [0, 0.01]) {
        const want = louvainReference(csr, { seed: i }).modularity;
        const got = leidenReference(csr, { seed: i, theta });
        expect(got.modularity, `graph ${i}`).toBeGreaterThanOrEqual(0.99 * want - 1e-9);
        expect(disconnected(csr, got.communities)).toEqual([]);
      }
    }
  });

  it('handles empty, edgeless, looped and directed graphs; checks theta', () => {
    const csr = (n: number, pairs: number[][], directed = false) =>
      hostCsrFromEdgeList(
        {
          vertexCount: n,
          src: Uint32Array.from(pairs, (p) => p[0]!),
          dst: Uint32Array.from(pairs, (p) => p[1]!),
          directed,
        },
        { keepSelfLoops: true },
      ).csr;
    expect(leidenReference(csr(0, [])).count).toBe(0);
    expect(leidenReference(csr(3, [])).communities).toEqual(Uint32Array.of(0, 1, 2));
    expect(
      leidenReference(
        csr(3, [
          [0, 0],
          [2, 2],
        ]),
      ).count,
    ).toBe(3);
    const triangles = [
      [0, 1],
      [1, 2],
      [2, 0],
      [3, 4],
      [4, 5],
      [5, 3],
      [2, 3],
    ];
    const directed = leidenReference(csr(6, triangles, true));
    expect(directed.undirected).toBe(true);
    expect(directed.communities).toEqual(Uint32Array.of(0, 0, 0, 1, 1, 1));
    expect(directed.modularity).toBeCloseTo(5 / 14, 9);
    expect(() => leidenReference(csr(2, []), { theta: -1 })).toThrow(/theta/);
    expect(() => leidenReference(csr(2, []), { maxLevels: 0 })).toThrow(/maxLevels/);
  });
});

/** Every refined partition lies inside its level's communities and has connected parts. */
function checkRefined(csr: HostCsr, got: LeidenResult, what: string): void {
  expect(got.refined.length, what).toBe(got.levels.length);
  for (const [i, refined] of got.refined.entries()) {
    expect(disconnected(csr, refined), `${what} level ${i}`).toEqual([]);
    const of = new Map<number, number>();
    for (let v = 0; v < csr.vertexCount; v++) {
      expect(of.get(refined[v]!) ?? got.levels[i]![v], `${what} level ${i}`).toBe(got.levels[i]![v]);
      of.set(refined[v]!, got.levels[i]![v]!);
    }
  }
}

describe('leiden', () => {
  it('leaves no community disconnected on the Kronecker graph where Louvain does', () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 3, seed: 19 })).csr;
      const graph = uploadGraph(device, csr);
      const got = await leiden(graph, { seed: 1 });
      expect(disconnected(csr, got.communities)).toEqual([]);
      checkRefined(csr, got, 'kronecker');
      expect(got.count).toBe(new Set(got.communities).size);
      expect(got.modularity).toBeCloseTo(modularityReference(csr, got.communities), 4);
      const want = leidenReference(csr, { seed: 1 }).modularity;
      expect(got.modularity).toBeGreaterThanOrEqual(0.99 * want);
      graph.destroy();
    }));

  it('keeps communities and refined sub-communities connected on random graphs', () =>
    gpuTest(async (device) => {
      for (let t = 0; t < 16; t++) {
        const edges =
          t % 2
            ? kronecker({ scale: 5 + (t % 4), edgeFactor: 2 + (t % 3), seed: t })
            : randomGeometric({ n: 40 + 12 * t, avgDegree: 2 + (t % 4), seed: t });
        const csr = hostCsrFromEdgeList(edges).csr;
        const graph = uploadGraph(device, csr);
        const got = await leiden(graph, { seed: t, maxLevels: t % 5 === 4 ? 1 : 32 });
        expect(disconnected(csr, got.communities), `graph ${t}`).toEqual([]);
        checkRefined(csr, got, `graph ${t}`);
        expect(got.count, `graph ${t}`).toBe(new Set(got.communities).size);
        expect(Math.max(-1, ...got.communities), `graph ${t}`).toBe(got.count - 1);
        expect(got.modularity, `graph ${t}`).toBeCloseTo(modularityReference(csr, got.communities), 4);
        graph.destroy();
      }
    }));

  it('reaches 0.99x the reference modularity on random graphs, same seed, with connected communities', () =>
    gpuTest(async (device) => {
      for (let t = 0; t < 21; t++) {
        const csr =
          t % 3 === 0
            ? hostCsrFromEdgeList(kronecker({ scale: 6 + (t % 4), edgeFactor: 2 + (t % 3), seed: 40 + t }))
                .csr
            : t % 3 === 1
              ? hostCsrFromEdgeList(randomGeometric({ n: 80 + 15 * t, avgDegree: 3 + (t % 4), seed: 40 + t }))
                  .csr
              : blockModel(
                  3 + (t % 5),
                  10 + 3 * (t % 4),
                  0.3 + 0.04 * (t % 5),
                  0.02 + 0.01 * (t % 3),
                  40 + t,
                );
        const graph = uploadGraph(device, csr);
        const got = await leiden(graph, { seed: t });
        graph.destroy();
        const want = leidenReference(csr, { seed: t }).modularity;
        expect(got.modularity, `graph ${t}`).toBeGreaterThanOrEqual(0.99 * want);
        expect(got.modularity, `graph ${t}`).toBeCloseTo(modularityReference(csr, got.communities), 4);
        expect(disconnected(csr, got.communities), `graph ${t}`).toEqual([]);
        checkRefined(csr, got, `graph ${t}`);
      }
    }));

  it('reaches the reference modularity on planted communities', () =>
    gpuTest(async (device) => {
      const graphs = [
        blockModel(4, 24, 0.35, 0.02, 1),
        blockModel(6, 16, 0.5, 0.03, 2),
        blockModel(8, 12, 0.6, 0.05, 3),
      ];
      for (const [i, csr] of graphs.entries()) {
        const graph = uploadGraph(device, csr);
        const want = leidenReference(csr, { seed: i }).modularity;
        const got = await leiden(graph, { seed: i });
        expect(got.modularity, `graph ${i}`).toBeGreaterThanOrEqual(0.99 * want - 1e-4);
        expect(disconnected(csr, got.communities)).toEqual([]);
        graph.destroy();
      }
    }));

  it('handles empty, edgeless, looped, star and directed graphs; checks options', () =>
    gpuTest(async (device) => {
      const csr = (n: number, pairs: number[][], directed = false) =>
        hostCsrFromEdgeList(
          {
            vertexCount: n,
            src: Uint32Array.from(pairs, (p) => p[0]!),
            dst: Uint32Array.from(pairs, (p) => p[1]!),
            directed,
          },
          { keepSelfLoops: true, dedupe: 'none' },
        ).csr;
      const run = async (c: HostCsr) => {
        const graph = uploadGraph(device, c);
        try {
          return await leiden(graph);
        } finally {
          graph.destroy();
        }
      };
      expect((await run(csr(0, []))).count).toBe(0);
      expect((await run(csr(1, []))).communities).toEqual(Uint32Array.of(0));
      expect((await run(csr(3, []))).communities).toEqual(Uint32Array.of(0, 1, 2));
      const loops = await run(
        csr(3, [
          [0, 0],
          [2, 2],
          [0, 1],
          [0, 1],
        ]),
      );
      expect(disconnected(csr(3, [[0, 1]]), loops.communities)).toEqual([]);
      const star = csr(
        65,
        Array.from({ length: 64 }, (_, i) => [0, i + 1]),
      );
      const s = await run(star);
      expect(disconnected(star, s.communities)).toEqual([]);
      const triangles = [
        [0, 1],
        [1, 2],
        [2, 0],
        [3, 4],
        [4, 5],
        [5, 3],
        [2, 3],
      ];
      const directed = await run(csr(6, triangles, true));
      expect(directed.undirected).toBe(true);
      expect(directed.communities).toEqual(Uint32Array.of(0, 0, 0, 1, 1, 1));
      expect(directed.modularity).toBeCloseTo(5 / 14, 5);
      const graph = uploadGraph(device, csr(2, [[0, 1]]));
      await expect(leiden(graph, { maxLevels: 0 })).rejects.toThrow(/maxLevels/);
      graph.destroy();
    }));
});
