import { type HostCsr, type HostEdgeList, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker, road } from '@weft/graph/generators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { SsspBlocks, type SsspBlocksTuning } from '../sssp/blocks.ts';
import { sssp } from '../sssp/sssp.ts';
import { path, testGraphs, testSources, withWeights } from '../test-graphs.ts';
import { verifyBfs, verifySssp } from '../verify.ts';
import { bfs } from './bfs.ts';
import { bfsReference } from './reference.ts';

/** Small blocks and workgroups, so test graphs of a few thousand vertices span many blocks. */
const SMALL: SsspBlocksTuning = { blockSize: 64, workgroupSize: 32 };

/** Levels a BFS from `source` expands: its eccentricity plus one. */
function levels(csr: HostCsr, source: number): number {
  return Math.max(...bfsReference(csr, source).depths) + 1;
}

/** Random u32 weights far from 1: a BFS that read them would get distances, not depths. */
const hops = (edges: HostEdgeList, seed: number) => withWeights(edges, seed, 2, 201);

describe('bfs blocks', () => {
  it('gives the depths of the reference on the test corpus, whatever the weights', () =>
    gpuTest(async (device) => {
      for (const weights of ['u32', 'f32', false] as const) {
        for (const { name, csr } of testGraphs(weights, 10)) {
          const graph = uploadGraph(device, csr);
          const blocks = await SsspBlocks.prepare(graph, { ...SMALL, unitWeights: true });
          expect(blocks.unitWeights).toBe(true);
          for (const source of testSources(csr).slice(0, 3)) {
            const got = await bfs(graph, source, { strategy: 'blocks', blocks });
            const label = `${name}, ${weights || 'no'} weights, source ${source}`;
            expect(verifyBfs(csr, source, got.depths), label).toBeNull();
            expect(got.iterations, label).toBe(levels(csr, source));
            expect(got.pullIterations).toBe(0);
          }
          blocks.destroy();
          graph.destroy();
        }
      }
    }));

  it('gives the depths on road graphs, grids and long paths across many blocks', () =>
    gpuTest(async (device) => {
      const cases: [string, HostCsr][] = [
        ['road 60 x 50', hops(road({ width: 60, height: 50, seed: 21 }), 1)],
        ['grid 50 x 40', hops(grid({ width: 50, height: 40 }), 2)],
        ['path 3000', hops(path(3000, false), 3)],
        ['directed path 1000', hops(path(1000, true), 4)],
        ['isolated vertices and a path', hops({ ...path(300, false), vertexCount: 400 }, 5)],
      ];
      for (const [name, csr] of cases) {
        const graph = uploadGraph(device, csr);
        const n = csr.vertexCount;
        for (const source of [0, n - 1, Math.floor(n / 3)]) {
          // Blocks prepared for the call from tuning alone, and freed after it.
          const got = await bfs(graph, source, { strategy: 'blocks', blocks: SMALL });
          expect(verifyBfs(csr, source, got.depths), `${name}, source ${source}`).toBeNull();
          expect(got.iterations, `${name}, source ${source}`).toBe(levels(csr, source));
        }
        expect(graph.hasDerived('bfs blocks')).toBe(false);
        graph.destroy();
      }
    }));

  it("'auto' runs the frontier path once, then hop-count blocks kept with the graph", () =>
    gpuTest(async (device) => {
      const csr = hops(road({ width: 40, height: 30, seed: 5 }), 6);
      const graph = uploadGraph(device, csr);
      for (const [call, source] of [0, 17, 1199].entries()) {
        const got = await bfs(graph, source);
        expect(verifyBfs(csr, source, got.depths), `call ${call}, source ${source}`).toBeNull();
        expect(got.iterations).toBe(levels(csr, source));
        expect(graph.hasDerived('bfs blocks'), `blocks kept after call ${call}`).toBe(call > 0);
      }
      // SSSP's blocks carry the weights: a weighted graph keeps both, apart.
      expect(graph.hasDerived('sssp blocks')).toBe(false);
      await sssp(graph, 0);
      const weightedRun = await sssp(graph, 5);
      expect(verifySssp(csr, 5, weightedRun.distances)).toBeNull();
      expect(graph.hasDerived('sssp blocks')).toBe(true);
      // Parents are the frontier path's: asked for, 'auto' runs it even with blocks kept.
      const withParents = await bfs(graph, 3, { parents: true });
      expect(withParents.parents).toBeDefined();
      expect(verifyBfs(csr, 3, withParents.depths, withParents.parents)).toBeNull();
      graph.destroy();

      // Without weights BFS and SSSP share one set of blocks.
      const { weights: _, ...plain } = csr;
      const unweighted = uploadGraph(device, plain);
      await sssp(unweighted, 0);
      await sssp(unweighted, 1);
      expect(unweighted.hasDerived('sssp blocks')).toBe(true);
      const shared = await bfs(unweighted, 2);
      expect(verifyBfs(plain, 2, shared.depths)).toBeNull();
      expect(unweighted.hasDerived('bfs blocks')).toBe(false);
      unweighted.destroy();

      // A frontier option set, or a graph of 8 or more out-edges a vertex, never prepares blocks.
      const grid8 = uploadGraph(device, hops(grid({ width: 8, height: 8, seed: 1 }), 2));
      await bfs(grid8, 0, { smallFrontier: 'off' });
      await bfs(grid8, 0, { direction: 'auto' });
      await bfs(grid8, 0, { claim: 'depth' });
      expect(grid8.hasDerived('bfs blocks')).toBe(false);
      grid8.destroy();
      const denseCsr = kronecker({ scale: 6, edgeFactor: 8, seed: 3 });
      const dense = uploadGraph(device, hostCsrFromEdgeList(denseCsr).csr);
      for (const source of [0, 1, 2]) await bfs(dense, source);
      expect(dense.hasDerived('bfs blocks')).toBe(false);
      dense.destroy();
    }));

  it('refuses options blocks do not have, and blocks of the other kind', () =>
    gpuTest(async (device) => {
      const csr = hops(road({ width: 10, height: 10, seed: 8 }), 9);
      const graph = uploadGraph(device, csr);
      const blocks = { strategy: 'blocks' as const, blocks: SMALL };
      for (const option of [
        { parents: true },
        { trace: true },
        { idempotent: true },
        { direction: 'auto' as const },
        { claim: 'bitmap' as const },
        { smallFrontier: 'on' as const },
      ]) {
        await expect(bfs(graph, 0, { ...blocks, ...option })).rejects.toThrow(
          `strategy 'blocks' has no '${Object.keys(option)[0]}'`,
        );
      }
      // The defaults spelled out are no option at all.
      const plainDefaults = await bfs(graph, 0, {
        ...blocks,
        direction: 'push',
        claim: 'auto',
        smallFrontier: 'auto',
        parents: false,
      });
      expect(verifyBfs(csr, 0, plainDefaults.depths)).toBeNull();
      await expect(bfs(graph, 0, { strategy: 'quick' as 'auto' })).rejects.toThrow(/unknown strategy/);
      const distances = await SsspBlocks.prepare(graph, SMALL);
      await expect(bfs(graph, 0, { strategy: 'blocks', blocks: distances })).rejects.toThrow(
        /carry the graph's weights/,
      );
      const hopBlocks = await SsspBlocks.prepare(graph, { ...SMALL, unitWeights: true });
      await expect(sssp(graph, 0, { strategy: 'blocks', blocks: hopBlocks })).rejects.toThrow(/count hops/);
      await expect(bfs(graph, 100, { strategy: 'blocks', blocks: hopBlocks })).rejects.toThrow(
        /not a vertex/,
      );
      // A tuning of the other kind is refused as its blocks would be: SSSP never counts hops on weights.
      const hopTuning = { strategy: 'blocks' as const, blocks: { ...SMALL, unitWeights: true } };
      await expect(sssp(graph, 0, hopTuning)).rejects.toThrow(/count hops/);
      const weightTuning = { strategy: 'blocks' as const, blocks: { ...SMALL, unitWeights: false } };
      await expect(bfs(graph, 0, weightTuning)).rejects.toThrow(/carry the graph's weights/);
      distances.destroy();
      hopBlocks.destroy();
      graph.destroy();
    }));
});
