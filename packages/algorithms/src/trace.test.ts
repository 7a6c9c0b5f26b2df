import type { WeftDevice } from '@weft/gpu';
import { type HostCsr, hostCscFromCsr, uploadGraph } from '@weft/graph';
import type { IterationTrace } from '@weft/operators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { connectedComponents } from './components.ts';
import { pageRank } from './pagerank.ts';
import { sssp } from './sssp/sssp.ts';
import { testGraphs, testSources } from './test-graphs.ts';
import { verifyBfs, verifySssp } from './verify.ts';

const degree = (offsets: ArrayLike<number>, v: number) => offsets[v + 1]! - offsets[v]!;

function expectTimes(device: WeftDevice, trace: IterationTrace, iterations: number, what: string) {
  expect(trace.frontier.length, `${what}: frontier entries`).toBe(iterations);
  expect(trace.edges.length, `${what}: edge entries`).toBe(iterations);
  if (device.hasTimestamps) {
    expect(trace.timesMs?.length, `${what}: times`).toBe(iterations);
    for (const t of trace.timesMs!) expect(t).toBeGreaterThanOrEqual(0);
  } else expect(trace.timesMs).toBeUndefined();
}

/** Per BFS level: the vertices at that depth (the frontier) and the push/pull edge counts expected. */
function bfsLevels(csr: HostCsr, depths: Int32Array, levels: number) {
  const inOffsets = csr.directed ? hostCscFromCsr(csr).inOffsets : csr.offsets;
  const frontier = new Array<number>(levels).fill(0);
  const push = new Array<number>(levels).fill(0);
  const pull = new Array<number>(levels).fill(0);
  for (let v = 0; v < csr.vertexCount; v++) {
    const d = depths[v]!;
    if (d >= 0) {
      frontier[d]!++;
      push[d]! += degree(csr.offsets, v);
    }
    // Unvisited when level i began: unreached, or reached at a depth after i.
    for (let i = 0; i < levels; i++) if (d < 0 || d > i) pull[i]! += degree(inOffsets, v);
  }
  return { frontier, push, pull };
}

describe('per-iteration trace', () => {
  for (const direction of ['push', 'auto'] as const) {
    it(`BFS (${direction}): a level's frontier is the vertices at its depth, edges their degree sum`, () =>
      gpuTest(async (device) => {
        let pulledLevels = 0;
        for (const { name, csr } of testGraphs(false, 4)) {
          const graph = uploadGraph(device, csr, { csc: csr.directed && direction === 'auto' });
          for (const source of testSources(csr).slice(0, 1)) {
            const what = `${name}, source ${source}`;
            const result = await bfs(graph, source, { direction, trace: true });
            expect(verifyBfs(csr, source, result.depths), what).toBeNull();
            const trace = result.trace!;
            expectTimes(device, trace, result.iterations, what);
            const reached = result.depths.filter((d) => d >= 0).length;
            expect(
              trace.frontier.reduce((a, b) => a + b, 0),
              `${what}: frontier sum`,
            ).toBe(reached);
            const levels = bfsLevels(csr, result.depths, result.iterations);
            expect(trace.frontier, what).toEqual(levels.frontier);
            if (direction === 'push') expect(trace.edges, what).toEqual(levels.push);
            else {
              // Each level is pushed or pulled, chosen on the GPU: its count is the one or the other bound.
              trace.edges.forEach((e, i) => {
                expect([levels.push[i], levels.pull[i]], `${what}, level ${i}`).toContain(e);
                if (e !== levels.push[i]) pulledLevels++;
              });
            }
          }
          graph.destroy();
        }
        // Kronecker's middle levels are pulled: the pull bound must show up there.
        if (direction === 'auto') expect(pulledLevels).toBeGreaterThan(0);
      }));
  }

  it('SSSP (plain and near-far), CC (both algorithms) and PageRank: lengths match iterations; first iterations known', () =>
    gpuTest(async (device) => {
      // Without the 700-vertex path: a traced run submits per iteration, and BFS covers high diameter.
      for (const { name, csr } of testGraphs('u32', 3).filter((g) => !g.name.startsWith('path'))) {
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const n = csr.vertexCount;
        for (const delta of [undefined, 64]) {
          const what = `${name}, sssp delta ${delta}`;
          const result = await sssp(graph, 0, {
            trace: true,
            ...(delta === undefined ? {} : { delta }),
          });
          expect(verifySssp(csr, 0, result.distances), what).toBeNull();
          const trace = result.trace!;
          expectTimes(device, trace, result.iterations, what);
          expect(trace.frontier[0], what).toBe(1);
          // The source is below the first threshold, so near-far relaxes it in iteration 0 too.
          expect(trace.edges[0], what).toBe(degree(csr.offsets, 0));
          expect(trace.frontier.at(-1), `${what}: last frontier non-empty`).toBeGreaterThan(0);
        }
        const cc = await connectedComponents(graph, { trace: true, algorithm: 'label-propagation' });
        expectTimes(device, cc.trace!, cc.iterations, `${name}, cc`);
        expect(cc.trace!.frontier[0]).toBe(n);
        expect(cc.trace!.edges[0]).toBe(csr.directed ? 2 * csr.edgeCount : csr.edgeCount);
        // Union-find's one iteration: every vertex, every CSR arc.
        const uf = await connectedComponents(graph, { trace: true });
        expectTimes(device, uf.trace!, 1, `${name}, union-find`);
        expect(uf.trace!.frontier).toEqual([n]);
        expect(uf.trace!.edges).toEqual([csr.edgeCount]);
        if (n > 0) {
          const pr = await pageRank(graph, { trace: true, maxIterations: 7 });
          expectTimes(device, pr.trace!, pr.iterations, `${name}, pagerank`);
          expect(pr.trace!.frontier).toEqual(new Array(pr.iterations).fill(n));
          expect(pr.trace!.edges).toEqual(new Array(pr.iterations).fill(csr.edgeCount));
        }
        graph.destroy();
      }
    }));

  it('untraced runs carry no trace', () =>
    gpuTest(async (device) => {
      const csr = testGraphs(false, 0)[3]!.csr;
      const graph = uploadGraph(device, csr);
      expect((await bfs(graph, 0)).trace).toBeUndefined();
      expect((await sssp(graph, 0)).trace).toBeUndefined();
      expect((await connectedComponents(graph)).trace).toBeUndefined();
      expect((await connectedComponents(graph, { algorithm: 'label-propagation' })).trace).toBeUndefined();
      expect((await pageRank(graph)).trace).toBeUndefined();
      graph.destroy();
    }));
});
