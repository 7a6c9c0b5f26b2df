import { readFile } from 'node:fs/promises';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { bytesSource, parseMatrixMarket } from '@weft/graph/io';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { personalizedPageRankReference } from './centrality-reference.ts';
import { pageRank } from './pagerank.ts';
import { pageRankReference } from './pagerank-reference.ts';
import { testGraphs } from './test-graphs.ts';
import { verifyPageRank } from './verify.ts';

// networkx 3.6.1 `pagerank(G, tol=1e-12, max_iter=1000)` (weighted by default) on test-data/lesmis.mtx and on
// WEIGHTED_ARCS with 9 vertices (vertex 8 isolated, vertex 7 dangling, vertex 3's only arc of weight 0).
const NX_LESMIS = [
  0.0030237565, 0.0392315793, 0.0174035362, 0.019532951, 0.0030237565, 0.0030237565, 0.0030237565,
  0.0030237565, 0.0040994611, 0.0030237565, 0.0995581083, 0.0024836494, 0.0034661593, 0.0024836494,
  0.0024836494, 0.0024836494, 0.0131601759, 0.0140684684, 0.0131601759, 0.0136325559, 0.0141332751,
  0.0136581325, 0.0131856255, 0.0271635103, 0.020039215, 0.0356823011, 0.036909574, 0.0268227836,
  0.0127545562, 0.0089151266, 0.0039866341, 0.0072815397, 0.0024836494, 0.0035043397, 0.0113317154,
  0.0113317154, 0.0093501895, 0.0093501895, 0.0093501895, 0.0044992505, 0.0024452643, 0.0115437412,
  0.0044763182, 0.0045013068, 0.0048068007, 0.0034968195, 0.0058789241, 0.0036137471, 0.028302634,
  0.0183053527, 0.0029855685, 0.0166804536, 0.0038392911, 0.0025645035, 0.0046011483, 0.051668108,
  0.0029068756, 0.0097142062, 0.0366167988, 0.0266311598, 0.0086087967, 0.0154942356, 0.0329989843,
  0.0164520761, 0.0261949454, 0.0176706765, 0.0077531441, 0.0034962536, 0.0146870368, 0.0156999513,
  0.0119722282, 0.0079686873, 0.0038914816, 0.0057290593, 0.0057290593, 0.0084398325, 0.0045107087,
];
const WEIGHTED_ARCS: [number, number, number][] = [
  [0, 1, 2],
  [0, 2, 1],
  [1, 2, 0.5],
  [2, 0, 3],
  [2, 3, 1],
  [3, 4, 0],
  [4, 1, 7],
  [5, 6, 1.5],
  [6, 5, 1.5],
  [6, 7, 2.5],
  [1, 0, 1],
];
const NX_WEIGHTED_ARCS = [
  0.259028299, 0.2096043998, 0.1667369387, 0.0693892735, 0.0339576741, 0.0614236539, 0.0861677799,
  0.0797343071, 0.0339576741,
];

function expectClose(got: Float32Array, want: number[], what: string): void {
  expect(got.length, what).toBe(want.length);
  for (let v = 0; v < want.length; v++) {
    expect(Math.abs(got[v]! - want[v]!) / want[v]!, `${what} vertex ${v}`).toBeLessThan(1e-4);
  }
}

function weightedCsr(arcs: [number, number, number][], n: number, weights: 'f32' | 'i32'): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(arcs, (a) => a[0]),
    dst: Uint32Array.from(arcs, (a) => a[1]),
    weights: weights === 'f32' ? Float32Array.from(arcs, (a) => a[2]) : Int32Array.from(arcs, (a) => a[2]),
    directed: true,
  }).csr;
}

describe('pageRank', () => {
  it('weights the shares by edge weights by default, as networkx, pulled and pushed', () =>
    gpuTest(async (device) => {
      const bytes = await readFile(new URL('../test-data/lesmis.mtx', import.meta.url));
      const edges = await parseMatrixMarket(bytesSource(new Uint8Array(bytes)), { name: 'lesmis.mtx' });
      const lesmis = hostCsrFromEdgeList(edges).csr;
      const arcs = weightedCsr(WEIGHTED_ARCS, 9, 'f32');
      for (const direction of ['pull', 'push'] as const) {
        for (const [csr, want, what] of [
          [lesmis, NX_LESMIS, 'lesmis'],
          [arcs, NX_WEIGHTED_ARCS, 'weighted arcs'],
        ] as const) {
          const graph = uploadGraph(device, csr, { csc: csr.directed });
          const r = await pageRank(graph, { direction, tolerance: 1e-7 });
          expectClose(r.ranks, [...want], `${what} ${direction}`);
          expect(verifyPageRank(csr, r.ranks), what).toBeNull();
          // weight: null is the unweighted PageRank, which differs on these graphs.
          const plain = await pageRank(graph, { direction, weight: null });
          expect(verifyPageRank(csr, plain.ranks, { weight: null }), what).toBeNull();
          expect(verifyPageRank(csr, plain.ranks), what).not.toBeNull();
          graph.destroy();
        }
      }
    }));

  it('matches the weighted reference on random graphs with u32, i32 and f32 weights, zeros included', () =>
    gpuTest(async (device) => {
      for (const type of ['u32', 'f32'] as const) {
        for (const { name, csr } of testGraphs(type, 12)) {
          const w = csr.weights!;
          // Some zero weights (on both arcs of an undirected edge): a vertex whose out-weights all vanish is
          // dangling.
          for (let u = 0; u < csr.vertexCount; u++) {
            for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
              if ((u + csr.targets[e]!) % 5 === 0) w[e] = 0;
            }
          }
          const graph = uploadGraph(device, csr, { csc: csr.directed });
          const r = await pageRank(graph);
          expect(verifyPageRank(csr, r.ranks), `${type} ${name}`).toBeNull();
          graph.destroy();
        }
      }
      // Out-weights near f32's largest would overflow their sum: shares are ratios, computed without overflow.
      const huge = weightedCsr(
        [
          [0, 1, 3e38],
          [0, 2, 3e38],
          [1, 0, 1e-30],
          [2, 0, 2],
          [2, 1, 3e38],
        ],
        3,
        'f32',
      );
      const hugeGraph = uploadGraph(device, huge, { csc: true });
      expect(verifyPageRank(huge, (await pageRank(hugeGraph)).ranks), 'huge weights').toBeNull();
      hugeGraph.destroy();
      const doubled = WEIGHTED_ARCS.map(([u, v, x]): [number, number, number] => [u, v, 2 * x]);
      const ints = uploadGraph(device, weightedCsr(doubled, 9, 'i32'), { csc: true });
      // Doubling every weight leaves the shares as they were: networkx's ranks.
      expectClose((await pageRank(ints, { tolerance: 1e-7 })).ranks, NX_WEIGHTED_ARCS, 'i32 weights');
      ints.destroy();
    }));

  it('refuses negative weights, and weights asked for on an unweighted graph', () =>
    gpuTest(async (device) => {
      for (const type of ['f32', 'i32'] as const) {
        const arcs = WEIGHTED_ARCS.map(([u, v, x]): [number, number, number] => [
          u,
          v,
          u === 2 && v === 3 ? -1 : x,
        ]);
        const graph = uploadGraph(device, weightedCsr(arcs, 9, type), { csc: true });
        await expect(pageRank(graph), type).rejects.toThrow(
          /weight -1 of edge 2 -> 3 \(edge \d+\) is negative: PageRank needs finite non-negative weights/,
        );
        // Ignoring the weights, the graph is fine.
        expect((await pageRank(graph, { weight: null })).converged).toBe(true);
        graph.destroy();
      }
      // NaN and infinite weights never reach a device graph: the builders refuse them.
      expect(() => weightedCsr([[0, 1, Number.NaN]], 2, 'f32')).toThrow(/is not a finite number/);
      const plain = uploadGraph(device, testGraphs(false, 0)[3]!.csr);
      await expect(pageRank(plain, { weight: 'weights' })).rejects.toThrow(/the graph has no weights/);
      await expect(pageRank(plain, { weight: 'w' as 'weights' })).rejects.toThrow(
        /weight must be 'weights' or null/,
      );
      plain.destroy();
    }));

  it('default options reach the f64 fixed point within 1e-4 relative on the corpus and random graphs', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 40)) {
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const result = await pageRank(graph);
        expect(result.converged, name).toBe(true);
        expect(verifyPageRank(csr, result.ranks), name).toBeNull();
        graph.destroy();
      }
    }));

  it("gathers in the graph's gather order: the same ranks, weighted and not, directed and undirected", () =>
    gpuTest(async (device) => {
      for (const weighted of [false, 'f32'] as const) {
        for (const { name, csr } of testGraphs(weighted, 16)) {
          const graph = uploadGraph(device, csr, { csc: csr.directed });
          const what = `${name} ${weighted || 'unweighted'}`;
          const plain = await pageRank(graph, { gatherOrder: false, tolerance: 1e-7 });
          const ordered = await pageRank(graph, { gatherOrder: true, tolerance: 1e-7 });
          expect(verifyPageRank(csr, ordered.ranks), what).toBeNull();
          expect(ordered.iterations, what).toBe(plain.iterations);
          for (let v = 0; v < csr.vertexCount; v++) {
            const [a, b] = [ordered.ranks[v]!, plain.ranks[v]!];
            expect(Math.abs(a - b) / b, `${what} vertex ${v}`).toBeLessThan(1e-5);
          }
          // Kept with the graph: 'auto' uses it from now on, whatever the graph's size.
          const auto = await pageRank(graph, { tolerance: 1e-7 });
          expect(auto.ranks, what).toEqual(ordered.ranks);
          graph.destroy();
        }
      }
      const graph = uploadGraph(device, testGraphs(false, 0)[3]!.csr);
      await expect(pageRank(graph, { gatherOrder: 'yes' as 'auto' })).rejects.toThrow(/gatherOrder must be/);
      graph.destroy();
    }));

  it('push (f32 atomic adds over the CSR, no CSC) reaches the same fixed point', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 20)) {
        const graph = uploadGraph(device, csr);
        const result = await pageRank(graph, { direction: 'push' });
        expect(result.converged, name).toBe(true);
        expect(verifyPageRank(csr, result.ranks), `${name} push`).toBeNull();
        graph.destroy();
      }
      const graph = uploadGraph(device, testGraphs(false, 0)[3]!.csr);
      await expect(pageRank(graph, { direction: 'sideways' as 'push' })).rejects.toThrow(/direction/);
      graph.destroy();
    }));

  it('stops where the reference stops; maxIterations reports no convergence', () =>
    gpuTest(async (device) => {
      const [, , , clusters] = testGraphs(false, 0);
      const csr = clusters!.csr;
      const graph = uploadGraph(device, csr);
      const want = pageRankReference(csr);
      const result = await pageRank(graph);
      expect(result.converged).toBe(true);
      expect(Math.abs(result.iterations - want.iterations)).toBeLessThanOrEqual(1);
      expect(verifyPageRank(csr, result.ranks, { relTolerance: 1e-4 })).toBeNull();
      const capped = await pageRank(graph, { maxIterations: 3 });
      expect(capped).toMatchObject({ iterations: 3, converged: false });
      const damped = await pageRank(graph, { alpha: 0.5, tolerance: 1e-7 });
      expect(verifyPageRank(csr, damped.ranks, { alpha: 0.5 })).toBeNull();
      graph.destroy();
    }));

  it("convergence 'l1' stops by networkx's rule (L1 change below n * tolerance) and reports the residual", () =>
    gpuTest(async (device) => {
      let capped = 0;
      for (const { name, csr } of testGraphs(false, 0).slice(0, 4)) {
        if (csr.vertexCount === 0) continue;
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        // Uniform personalization is plain PageRank; the reference stops by the same rule, in f64.
        const uniform = { weights: new Float64Array(csr.vertexCount).fill(1) };
        const want = personalizedPageRankReference(csr, uniform, { tolerance: 1e-6 });
        const got = await pageRank(graph, { convergence: 'l1', tolerance: 1e-6, weight: null });
        expect(got.converged, name).toBe(true);
        expect(Math.abs(got.iterations - want.iterations), name).toBeLessThanOrEqual(1);
        const bound = csr.vertexCount * 1e-6;
        for (let v = 0; v < csr.vertexCount; v++) {
          expect(Math.abs(got.ranks[v]! - want.ranks[v]!), `${name} vertex ${v}`).toBeLessThan(bound + 1e-6);
        }
        if (want.iterations > 2) {
          const short = await pageRank(graph, { convergence: 'l1', maxIterations: 2 });
          expect(short.converged, name).toBe(false);
          expect(short.residual, name).toBeGreaterThanOrEqual(bound);
          capped++;
        }
        graph.destroy();
      }
      expect(capped).toBeGreaterThan(0);
      const [first] = testGraphs(false, 0);
      const graph = uploadGraph(device, first!.csr, { csc: first!.csr.directed });
      await expect(pageRank(graph, { convergence: 'l2' as 'l1' })).rejects.toThrow(/convergence must be/);
      graph.destroy();
    }));

  it('refuses tolerance 0 without a finite maxIterations (it may never stop)', () =>
    gpuTest(async (device) => {
      const [, , , clusters] = testGraphs(false, 0);
      const graph = uploadGraph(device, clusters!.csr);
      await expect(
        pageRank(graph, { tolerance: 0, maxIterations: Number.POSITIVE_INFINITY }),
      ).rejects.toThrow(/maxIterations: tolerance 0 with maxIterations Infinity may never stop/);
      expect(await pageRank(graph, { tolerance: 0, maxIterations: 5 })).toMatchObject({ iterations: 5 });
      graph.destroy();
    }));
});
