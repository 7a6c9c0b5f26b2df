import { readFile } from 'node:fs/promises';
import { type HostCsr, type HostEdgeList, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { bytesSource, parseMatrixMarket } from '@weft/graph/io';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { jaccard, jaccardAll, overlap } from './similarity.ts';
import {
  jaccardAllReference,
  jaccardReference,
  overlapReference,
  type SimilarityResult,
} from './similarity-reference.ts';
import { randomFamilies } from './test-graphs.ts';

/** A CSR that keeps self-loops and duplicate edges, so the similarity must drop and merge them itself. */
function raw(edges: HostEdgeList): HostCsr {
  return hostCsrFromEdgeList(edges, { keepSelfLoops: true, dedupe: 'none' }).csr;
}

function star(leaves: number): HostEdgeList {
  return {
    vertexCount: leaves + 1,
    src: new Uint32Array(leaves),
    dst: Uint32Array.from({ length: leaves }, (_, i) => i + 1),
    directed: false,
  };
}

function expectSame(got: SimilarityResult, want: SimilarityResult, what: string): void {
  expect(got.first, what).toEqual(want.first);
  expect(got.second, what).toEqual(want.second);
  expect(got.common, what).toEqual(want.common);
  expect(got.undirected, what).toBe(want.undirected);
  for (let i = 0; i < want.score.length; i++) {
    expect(Math.abs(got.score[i]! - want.score[i]!), `${what} pair ${i}`).toBeLessThanOrEqual(1e-6);
  }
}

describe('jaccard and overlap', () => {
  it('match networkx on the karate club (hand-checked fractions)', () =>
    gpuTest(async (device) => {
      const bytes = await readFile(new URL('../test-data/karate.mtx', import.meta.url));
      const edges = await parseMatrixMarket(bytesSource(new Uint8Array(bytes)), { name: 'karate.mtx' });
      const graph = uploadGraph(device, hostCsrFromEdgeList(edges).csr);
      // networkx 3.6 jaccard_coefficient(karate_club_graph(), pairs); overlap = common / min degree.
      const pairs = { src: [0, 0, 32, 5, 0, 16], dst: [1, 33, 33, 6, 0, 25] };
      const j = await jaccard(graph, pairs);
      expect(j.common).toEqual(Uint32Array.of(7, 4, 10, 2, 16, 0));
      const want = [7 / 18, 4 / 29, 10 / 19, 1 / 3, 1, 0];
      for (const [i, w] of want.entries()) expect(j.score[i]).toBeCloseTo(w, 6);
      const o = await overlap(graph, Uint32Array.of(0, 1, 0, 33, 32, 33, 5, 6));
      for (const [i, w] of [7 / 9, 1 / 4, 5 / 6, 1 / 2].entries()) expect(o.score[i]).toBeCloseTo(w, 6);
      graph.destroy();
    }));

  it('agree with the references on random graphs with loops, duplicates, hubs and isolated vertices', () =>
    gpuTest(async (device) => {
      const r = mulberry32(77);
      const cases: HostCsr[] = [
        ...randomFamilies(14, 5, false).map((f) => raw(f.edges)),
        ...randomFamilies(10, 6, true).map((f) => raw(f.edges)),
        ...randomFamilies(6, 7, false).map((f) => hostCsrFromEdgeList(f.edges).csr),
        raw(star(300)),
        raw({
          vertexCount: 4,
          src: Uint32Array.of(1, 1, 2, 2),
          dst: Uint32Array.of(1, 2, 1, 2),
          directed: false,
        }),
        raw({ vertexCount: 3, src: new Uint32Array(0), dst: new Uint32Array(0), directed: true }),
      ];
      for (const [c, csr] of cases.entries()) {
        const n = csr.vertexCount;
        const count = 1 + Math.floor(r() * 60);
        const src = Uint32Array.from({ length: count }, () => Math.floor(r() * n));
        const dst = Uint32Array.from({ length: count }, (_, i) =>
          i % 9 === 0 ? src[i]! : Math.floor(r() * n),
        );
        const graph = uploadGraph(device, csr);
        expectSame(
          await jaccard(graph, { src, dst }),
          jaccardReference(csr, { src, dst }),
          `case ${c} jaccard`,
        );
        expectSame(
          await overlap(graph, { src, dst }),
          overlapReference(csr, { src, dst }),
          `case ${c} overlap`,
        );
        const vertices = Uint32Array.from({ length: 1 + Math.floor(r() * 5) }, () => Math.floor(r() * n));
        const topK = c % 3 === 0 ? undefined : 1 + Math.floor(r() * 6);
        expectSame(
          await jaccardAll(graph, vertices, { topK }),
          jaccardAllReference(csr, vertices, { topK }),
          `case ${c} jaccardAll top ${topK}`,
        );
        graph.destroy();
      }
    }));

  it('rank 2-hop neighbours by score, ties by id, and check their input', () =>
    gpuTest(async (device) => {
      // Star: every leaf's 2-hop neighbours are the other leaves, all with Jaccard 1.
      const csr = raw(star(6));
      const graph = uploadGraph(device, csr);
      const got = await jaccardAll(graph, [3, 0], { topK: 2 });
      expect(got.first).toEqual(Uint32Array.of(3, 3));
      expect(got.second).toEqual(Uint32Array.of(1, 2));
      expect(got.score).toEqual(Float32Array.of(1, 1));
      await expect(jaccard(graph, Uint32Array.of(0, 1, 2))).rejects.toThrow(/even length/);
      await expect(jaccard(graph, { src: [0], dst: [7] })).rejects.toThrow(/pairs.dst/);
      await expect(jaccard(graph, { src: [0, 1], dst: [1] })).rejects.toThrow(/pairs.dst/);
      await expect(jaccardAll(graph, [0], { topK: 0 })).rejects.toThrow(/topK/);
      await expect(jaccardAll(graph, [-1])).rejects.toThrow(/vertices/);
      expect((await jaccardAll(graph, [])).first.length).toBe(0);
      graph.destroy();
    }));
});
