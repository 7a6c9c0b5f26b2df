import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  eigenvectorCentrality,
  eigenvectorCentralityProblem,
  hits,
  hitsProblem,
  katzCentrality,
  katzCentralityProblem,
  type PowerIterationProblem,
  personalizedPageRank,
  personalizedPageRankProblem,
} from './centrality.ts';
import { disjointUnion, randomFamilies } from './test-graphs.ts';

/**
 * Records a whole run past convergence in one submit (the steps after convergence must leave the values as
 * the run function returned them), then a reset alone, whose result is the starting state.
 */
async function replay<R>(
  problem: PowerIterationProblem<R>,
  iterations: number,
): Promise<{ run: R; start: R; residuals: number[] }> {
  try {
    const { array, index } = problem.active();
    const rec = problem.graph.device.recorder({ label: 'replay' });
    await problem.reset(rec);
    for (let i = 0; i < iterations + 2; i++) await problem.step(rec, i);
    await rec.submit();
    expect((await array.download(index, 1))[0], 'active after convergence').toBe(0);
    const run = await problem.result();
    const residuals = await problem.residuals();
    const again = problem.graph.device.recorder({ label: 'reset' });
    await problem.reset(again);
    await again.submit();
    expect((await array.download(index, 1))[0], 'active after reset').toBe(1);
    return { run, start: await problem.result(), residuals };
  } finally {
    problem.destroy();
  }
}

/** Every value is `want` (to f32 rounding). */
function expectAll(values: Float32Array, want: number, what: string): void {
  for (const [v, x] of values.entries()) {
    if (!(Math.abs(x - want) <= 1e-6 * Math.abs(want)))
      expect.fail(`${what}: value ${v} is ${x}, want ${want}`);
  }
}

/** Half the inverse of the largest (weighted) in-degree: Katz converges. */
function katzAlpha(csr: HostCsr, weighted: boolean): number {
  const inWeight = new Float64Array(csr.vertexCount);
  for (let e = 0; e < csr.edgeCount; e++) inWeight[csr.targets[e]!]! += weighted ? csr.weights![e]! : 1;
  return 0.5 / Math.max(1, ...inWeight);
}

describe('power-iteration problems', () => {
  it('replayed in one recording give the run functions’ values on random graphs, weighted or not', () =>
    gpuTest(async (device) => {
      for (const directed of [true, false]) {
        const union = disjointUnion(randomFamilies(12, directed ? 7 : 8, directed), 'u32', 5);
        const csr = hostCsrFromEdgeList(union.edges).csr;
        const graph = uploadGraph(device, csr, { csc: directed });
        for (const weighted of [false, true]) {
          const name = `${directed ? 'directed' : 'undirected'}${weighted ? ' weighted' : ''}`;
          const weight = weighted ? ('weights' as const) : null;
          const sources = { sources: [0, union.firsts[5]!] };
          const n = csr.vertexCount;
          const ppr = await personalizedPageRank(graph, sources, { weight });
          const pprGot = await replay(
            await personalizedPageRankProblem(graph, sources, { weight }),
            ppr.iterations,
          );
          expect(pprGot.run.ranks, `${name} ppr`).toEqual(ppr.ranks);
          expectAll(pprGot.start.ranks, 1 / n, `${name} ppr start`);
          const katzOptions = { alpha: katzAlpha(csr, weighted), weight };
          const katz = await katzCentrality(graph, katzOptions);
          const katzGot = await replay(await katzCentralityProblem(graph, katzOptions), katz.iterations);
          expect(katzGot.run.centrality, `${name} katz`).toEqual(katz.centrality);
          expect(katzGot.start.centrality, `${name} katz start`).toEqual(new Float32Array(n));
          const eigOptions = { maxIterations: 1000, weight };
          const eig = await eigenvectorCentrality(graph, eigOptions);
          const eigProblem = await eigenvectorCentralityProblem(graph, eigOptions);
          expect(eigProblem.bound).toBeCloseTo(n * 1e-6, 12);
          const eigGot = await replay(eigProblem, eig.iterations);
          expect(eigGot.run.centrality, `${name} eigenvector`).toEqual(eig.centrality);
          expectAll(eigGot.start.centrality, 1 / n, `${name} eigenvector start`);
          const hitsOptions = { maxIterations: 300, weight };
          const h = await hits(graph, hitsOptions);
          const hProblem = await hitsProblem(graph, hitsOptions);
          const bound = hProblem.bound;
          const hGot = await replay(hProblem, h.iterations);
          expect(hGot.run.hubs, `${name} hubs`).toEqual(h.hubs);
          expect(hGot.run.authorities, `${name} authorities`).toEqual(h.authorities);
          expectAll(hGot.start.hubs, 1 / n, `${name} hubs start`);
          // HITS tests its second phase (the hubs): below the bound once converged.
          expect(hGot.residuals[1]!, `${name} hits residual`).toBeLessThan(bound);
        }
        graph.destroy();
      }
    }));
});
