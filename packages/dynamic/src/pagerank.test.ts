import { pageRankReference, verifyPageRank } from '@weft/algorithms';
import { InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { DynamicPageRank, dynamicPageRank } from './pagerank.ts';
import { HostDynamicGraph } from './reference.ts';
import { modelCsr } from './test-support.ts';

function snapshot(model: HostDynamicGraph): HostCsr {
  const { offsets, targets } = modelCsr(model, undefined);
  return {
    vertexCount: model.vertexCount,
    edgeCount: targets.length,
    offsets,
    targets,
    directed: model.directed,
  };
}

function randomPairs(count: number, among: number[], rand: () => number) {
  const one = () => among[Math.floor(rand() * among.length)]!;
  return { src: Uint32Array.from({ length: count }, one), dst: Uint32Array.from({ length: count }, one) };
}

function withEdges(model: HostDynamicGraph): number[] {
  return model.adjacency.flatMap((adj, v) => (adj.size > 0 ? [v] : []));
}

describe('DynamicPageRank', () => {
  for (const directed of [false, true]) {
    it(`warm starts after every batch: the snapshot's ranks in no more iterations than a cold start (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        const rand = mulberry32(directed ? 3 : 4);
        const edges = kronecker({ scale: 9, edgeFactor: 6, seed: 2 });
        const g = await DynamicGraph.fromEdgeList(device, { ...edges, directed });
        const model = new HostDynamicGraph(edges.vertexCount, directed);
        model.insertEdges(edges.src, edges.dst);
        const p = await DynamicPageRank.create(g);
        const csr = snapshot(model);
        expect(verifyPageRank(csr, await p.result()), 'cold').toBeNull();
        expect(Math.abs(p.lastRun.iterations - pageRankReference(csr).iterations)).toBeLessThanOrEqual(1);
        const warm: number[] = [];
        const cold: number[] = [];
        for (let batch = 0; batch < 8; batch++) {
          if (batch === 5) {
            await g.deleteVertices([1, 2]);
            model.deleteVertices([1, 2]);
          } else if (batch === 6) {
            // New ids beyond the dictionary's capacity, joined to the graph.
            const ids = Array.from({ length: 40 }, (_, k) => model.vertexCount + k);
            await g.insertVertices(ids);
            model.insertVertices(ids);
            const src = Uint32Array.from(ids.slice(0, 20));
            const hubs = withEdges(model);
            const dst = Uint32Array.from(src, (v) => hubs[(v * 7) % hubs.length]!);
            await g.insertEdges(src, dst);
            model.insertEdges(src, dst);
          } else if (batch % 2 === 0) {
            // Between vertices that have edges: an edge that makes a new small component (two isolated
            // vertices joined) leaves an error that fades only by alpha an iteration, slower than a cold start.
            const { src, dst } = randomPairs(12, withEdges(model), rand);
            await g.insertEdges(src, dst);
            model.insertEdges(src, dst);
          } else {
            const live = model.adjacency.flatMap((adj, u) => [...adj.keys()].map((v) => [u, v] as const));
            const del = Array.from({ length: 12 }, () => live[Math.floor(rand() * live.length)]!);
            const src = Uint32Array.from(del, (e) => e[0]);
            const dst = Uint32Array.from(del, (e) => e[1]);
            await g.deleteEdges(src, dst);
            model.deleteEdges(src, dst);
          }
          const run = await p.update();
          expect(run.converged).toBe(true);
          expect(verifyPageRank(snapshot(model), await p.result()), `batch ${batch}`).toBeNull();
          const scratch = await dynamicPageRank(g);
          expect(verifyPageRank(snapshot(model), scratch.ranks), `batch ${batch} cold`).toBeNull();
          warm.push(run.iterations);
          cold.push(scratch.iterations);
          expect(run.iterations, `batch ${batch}: warm ${warm} cold ${cold}`).toBeLessThanOrEqual(
            scratch.iterations,
          );
        }
        // Warm starts after small batches save iterations overall.
        expect(warm.reduce((a, b) => a + b)).toBeLessThan(cold.reduce((a, b) => a + b));
        // Nothing changed: the first iteration already meets the tolerance.
        expect((await p.update()).iterations).toBe(1);
        // A large change still converges to the snapshot's ranks.
        const live = model.adjacency.flatMap((adj, u) => [...adj.keys()].map((v) => [u, v] as const));
        const half = live.filter(() => rand() < 0.5);
        const src = Uint32Array.from(half, (e) => e[0]);
        const dst = Uint32Array.from(half, (e) => e[1]);
        await g.deleteEdges(src, dst);
        model.deleteEdges(src, dst);
        await p.update();
        expect(verifyPageRank(snapshot(model), await p.result()), 'half deleted').toBeNull();
        await p.recompute();
        expect(verifyPageRank(snapshot(model), await p.result()), 'recomputed').toBeNull();
        p.destroy();
        g.destroy();
      });
    });
  }

  it('handles an empty graph, edgeless and self-loop-only graphs, options and bad input', async () => {
    await gpuTest(async (device) => {
      const empty = await DynamicGraph.create(device, { vertexCount: 0, directed: false });
      expect(await dynamicPageRank(empty)).toMatchObject({ ranks: new Float32Array(0), iterations: 0 });
      empty.destroy();
      // No edges (self-loops are dropped): every vertex dangling, ranks uniform after one iteration.
      const g = await DynamicGraph.create(device, { vertexCount: 5, directed: true });
      await g.insertEdges(Uint32Array.of(1, 2), Uint32Array.of(1, 2));
      const flat = await dynamicPageRank(g);
      expect(Array.from(flat.ranks)).toEqual(new Array(5).fill(Math.fround(0.2)));
      expect(flat.iterations).toBe(1);
      // A star pointing at 0, damped differently.
      await g.insertEdges(Uint32Array.of(1, 2, 3, 4), Uint32Array.of(0, 0, 0, 0));
      const model = new HostDynamicGraph(5, true);
      model.insertEdges([1, 2, 3, 4], [0, 0, 0, 0]);
      const star = await dynamicPageRank(g, { alpha: 0.5, tolerance: 1e-7 });
      expect(verifyPageRank(snapshot(model), star.ranks, { alpha: 0.5 })).toBeNull();
      expect(await dynamicPageRank(g, { maxIterations: 2, tolerance: 0 })).toMatchObject({
        iterations: 2,
        converged: false,
      });
      await expect(DynamicPageRank.create(g, { alpha: 2 })).rejects.toThrow(InputError);
      await expect(DynamicPageRank.create(g, { maxIterations: Number.POSITIVE_INFINITY })).rejects.toThrow(
        InputError,
      );
      const p = await DynamicPageRank.create(g);
      p.destroy();
      await expect(p.update()).rejects.toThrow(InputError);
      g.destroy();
    });
  });
});
