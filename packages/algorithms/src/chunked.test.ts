import { ConvergenceError, DeviceLimitError, requestDevice, type WeftDevice } from '@weft/gpu';
import {
  type HostCsr,
  type HostEdgeList,
  hostCsrFromEdgeList,
  PartitionedGraph,
  uploadGraph,
} from '@weft/graph';
import { grid, kronecker, kroneckerMultigraphOnDevice } from '@weft/graph/generators';
import { expectArrayEqual, mulberry32, recordShaders } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { betweennessCentrality } from './betweenness.ts';
import { bfs } from './bfs/bfs.ts';
import { bfsReference } from './bfs/reference.ts';
import { eigenvectorCentrality, hits, katzCentrality, personalizedPageRank } from './centrality.ts';
import {
  eigenvectorCentralityReference,
  hitsReference,
  katzCentralityReference,
  personalizedPageRankReference,
} from './centrality-reference.ts';
import { graphColoring } from './coloring.ts';
import { modularity } from './community-gpu.ts';
import { modularityReference } from './community-reference.ts';
import { connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { coreNumber } from './kcore.ts';
import { labelPropagation } from './label-propagation.ts';
import { leiden } from './leiden.ts';
import { louvain } from './louvain.ts';
import { maximalIndependentSet } from './mis.ts';
import { minimumSpanningForest } from './mst.ts';
import { mstReference } from './mst-reference.ts';
import { pageRank } from './pagerank.ts';
import { bfsPartitioned } from './partitioned.ts';
import { stronglyConnectedComponents } from './scc.ts';
import { jaccard, jaccardAll, overlap } from './similarity.ts';
import {
  jaccardAllReference,
  jaccardReference,
  overlapReference,
  type SimilarityResult,
} from './similarity-reference.ts';
import { sssp, ssspDelta } from './sssp/sssp.ts';
import { randomEdges, undirectedSimple } from './test-graphs.ts';
import { triangleCount } from './triangles.ts';
import { trianglesReference } from './triangles-reference.ts';
import {
  verifyBetweenness,
  verifyColoring,
  verifyCoreNumbers,
  verifyIndependentSet,
  verifyPageRank,
  verifyScc,
  verifySssp,
} from './verify.ts';

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
  // Each chunk count compiles its own kernels (slow on lavapipe): the slower algorithms run on a subset with
  // one graph of each count from 2 to 5 (path 25, grid, disconnected, star) and the directed one, or on the
  // star and the directed graph alone.
  const counts = [1, 3, 5, 0, 6].map((i) => graphs[i]!);
  const hubs = [0, 6].map((i) => graphs[i]!);

  it('the corpus spans 2 to 5 chunks with edge lists across boundaries', () => {
    const chunks = graphs.map(({ csr }) => Math.ceil(csr.edgeCount / 2 ** SHIFT));
    expect(new Set(chunks)).toEqual(new Set([2, 3, 4, 5]));
    expect(Math.max(...chunks)).toBe(5);
    expect(graphs.filter(({ csr }) => straddles(csr, SHIFT)).length).toBeGreaterThanOrEqual(4);
    expect(counts.map(({ csr }) => Math.ceil(csr.edgeCount / 2 ** SHIFT))).toEqual([2, 3, 4, 5, 3]);
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

  it('bfs at 8 chunks takes depth claims under 16 storage buffers, and direction-optimizing fits', async () => {
    // Dawn's 16 storage buffers a stage (wgpu grants more).
    const d = await requestDevice({
      label: 'chunked graphs, 16 buffers',
      limits: { maxStorageBuffersPerShaderStage: 16 },
    });
    d.bindingBudget = 4 * 2 ** SHIFT;
    // A circulant graph: every vertex joined to the next 6 (degree 12, dense enough for bitmap claims),
    // 240 arcs in 8 chunks, whose bitmap-claim level would bind 9 + 8 buffers.
    const src: number[] = [];
    const dst: number[] = [];
    for (let v = 0; v < 20; v++) {
      for (let k = 1; k <= 6; k++) {
        src.push(v);
        dst.push((v + k) % 20);
      }
    }
    const edges = {
      vertexCount: 20,
      src: Uint32Array.from(src),
      dst: Uint32Array.from(dst),
      directed: false,
    };
    const { csr } = hostCsrFromEdgeList(edges);
    const graph = uploadGraph(d, csr);
    expect(graph.chunkedTargets.chunks.length).toBe(8);
    expect(d.limits.maxStorageBuffersPerShaderStage).toBe(16);
    for (const options of [{}, { direction: 'auto' }, { direction: 'pull' }] as const) {
      const got = await bfs(graph, 3, options);
      expectArrayEqual(got.depths, bfsReference(csr, 3).depths, JSON.stringify(options));
    }
    await expect(bfs(graph, 3, { claim: 'bitmap' })).rejects.toThrow(DeviceLimitError);
    graph.destroy();
    d.destroy();
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
      // Chunked graphs gather in their own order unless asked: both orders read the chunked column.
      for (const gatherOrder of [false, true]) {
        const pr = await pageRank(graph, { gatherOrder });
        expect(verifyPageRank(csr, pr.ranks, { relTolerance: 1e-4 }), `${name} ${gatherOrder}`).toBeNull();
      }
      graph.destroy();
      if (i % 3 !== 0) continue;
      const weighted = { ...csr, weights: Float32Array.from({ length: csr.edgeCount }, () => 0.5 + r()) };
      const heavy = uploadGraph(d, weighted, { csc: csr.directed });
      expect(heavy.chunkedWeights!.chunks.length).toBe(heavy.chunkedTargets.chunks.length);
      for (const gatherOrder of [false, true]) {
        const wpr = await pageRank(heavy, { gatherOrder });
        const what = `${name} weighted ${gatherOrder}`;
        expect(verifyPageRank(weighted, wpr.ranks, { relTolerance: 1e-4 }), what).toBeNull();
      }
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

  it('k-core (local and advance peel), SCC and cascade components match the references', async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    for (const { name, csr } of counts) {
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      for (const peel of ['local', 'advance'] as const) {
        const k = await coreNumber(graph, { peel });
        expect(verifyCoreNumbers(csr, k.core, k.maxCore), `${name} peel ${peel}`).toBeNull();
      }
      graph.destroy();
    }
    for (const { name, csr } of hubs) {
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const scc = await stronglyConnectedComponents(graph);
      expect(verifyScc(csr, scc.labels, scc.count), name).toBeNull();
      // The default label propagation of components runs as one Cascade along both directions.
      const cc = await connectedComponents(graph, { algorithm: 'label-propagation', smallFrontier: 'auto' });
      expectArrayEqual(cc.labels, componentsReference(csr).labels, `${name} cascade`);
      graph.destroy();
    }
  });

  it('triangles, jaccard, overlap and jaccardAll (intersections) match the references', async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    const r = mulberry32(13);
    const same = (got: SimilarityResult, want: SimilarityResult, what: string) => {
      expect(got.first, what).toEqual(want.first);
      expect(got.second, what).toEqual(want.second);
      expect(got.common, what).toEqual(want.common);
      for (let i = 0; i < want.score.length; i++) {
        expect(Math.abs(got.score[i]! - want.score[i]!), `${what} pair ${i}`).toBeLessThanOrEqual(1e-6);
      }
    };
    for (const { name, csr } of counts) {
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const t = await triangleCount(graph);
      expect(t.count, name).toBe(trianglesReference(csr.directed ? undirectedSimple(csr) : csr));
      const n = csr.vertexCount;
      // Hub pairs and random pairs: the hub's list is the one that crosses boundaries.
      const src = Uint32Array.from({ length: 24 }, (_, i) => (i < 6 ? 0 : Math.floor(r() * n)));
      const dst = Uint32Array.from({ length: 24 }, (_, i) => (i % 7 === 0 ? src[i]! : Math.floor(r() * n)));
      same(await jaccard(graph, { src, dst }), jaccardReference(csr, { src, dst }), `${name} jaccard`);
      same(await overlap(graph, { src, dst }), overlapReference(csr, { src, dst }), `${name} overlap`);
      graph.destroy();
    }
    // A scatter build keeps duplicates and leaves rows unsorted: both are rebuilt as a sorted simple graph.
    const multi = await kroneckerMultigraphOnDevice(d, { scale: 4, edgeFactor: 4, seed: 3 });
    expect(multi.chunked).toBe(true);
    const raw = await multi.toHost();
    const simple = undirectedSimple(raw);
    expect(simple.edgeCount).toBeLessThan(raw.edgeCount);
    expect((await triangleCount(multi)).count).toBe(trianglesReference(simple));
    const pairs = Uint32Array.from({ length: 40 }, (_, i) => (i * 7) % raw.vertexCount);
    same(await jaccard(multi, pairs), jaccardReference(simple, pairs), 'multigraph jaccard');
    multi.destroy();
    for (const { name, csr } of hubs) {
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const n = csr.vertexCount;
      const vertices = [0, Math.floor(n / 2), n - 1];
      same(
        await jaccardAll(graph, vertices, { topK: 4 }),
        jaccardAllReference(csr, vertices, { topK: 4 }),
        `${name} jaccardAll`,
      );
      graph.destroy();
    }
  });

  it('centralities, coloring, independent set, partitioned bfs and the sssp delta match the references', async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    const near = (got: ArrayLike<number>, want: ArrayLike<number>, what: string) => {
      let largest = 0;
      for (let i = 0; i < want.length; i++) largest = Math.max(largest, Math.abs(want[i]!));
      for (let i = 0; i < want.length; i++) {
        expect(Math.abs(got[i]! - want[i]!), `${what} value ${i}`).toBeLessThanOrEqual(2e-6 * largest);
      }
    };
    // Power iterations on bipartite graphs (paths, grids) may not converge: both sides then refuse alike.
    const agree = async <G, R>(gpu: () => Promise<G>, reference: () => R, check: (g: G, r: R) => void) => {
      let want: R;
      try {
        want = reference();
      } catch (e) {
        expect(e).toBeInstanceOf(ConvergenceError);
        await expect(gpu()).rejects.toThrow(ConvergenceError);
        return;
      }
      check(await gpu(), want);
    };
    for (const { name, csr } of hubs) {
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const sources = { sources: [0, Math.floor(csr.vertexCount / 2)] };
      // The graph's own order first ('auto' on a chunked graph), then the gather order over chunks.
      for (const gatherOrder of [false, true]) {
        const what = `${name}${gatherOrder ? ' in gather order' : ''}`;
        const ppr = await personalizedPageRank(graph, sources, { gatherOrder });
        near(ppr.ranks, personalizedPageRankReference(csr, sources).ranks, `${what} ppr`);
        const katz = await katzCentrality(graph, { gatherOrder });
        near(katz.centrality, katzCentralityReference(csr).centrality, `${what} katz`);
        await agree(
          () => eigenvectorCentrality(graph, { gatherOrder }),
          () => eigenvectorCentralityReference(csr),
          (g, w) => near(g.centrality, w.centrality, `${what} eigenvector`),
        );
        await agree(
          () => hits(graph, { gatherOrder }),
          () => hitsReference(csr),
          (g, w) => {
            near(g.hubs, w.hubs, `${what} hubs`);
            near(g.authorities, w.authorities, `${what} authorities`);
          },
        );
      }
      const simple = csr.directed ? undirectedSimple(csr) : csr;
      expect(verifyColoring(simple, (await graphColoring(graph)).colors), `${name} coloring`).toBeNull();
      expect(
        verifyIndependentSet(simple, (await maximalIndependentSet(graph)).inSet),
        `${name} mis`,
      ).toBeNull();
      graph.destroy();
      const parts = PartitionedGraph.upload([d], csr);
      const got = await bfsPartitioned(parts, 0);
      const want = Array.from(bfsReference(csr, 0).depths, (x) => (x < 0 ? 0xffffffff : x));
      expect(Array.from(got.depths), `${name} partitioned`).toEqual(want);
      parts.destroy();
    }
    const weighted = { ...graphs[3]!.csr, weights: new Float32Array(graphs[3]!.csr.edgeCount).fill(2) };
    const heavy = uploadGraph(d, weighted);
    expect(heavy.chunked).toBe(true);
    expect(await ssspDelta(heavy)).toBeGreaterThan(0);
    heavy.destroy();
  });

  it('modularity, louvain, leiden, label propagation and the spanning forest match unchunked runs and references', async () => {
    const d = await device();
    const r = mulberry32(21);
    // The star unweighted, the directed graph weighted: each compiles every community kernel twice.
    for (const [i, { name, csr }] of hubs.entries()) {
      const weighted = { ...csr, weights: Float32Array.from({ length: csr.edgeCount }, () => 0.5 + r()) };
      for (const g of i === 0 ? [csr] : [weighted]) {
        const what = `${name}${g === weighted ? ' weighted' : ''}`;
        d.bindingBudget = 4 * 2 ** SHIFT;
        const chunked = uploadGraph(d, g);
        d.bindingBudget = 2 ** 27;
        const whole = uploadGraph(d, g);
        d.bindingBudget = 4 * 2 ** SHIFT;
        expect(chunked.chunked && !whole.chunked, what).toBe(true);
        const partition = Uint32Array.from({ length: g.vertexCount }, () => Math.floor(r() * 4));
        expect(await modularity(chunked, partition), what).toBeCloseTo(modularityReference(g, partition), 5);
        // Same seeds on the same device: the chunked run must be the unchunked one.
        const lv = await louvain(chunked, { seed: 3 });
        const lvWhole = await louvain(whole, { seed: 3 });
        expect(lv.communities, `${what} louvain`).toEqual(lvWhole.communities);
        expect(lv.modularity, `${what} louvain`).toBeCloseTo(lvWhole.modularity, 5);
        const ld = await leiden(chunked, { seed: 3 });
        expect(ld.communities, `${what} leiden`).toEqual((await leiden(whole, { seed: 3 })).communities);
        const lp = await labelPropagation(chunked);
        expect(lp.labels, `${what} label propagation`).toEqual((await labelPropagation(whole)).labels);
        const forest = await minimumSpanningForest(chunked);
        const want = mstReference(g);
        expect(forest.edges, `${what} forest`).toEqual(want.edges);
        expect(forest.weight, `${what} forest`).toBeCloseTo(want.weight, 4);
        chunked.destroy();
        whole.destroy();
      }
    }
  });

  it('betweenness (bulk levels on the star, the small-frontier engine on the directed graph) matches the reference', async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    // Each run compiles many kernels per chunk count: one mode a graph.
    for (const [i, { name, csr }] of hubs.entries()) {
      const graph = uploadGraph(d, csr);
      expect(graph.chunked).toBe(true);
      const sources = [0, Math.floor(csr.vertexCount / 2), csr.vertexCount - 1];
      const smallFrontier = i === 0 ? 'off' : 'on';
      const got = await betweennessCentrality(graph, { sources, smallFrontier });
      expect(verifyBetweenness(csr, got.centrality, { sources }), `${name} ${smallFrontier}`).toBeNull();
      graph.destroy();
    }
  });

  it("bfs and sssp with smallFrontier: 'on' run the engine across the chunks", async () => {
    const d = await device();
    d.bindingBudget = 4 * 2 ** SHIFT;
    let refused = 0;
    for (const { name, csr } of counts) {
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const s = Math.floor(csr.vertexCount / 2);
      const got = await bfs(graph, s, { smallFrontier: 'on' });
      expectArrayEqual(got.depths, bfsReference(csr, s).depths, `${name} bfs`);
      graph.destroy();
      const weighted = {
        ...csr,
        weights: Uint32Array.from({ length: csr.edgeCount }, (_, e) => 1 + (e % 5)),
      };
      const heavy = uploadGraph(d, weighted, { csc: csr.directed });
      const run = await sssp(heavy, s, { smallFrontier: 'on' }).catch((e: unknown) => e);
      // Targets and weights take a binding a chunk each beside the engine's and SSSP's own: from 3 chunks
      // they exceed lavapipe's 16 storage buffers a stage.
      if (run instanceof DeviceLimitError) {
        expect(heavy.chunkedTargets.chunks.length, name).toBeGreaterThanOrEqual(3);
        expect(String(run)).toMatch(/storage buffers/);
        refused++;
      } else {
        const { distances } = run as Awaited<ReturnType<typeof sssp>>;
        expect(verifySssp(weighted, s, distances), `${name} sssp`).toBeNull();
      }
      heavy.destroy();
    }
    expect(refused).toBeLessThan(counts.length);
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
      // The paths made chunk-aware here keep their one-array text too.
      await connectedComponents(graph, { algorithm: 'label-propagation' });
      await coreNumber(graph);
      await triangleCount(graph);
      await jaccard(graph, Uint32Array.of(0, 1));
      await minimumSpanningForest(graph);
      expect(shaders.text()).toContain('kernel: cascade');
      expect(shaders.text()).toContain('kernel: kcore local peel');
      expect(shaders.text()).not.toContain('weft_neighbor');
      expect(shaders.text()).not.toMatch(/switch \(i >> \d+u\)/);
      graph.destroy();
    } finally {
      d.destroy();
    }
  });
});
