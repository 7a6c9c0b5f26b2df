import { DeviceLimitError, requestDevice, type WeftDevice } from '@weft/gpu';
import { type HostCsr, type HostEdgeList, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker } from '@weft/graph/generators';
import { expectArrayEqual, mulberry32, recordShaders } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { bfsReference } from './bfs/reference.ts';
import { connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { labelPropagation } from './label-propagation.ts';
import { louvain } from './louvain.ts';
import { minimumSpanningForest } from './mst.ts';
import { pageRank } from './pagerank.ts';
import { jaccard } from './similarity.ts';
import { sssp } from './sssp/sssp.ts';
import { randomEdges } from './test-graphs.ts';
import { triangleCount } from './triangles.ts';
import { verifyPageRank, verifySssp } from './verify.ts';

// 32 edges a chunk: graphs of 33 to 160 arcs span 2 to 5 chunks, with boundaries inside vertices' edge
// lists. One chunk size keeps the distinct kernels (one per chunk count) few.
const SHIFT = 5;

let shared: Promise<WeftDevice> | undefined;
const device = () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({ label: 'chunked graphs' });
  return shared;
};
afterAll(async () => (await shared)?.destroy());

function star(leaves: number, extra: number): HostEdgeList {
  const src = Array.from({ length: leaves }, () => 0);
  const dst = Array.from({ length: leaves }, (_, i) => i + 1);
  // A few edges among the leaves, a duplicate and a self-loop, which the builder merges and drops.
  for (let i = 1; i <= extra; i++) {
    src.push(i);
    dst.push(i + 1);
  }
  src.push(0, 3);
  dst.push(1, 3);
  return { vertexCount: leaves + 1, src: Uint32Array.from(src), dst: Uint32Array.from(dst), directed: false };
}

function pathEdges(n: number): HostEdgeList {
  const src = Uint32Array.from({ length: n - 1 }, (_, i) => i);
  return { vertexCount: n, src, dst: src.map((v) => v + 1), directed: false };
}

/** Two stars, a path and isolated vertices on disjoint id ranges. */
function disconnected(): HostEdgeList {
  const a = star(30, 0);
  const b = pathEdges(25);
  const shift = (x: Uint32Array, by: number) => x.map((v) => v + by);
  return {
    vertexCount: 70,
    src: Uint32Array.from([...a.src, ...shift(b.src, 35)]),
    dst: Uint32Array.from([...a.dst, ...shift(b.dst, 35)]),
    directed: false,
  };
}

function corpus(): { name: string; csr: HostCsr }[] {
  const fixed: [string, HostEdgeList][] = [
    ['star 70 (its hub spans two boundaries)', star(70, 5)],
    ['path 25', pathEdges(25)],
    ['path 40', pathEdges(40)],
    ['grid 5 x 5', grid({ width: 5, height: 5 })],
    ['kronecker scale 5', kronecker({ scale: 5, edgeFactor: 3, seed: 2 })],
    ['disconnected', disconnected()],
    ['directed random with duplicates and loops', randomEdges(40, 130, 4, true)],
  ];
  return fixed.map(([name, e]) => ({ name, csr: hostCsrFromEdgeList(e).csr }));
}

/** Whether some vertex's edge list crosses a chunk boundary of 2^shift edges. */
function straddles(csr: HostCsr, shift: number): boolean {
  const size = 2 ** shift;
  for (let v = 0; v < csr.vertexCount; v++) {
    const [a, b] = [csr.offsets[v]!, csr.offsets[v + 1]!];
    if (Math.floor(a / size) !== Math.floor((b - 1) / size) && b > a) return true;
  }
  return false;
}

describe('algorithms on graphs stored in chunks', () => {
  const graphs = corpus();

  it('the corpus spans 2 to 5 chunks with edge lists across boundaries', () => {
    const chunks = graphs.map(({ csr }) => Math.ceil(csr.edgeCount / 2 ** SHIFT));
    expect(new Set(chunks)).toEqual(new Set([2, 3, 4, 5]));
    expect(Math.max(...chunks)).toBe(5);
    expect(graphs.filter(({ csr }) => straddles(csr, SHIFT)).length).toBeGreaterThanOrEqual(4);
    // The hub's own list crosses two boundaries.
    expect(graphs[0]!.csr.offsets[1]).toBeGreaterThan(2 * 2 ** SHIFT);
  });

  it('bfs (thread-mapped, merge path, bitmap claims, direction-optimizing, pull, idempotent) matches the reference', async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    for (const { name, csr } of graphs) {
      const middle = Math.floor(csr.vertexCount / 2);
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      expect(graph.chunkedTargets.chunks.length, name).toBe(Math.ceil(csr.edgeCount / 2 ** SHIFT));
      for (const [s, options] of [
        [0, { claim: 'depth', smallFrontier: 'off', loadBalance: 'thread-mapped' }],
        [middle, { claim: 'depth', smallFrontier: 'off', loadBalance: 'merge-path' }],
        [middle, {}],
        [0, { direction: 'auto' }],
        [middle, { direction: 'pull' }],
        [0, { idempotent: true }],
      ] as const) {
        const got = await bfs(graph, s, options);
        expectArrayEqual(
          got.depths,
          bfsReference(csr, s).depths,
          `${name} ${JSON.stringify(options)} from ${s}`,
        );
      }
      graph.destroy();
    }
  });

  it('connected components and pagerank match the references', async () => {
    const d = await device();
    const r = mulberry32(5);
    d.bindingBudget = 4 * 2 ** SHIFT;
    for (const [i, { name, csr }] of graphs.entries()) {
      const labels = componentsReference(csr).labels;
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      // Label propagation takes about a diameter of steps: the short-diameter graphs suffice for it.
      const algorithms =
        i % 2 === 0 ? (['union-find', 'label-propagation'] as const) : (['union-find'] as const);
      for (const algorithm of algorithms) {
        const cc = await connectedComponents(graph, { algorithm });
        expectArrayEqual(cc.labels, labels, `${name} ${algorithm}`);
      }
      const pr = await pageRank(graph);
      expect(verifyPageRank(csr, pr.ranks, { relTolerance: 1e-4 }), name).toBeNull();
      graph.destroy();
      if (i % 3 !== 0) continue;
      const weighted = { ...csr, weights: Float32Array.from({ length: csr.edgeCount }, () => 0.5 + r()) };
      const heavy = uploadGraph(d, weighted, { csc: csr.directed });
      expect(heavy.chunkedWeights!.chunks.length).toBe(heavy.chunkedTargets.chunks.length);
      const wpr = await pageRank(heavy);
      expect(verifyPageRank(weighted, wpr.ranks, { relTolerance: 1e-4 }), `${name} weighted`).toBeNull();
      heavy.destroy();
    }
  });

  it('sssp (Bellman-Ford and near-far, u32 and f32 weights) matches the reference', async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    const r = mulberry32(9);
    let refused = 0;
    for (const [i, { name, csr }] of graphs.entries()) {
      const weights =
        i % 2 === 0
          ? Uint32Array.from({ length: csr.edgeCount }, () => 1 + Math.floor(r() * 20))
          : Float32Array.from({ length: csr.edgeCount }, () => r() * 10);
      const weighted = { ...csr, weights };
      const graph = uploadGraph(d, weighted, { csc: csr.directed });
      expect(graph.chunkedWeights!.chunks.length, name).toBe(graph.chunkedTargets.chunks.length);
      const s = Math.floor(csr.vertexCount / 2);
      for (const options of [{}, { delta: i % 2 === 0 ? 16 : 5 }] as const) {
        const where = `${name} ${JSON.stringify(options)}`;
        const got = await sssp(graph, s, options).catch((e: unknown) => e);
        // Targets and weights take a binding a chunk each: past the stage's storage buffers, a refusal.
        if (got instanceof DeviceLimitError) {
          expect(graph.chunkedTargets.chunks.length, where).toBeGreaterThanOrEqual(5);
          refused++;
          continue;
        }
        expect(
          verifySssp(weighted, s, (got as Awaited<ReturnType<typeof sssp>>).distances),
          where,
        ).toBeNull();
      }
      graph.destroy();
    }
    // Only the 5-chunk star's two runs exceed the 16 storage buffers of lavapipe.
    expect(refused).toBeLessThanOrEqual(2);
  });

  it('paths that read the targets as one array refuse with a DeviceLimitError naming them', async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    const graph = uploadGraph(d, graphs[1]!.csr);
    expect(graph.chunked).toBe(true);
    await expect(bfs(graph, 0, { smallFrontier: 'on' })).rejects.toThrow(/advanceSmallFrontier/);
    const live = d.pool.stats.liveBytes;
    for (const run of [
      () => triangleCount(graph),
      () => minimumSpanningForest(graph),
      () => louvain(graph),
      () => jaccard(graph, Uint32Array.of(0, 1)),
      () => labelPropagation(graph),
    ]) {
      await expect(run()).rejects.toThrow(DeviceLimitError);
    }
    // Refused before allocating anything.
    expect(d.pool.stats.liveBytes).toBe(live);
    graph.destroy();
    const csr = graphs[1]!.csr;
    const weighted = uploadGraph(d, { ...csr, weights: new Uint32Array(csr.edgeCount).fill(1) });
    await expect(sssp(weighted, 0, { smallFrontier: 'on' })).rejects.toThrow(/advanceSmallFrontier/);
    weighted.destroy();
  });

  it('an unchunked graph compiles no chunk helper', async () => {
    const d = await requestDevice({ label: 'unchunked' });
    try {
      const shaders = recordShaders(d);
      const graph = uploadGraph(d, graphs[0]!.csr);
      expect(graph.chunked).toBe(false);
      await bfs(graph, 0, { claim: 'depth', smallFrontier: 'off', loadBalance: 'thread-mapped' });
      await connectedComponents(graph);
      await pageRank(graph);
      expect(shaders.text()).toContain('kernel:');
      expect(shaders.text()).not.toMatch(/switch \(i >> \d+u\)/);
      graph.destroy();
    } finally {
      d.destroy();
    }
  });
});
