import { wgsl } from '@weft/gpu';
import { type HostCsr, type HostEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker, road } from '@weft/graph/generators';
import { gpuTest, mulberry32, randomPermutation } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { path, testGraphs, testSources, withWeights } from '../test-graphs.ts';
import { verifySssp } from '../verify.ts';
import { buildBlockLayout, chainSlots } from './block-layout.ts';
import { SsspBlocks, type SsspBlocksTuning } from './blocks.ts';
import { sssp } from './sssp.ts';

/** Small blocks and workgroups, so test graphs of a few thousand vertices span many blocks. */
const SMALL: SsspBlocksTuning = { blockSize: 64, workgroupSize: 32 };
/** The same with blocks that reload what others lowered while they ran, and stop after a few sweeps. */
const PASSES: SsspBlocksTuning = { ...SMALL, passes: 3, maxSweeps: 4 };

/** A path visiting the ids in a scrambled order, so it crosses blocks up and down the ids. */
function scrambledPath(n: number, seed: number): HostEdgeList {
  const ids = randomPermutation(n, seed);
  return { vertexCount: n, src: ids.subarray(0, n - 1), dst: ids.subarray(1), directed: false };
}

function star(leaves: number): HostEdgeList {
  return {
    vertexCount: leaves + 1,
    src: new Uint32Array(leaves),
    dst: Uint32Array.from({ length: leaves }, (_, i) => i + 1),
    directed: false,
  };
}

describe('block layout', () => {
  it('groups every vertex once, in blocks within the size and arc budget, and splits arcs exactly', () => {
    const csr = withWeights(road({ width: 40, height: 30, seed: 3 }), 1);
    const layout = buildBlockLayout(csr, { blockSize: 100, arcBudget: 300 });
    const n = csr.vertexCount;
    expect([...layout.order].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
    for (let b = 0; b < layout.blockCount; b++) {
      const size = layout.blockStart[b + 1]! - layout.blockStart[b]!;
      expect(size).toBeGreaterThan(0);
      expect(size).toBeLessThanOrEqual(100);
      expect(layout.arcStart[b + 1]! - layout.arcStart[b]!).toBeLessThanOrEqual(300);
    }
    // Compact blocks: on a road grid most arcs stay inside their block.
    const intra = layout.arcStart[layout.blockCount]!;
    const cross = layout.crossOffsets[n]!;
    expect(intra + cross).toBe(csr.edgeCount);
    expect(cross / csr.edgeCount).toBeLessThan(0.3);
  });

  it('puts a vertex whose arcs exceed the budget in a block of its own, without its arcs inside', () => {
    const csr = withWeights(star(50), 2);
    const layout = buildBlockLayout(csr, { blockSize: 16, arcBudget: 20 });
    const hub = layout.rank[0]!;
    const b = layout.blockOf[hub]!;
    expect(layout.blockStart[b + 1]! - layout.blockStart[b]!).toBe(1);
    expect(layout.arcStart[b + 1]! - layout.arcStart[b]!).toBe(0);
    expect(layout.crossOffsets[hub + 1]! - layout.crossOffsets[hub]!).toBe(50);
  });

  it("places every intra-block arc in one slot, most of a thread's arcs following paths", () => {
    const csr = withWeights(road({ width: 40, height: 30, seed: 6 }), 2);
    const wg = 16;
    const layout = buildBlockLayout(csr, { blockSize: 200, arcBudget: 800, workgroupSize: wg });
    const want = buildBlockLayout(csr, { blockSize: 200, arcBudget: 800 });
    let chained = 0;
    for (let b = 0; b < layout.blockCount; b++) {
      const [a0, a1] = [layout.arcStart[b]!, layout.arcStart[b + 1]!];
      expect((a1 - a0) % wg).toBe(0);
      const got = Array.from(
        { length: a1 - a0 },
        (_, i) => `${layout.arcs[2 * (a0 + i)]}:${layout.arcs[2 * (a0 + i) + 1]}`,
      );
      const [w0, w1] = [want.arcStart[b]!, want.arcStart[b + 1]!];
      const arcs = Array.from(
        { length: w1 - w0 },
        (_, i) => `${want.arcs[2 * (w0 + i)]}:${want.arcs[2 * (w0 + i) + 1]}`,
      );
      const holes = got.filter((x) => x === '4294967295:4294967295').length;
      expect(got.filter((x) => !x.startsWith('4294967295')).sort()).toEqual(arcs.sort());
      expect(holes).toBe(a1 - a0 - arcs.length);
      // Consecutive arcs of one thread that chain: the next one leaves where the last one arrived.
      const per = (a1 - a0) / wg;
      for (let t = 0; t < wg; t++) {
        for (let k = 1; k < per; k++) {
          const prev = layout.arcs[2 * (a0 + t + (k - 1) * wg)]!;
          const next = layout.arcs[2 * (a0 + t + k * wg)]!;
          if (next !== 0xffffffff && prev >>> 16 === (next & 0xffff)) chained++;
        }
      }
    }
    expect(chained / layout.arcStart[layout.blockCount]!).toBeGreaterThan(0.3);
    expect(chainSlots(new Uint32Array(0), 5, 8)).toEqual(new Uint32Array(0));
  });

  it('merges the pockets a full block cuts off into neighbouring blocks', () => {
    const csr = withWeights(road({ width: 80, height: 80, seed: 4 }), 3);
    const layout = buildBlockLayout(csr, { blockSize: 256, arcBudget: 1024 });
    const sizes = Array.from(
      { length: layout.blockCount },
      (_, b) => layout.blockStart[b + 1]! - layout.blockStart[b]!,
    );
    // 6,400 vertices: without merging, dead-end branches cut off by full blocks made most blocks tiny.
    expect(layout.blockCount).toBeLessThan(40);
    expect(sizes.filter((size) => size < 32).length).toBeLessThan(layout.blockCount / 6);
  });

  it('makes a block of every vertex with blocks of one, all arcs crossing', () => {
    const csr = withWeights(road({ width: 9, height: 7, seed: 5 }), 4);
    const layout = buildBlockLayout(csr, { blockSize: 1, arcBudget: 100 });
    expect(layout.blockCount).toBe(63);
    expect(layout.arcStart[63]).toBe(0);
    expect(layout.crossOffsets[63]).toBe(csr.edgeCount);
  });
});

describe('sssp blocks', () => {
  it('matches Dijkstra on the test corpus, u32, f32 and unit weights; decodes on the device as the host does', () =>
    gpuTest(async (device) => {
      for (const weights of ['u32', 'f32', false] as const) {
        for (const { name, csr } of testGraphs(weights, 12)) {
          const graph = uploadGraph(device, csr);
          const blocks = await SsspBlocks.prepare(graph, weights === 'f32' ? PASSES : SMALL);
          for (const [i, source] of testSources(csr).slice(0, 3).entries()) {
            const { distances } = await sssp(graph, source, { strategy: 'blocks', blocks });
            expect(
              verifySssp(csr, source, distances, weights === 'f32' ? 1e-6 : 0),
              `${name}, ${weights || 'unit'} weights, source ${source}`,
            ).toBeNull();
            if (i > 0) continue;
            // The device scatters through the block order; the host loop is the reference.
            const onHost = (await sssp(graph, source, { strategy: 'blocks', blocks, decode: 'host' }))
              .distances;
            expect(
              distances.findIndex((d, v) => !Object.is(d, onHost[v])),
              name,
            ).toBe(-1);
          }
          blocks.destroy();
          graph.destroy();
        }
      }
    }));

  it('matches Dijkstra on road graphs, grids and long paths across many blocks', () =>
    gpuTest(async (device) => {
      const cases: [string, HostCsr][] = [
        ['road 60 x 50', withWeights(road({ width: 60, height: 50, seed: 11 }), 5)],
        ['road 45 x 45 weights 1', withWeights(road({ width: 45, height: 45, seed: 12 }), 6, 1, 1)],
        [
          'road 40 x 40 weights 0-2 (zero-weight cycles)',
          withWeights(road({ width: 40, height: 40, seed: 15 }), 16, 0, 2),
        ],
        ['grid 50 x 40 weights 255', withWeights(grid({ width: 50, height: 40 }), 7, 255, 255)],
        ['path 3000', withWeights(path(3000, false), 8)],
        ['directed path 1000', withWeights(path(1000, true), 9)],
        ['scrambled path 2000', withWeights(scrambledPath(2000, 10), 10)],
        ['star 500', withWeights(star(500), 11)],
        ['isolated vertices and a path', withWeights({ ...path(300, false), vertexCount: 400 }, 12)],
      ];
      const r = mulberry32(77);
      for (const [name, csr] of cases) {
        const graph = uploadGraph(device, csr);
        for (const tuning of [SMALL, PASSES]) {
          const blocks = await SsspBlocks.prepare(graph, tuning);
          const n = csr.vertexCount;
          for (const source of [0, n - 1, Math.floor(r() * n)]) {
            const { distances } = await sssp(graph, source, { strategy: 'blocks', blocks });
            expect(
              verifySssp(csr, source, distances),
              `${name}, ${tuning.passes ?? 1} passes, source ${source}`,
            ).toBeNull();
          }
          blocks.destroy();
        }
        graph.destroy();
      }
    }));

  it('runs with blocks of one vertex, blocks filling every slot, and blocks one over', () =>
    gpuTest(async (device) => {
      const csr = withWeights(road({ width: 30, height: 20, seed: 13 }), 14);
      const graph = uploadGraph(device, csr);
      for (const tuning of [
        { blockSize: 1, workgroupSize: 1 },
        { blockSize: 1, workgroupSize: 8 },
        { blockSize: 8, workgroupSize: 8 },
        { blockSize: 9, workgroupSize: 8 },
        { blockSize: 64, workgroupSize: 64, arcBudget: 64 },
        { blockSize: 100, workgroupSize: 16, arcBudget: 17 },
        { blockSize: 64, workgroupSize: 32, passes: 4 },
        { blockSize: 16, workgroupSize: 16, passes: 2 },
        { blockSize: 64, workgroupSize: 16, maxSweeps: 1 },
        { blockSize: 64, workgroupSize: 32, maxSweeps: 3, passes: 2 },
      ]) {
        const blocks = await SsspBlocks.prepare(graph, tuning);
        for (const source of [0, 599, 321]) {
          const { distances } = await sssp(graph, source, { strategy: 'blocks', blocks });
          expect(
            verifySssp(csr, source, distances),
            `${JSON.stringify(tuning)}, source ${source}`,
          ).toBeNull();
        }
        blocks.destroy();
      }
      graph.destroy();
    }));

  it('refuses what it cannot do, and reports overflow as the frontier strategy does', () =>
    gpuTest(async (device) => {
      const chain = (weights: Uint32Array | Int32Array | Float32Array) => ({
        vertexCount: 4,
        edgeCount: 3,
        offsets: Uint32Array.of(0, 1, 2, 3, 3),
        targets: Uint32Array.of(1, 2, 3),
        weights,
        directed: true,
      });
      const blocks = { strategy: 'blocks' as const, blocks: { blockSize: 2, workgroupSize: 2 } };
      for (const [weights, message] of [
        [Int32Array.of(5, -8, 1), /weight -8 of edge 1 -> 2 \(edge 1\) is negative/],
        [Float32Array.of(Number.NaN, 2, 3), /is NaN/],
        [Uint32Array.of(2 ** 31, 2 ** 31 + 5, 7), /vertex 2 reached 2\^32 - 2/],
        [Float32Array.of(3e38, 3e38, 1), /vertex 2 reached the largest finite f32/],
      ] as const) {
        const graph = uploadGraph(device, chain(weights));
        await expect(sssp(graph, 0, blocks)).rejects.toThrow(message);
        graph.destroy();
      }
      const graph = uploadGraph(device, chain(Uint32Array.of(2 ** 31, 2 ** 31 + 5, 7)));
      expect(Array.from((await sssp(graph, 1, blocks)).distances)).toEqual([
        Number.POSITIVE_INFINITY,
        0,
        2 ** 31 + 5,
        2 ** 31 + 12,
      ]);
      await expect(sssp(graph, 4, blocks)).rejects.toThrow(/not a vertex/);
      for (const option of [
        { parents: true },
        { trace: true },
        { weight: wgsl`(s: u32, d: u32, e: u32) -> u32 { return 1u; }` },
      ]) {
        await expect(sssp(graph, 0, { ...blocks, ...option })).rejects.toThrow(/strategy 'blocks' has no/);
      }
      await expect(sssp(graph, 0, { strategy: 'fast' as 'auto' })).rejects.toThrow(/unknown strategy/);
      for (const tuning of [
        { blockSize: 0 },
        { workgroupSize: 1.5 },
        { blockSize: 2 ** 20 },
        { blockSize: 2048, workgroupSize: 16 },
        { passes: 0 },
        { maxSweeps: -1 },
      ]) {
        await expect(SsspBlocks.prepare(graph, tuning)).rejects.toThrow(
          /blockSize|workgroupSize|arcBudget|passes|maxSweeps/,
        );
      }
      const other = uploadGraph(device, chain(Uint32Array.of(1, 1, 1)));
      const prepared = await SsspBlocks.prepare(other);
      await expect(sssp(graph, 0, { strategy: 'blocks', blocks: prepared })).rejects.toThrow(/another graph/);
      prepared.destroy();
      other.destroy();
      graph.destroy();
      const empty = uploadGraph(device, {
        vertexCount: 0,
        edgeCount: 0,
        offsets: Uint32Array.of(0),
        targets: new Uint32Array(0),
        directed: false,
      });
      const none = await SsspBlocks.prepare(empty);
      expect(none.blockCount).toBe(0);
      await expect(sssp(empty, 0, { strategy: 'blocks', blocks: none })).rejects.toThrow(/not a vertex/);
      none.destroy();
      empty.destroy();
    }));

  it("'auto' runs the frontier path once, then blocks kept with the graph; options blocks lack stay frontier", () =>
    gpuTest(async (device) => {
      const csr = withWeights(road({ width: 40, height: 30, seed: 5 }), 6);
      const graph = uploadGraph(device, csr);
      const key = 'sssp blocks';
      for (const [call, source] of [0, 17, 1199].entries()) {
        const got = await sssp(graph, source);
        expect(verifySssp(csr, source, got.distances), `call ${call}, source ${source}`).toBeNull();
        expect(graph.hasDerived(key), `blocks kept after call ${call}`).toBe(call > 0);
      }
      const blocks = await graph.derived(key, () => Promise.reject(new Error('built twice')));
      expect(blocks).toBeInstanceOf(SsspBlocks);
      // Parents are the frontier path's: asked for, 'auto' runs it even with blocks kept.
      const withParents = await sssp(graph, 3, { parents: true });
      expect(withParents.parents).toBeDefined();
      expect(verifySssp(csr, 3, withParents.distances)).toBeNull();
      graph.destroy();
      // A frontier option set, or a graph of 8 or more out-edges a vertex, never prepares blocks.
      const grid8 = uploadGraph(device, withWeights(grid({ width: 8, height: 8, seed: 1 }), 2));
      await sssp(grid8, 0, { smallFrontier: 'off' });
      await sssp(grid8, 0, { smallFrontier: 'off' });
      expect(grid8.hasDerived(key)).toBe(false);
      grid8.destroy();
      const denseCsr = withWeights(kronecker({ scale: 6, edgeFactor: 8, seed: 3 }), 4);
      expect(denseCsr.edgeCount).toBeGreaterThanOrEqual(8 * denseCsr.vertexCount);
      const dense = uploadGraph(device, denseCsr);
      for (const source of [0, 1, 2]) {
        const got = await sssp(dense, source);
        expect(verifySssp(denseCsr, source, got.distances)).toBeNull();
      }
      expect(dense.hasDerived(key)).toBe(false);
      dense.destroy();
    }));
});
