import type { Recorder } from '@weft/gpu';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { enact } from '@weft/operators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { BfsProblem } from './bfs/bfs.ts';
import { ComponentsProblem } from './components.ts';
import { SsspProblem } from './sssp/sssp.ts';
import { testGraphs } from './test-graphs.ts';
import { verifyBfs, verifyComponents, verifySssp } from './verify.ts';

interface Stepper {
  step(rec: Recorder, iteration: number): Promise<void>;
}

/** Records `runs` whole runs back to back into one submit, as the bench does. */
async function replay(
  rec: Recorder,
  problem: Stepper,
  reset: () => Promise<void>,
  iterations: number,
  runs: number,
) {
  for (let r = 0; r < runs; r++) {
    await reset();
    for (let i = 0; i < iterations; i++) await problem.step(rec, i);
  }
}

describe('problems reused', () => {
  it('BFS and SSSP problems answer for new sources after earlier runs (no stale state)', () =>
    gpuTest(async (device) => {
      const { csr } = hostCsrFromEdgeList(kronecker({ scale: 10, edgeFactor: 8, seed: 3, weights: true }));
      const graph = uploadGraph(device, csr);
      const bfsProblem = new BfsProblem(graph, { parents: true, direction: 'auto' });
      const ssspProblem = new SsspProblem(graph);
      for (const source of [0, 17, 1023, 17]) {
        let rec = device.recorder();
        await bfsProblem.reset(rec, source);
        await rec.submit();
        await enact(device, bfsProblem);
        const { depths, parents } = await bfsProblem.result();
        expect(verifyBfs(csr, source, depths, parents), `bfs from ${source}`).toBeNull();
        rec = device.recorder();
        await ssspProblem.reset(rec, source);
        await rec.submit();
        await enact(device, ssspProblem);
        const { distances } = await ssspProblem.result();
        expect(verifySssp(csr, source, distances), `sssp from ${source}`).toBeNull();
      }
      // Three whole runs recorded into one submit end in the right state.
      const rec = device.recorder();
      await replay(rec, bfsProblem, () => bfsProblem.reset(rec, 5), 40, 3);
      await rec.submit();
      expect(verifyBfs(csr, 5, (await bfsProblem.result()).depths)).toBeNull();
      bfsProblem.destroy();
      ssspProblem.destroy();
      graph.destroy();
    }));

  for (const algorithm of ['union-find', 'label-propagation'] as const) {
    it(`a components problem (${algorithm}) replayed in one submit, then run again`, () =>
      gpuTest(async (device) => {
        const csr = testGraphs(false, 0).find((g) => g.name === 'disconnected clusters')!.csr;
        const graph = uploadGraph(device, csr);
        const problem = new ComponentsProblem(graph, { algorithm });
        let rec = device.recorder();
        await replay(rec, problem, () => problem.reset(rec), 60, 2);
        await rec.submit();
        let { labels, count } = await problem.result();
        expect(verifyComponents(csr, labels, count)).toBeNull();
        // A later run starts from reset (every vertex its own component), not from the last run's labels.
        rec = device.recorder();
        await problem.reset(rec);
        await rec.submit();
        expect((await problem.result()).count).toBe(csr.vertexCount);
        const { iterations } = await enact(device, problem);
        if (algorithm === 'union-find') expect(iterations).toBe(1);
        ({ labels, count } = await problem.result());
        expect(verifyComponents(csr, labels, count)).toBeNull();
        problem.destroy();
        graph.destroy();
      }));
  }
});
