import { uploadGraph } from '@weft/graph';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { pageRank } from './pagerank.ts';
import { pageRankReference } from './pagerank-reference.ts';
import { testGraphs } from './test-graphs.ts';
import { verifyPageRank } from './verify.ts';

describe('pageRank', () => {
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
