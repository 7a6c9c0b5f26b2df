import { uploadGraph } from '@weft/graph';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { testGraphs, testSources } from '../test-graphs.ts';
import { verifyBfs } from '../verify.ts';
import { bfs } from './bfs.ts';
import { bfsReference } from './reference.ts';

describe('bfs', () => {
  it('matches the reference on the corpus and random graphs (depths and parents)', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 60)) {
        const graph = uploadGraph(device, csr);
        for (const source of testSources(csr)) {
          // Alternate the load balancing and the claims: all must give the same tree depths.
          const loadBalance = source % 2 === 0 ? 'merge-path' : 'thread-mapped';
          const claim = (['auto', 'bitmap', 'depth'] as const)[(source >> 1) % 3]!;
          const result = await bfs(graph, source, { parents: true, loadBalance, claim });
          const problem = verifyBfs(csr, source, result.depths, result.parents);
          expect(problem, `${name}, source ${source}, ${loadBalance}, ${claim} claims`).toBeNull();
          const levels = Math.max(...bfsReference(csr, source).depths) + 1;
          expect(result.iterations, `${name} levels`).toBe(levels);
        }
        graph.destroy();
      }
    }));

  it('refuses bitmap claims outside the atomic push BFS, naming the option', () =>
    gpuTest(async (device) => {
      const { csr } = testGraphs(false, 1)[0]!;
      const graph = uploadGraph(device, csr);
      await expect(bfs(graph, 0, { direction: 'auto', claim: 'bitmap' })).rejects.toThrow(
        /bitmap claims.*direction 'auto'/,
      );
      await expect(bfs(graph, 0, { idempotent: true, claim: 'bitmap' })).rejects.toThrow(
        /bitmap claims.*idempotent/,
      );
      graph.destroy();
    }));

  for (const direction of ['auto', 'pull'] as const) {
    it(`direction '${direction}' gives the same depths and valid parents`, () =>
      gpuTest(async (device) => {
        let pulled = 0;
        for (const { name, csr } of testGraphs(false, 6)) {
          const graph = uploadGraph(device, csr, { csc: csr.directed });
          for (const source of testSources(csr).slice(0, 2)) {
            const result = await bfs(graph, source, { parents: true, direction });
            expect(
              verifyBfs(csr, source, result.depths, result.parents),
              `${name}, source ${source}`,
            ).toBeNull();
            if (direction === 'pull' && csr.edgeCount > 0)
              expect(result.pullIterations).toBe(result.iterations);
            pulled += result.pullIterations;
          }
          graph.destroy();
        }
        // The switch must actually happen on these graphs (Kronecker's middle levels are huge).
        expect(pulled).toBeGreaterThan(0);
      }));
  }
});
