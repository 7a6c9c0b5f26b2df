import { ssspReference } from '@weft/algorithms';
import { distanceOverflowError, InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { DynamicSssp, type DynamicSsspOptions, dynamicSssp } from './sssp.ts';
import { modelCsr } from './test-support.ts';

function modelAsCsr(model: HostDynamicGraph, weighted: boolean): HostCsr {
  const { offsets, targets, values } = modelCsr(model, weighted ? 'u32' : undefined);
  return {
    vertexCount: model.vertexCount,
    edgeCount: targets.length,
    offsets,
    targets,
    directed: model.directed,
    ...(weighted ? { weights: values } : {}),
  };
}

async function expectDistances(s: DynamicSssp, model: HostDynamicGraph, weighted: boolean, what: string) {
  const want = ssspReference(modelAsCsr(model, weighted), s.source);
  expectArrayEqual(await s.result(), want, what);
  expect(s.lastRun.converged, `${what}: converged`).toBe(true);
}

/**
 * A batch of `size` edges: mostly new ones (random weights), some repeats of earlier items (duplicates),
 * some existing edges re-inserted with a lower weight (every occurrence at most the current weight, so
 * the batch only shortens paths), all touching the first `reach` vertices.
 */
function insertionBatch(model: HostDynamicGraph, size: number, reach: number, rand: () => number) {
  const src = new Uint32Array(size);
  const dst = new Uint32Array(size);
  const w = new Uint32Array(size);
  for (let i = 0; i < size; i++) {
    const r = rand();
    if (r < 0.15 && i > 0) {
      const j = Math.floor(rand() * i);
      src[i] = src[j]!;
      dst[i] = dst[j]!;
      w[i] = w[j]!;
      continue;
    }
    let u = Math.floor(rand() * reach);
    let v = Math.floor(rand() * reach);
    if (r < 0.4) {
      // An existing edge of a random vertex, lowered.
      const adj = model.adjacency[u]!;
      if (adj.size > 0) {
        const keys = [...adj.keys()];
        v = keys[Math.floor(rand() * keys.length)]!;
        const old = adj.get(v)!;
        src[i] = u;
        dst[i] = v;
        // Lower but not zero (a tight zero-weight edge makes deleteEdges recompute).
        w[i] = Math.max(1, Math.floor(rand() * old));
        continue;
      }
    }
    if (model.adjacency[u]!.has(v)) u = v; // new edges only below: an existing one would become a self-loop
    src[i] = u;
    dst[i] = v;
    w[i] = 1 + Math.floor(rand() * 1000);
  }
  return { src, dst, w };
}

const MODES: DynamicSsspOptions[] = [{ relax: 'vertex' }, { relax: 'slab' }, {}];

describe('DynamicSssp', () => {
  for (const directed of [true, false]) {
    for (const options of MODES) {
      it(`updates distances after insertion batches (${directed ? 'directed' : 'undirected'}, relax ${options.relax ?? 'auto'})`, async () => {
        await gpuTest(async (device) => {
          const rand = mulberry32(directed ? 11 : 12);
          const edges = kronecker({ scale: 10, edgeFactor: 4, seed: 5, weights: [1, 1000] });
          const g = await DynamicGraph.fromEdgeList(device, { ...edges, directed });
          const model = new HostDynamicGraph(edges.vertexCount, directed);
          model.insertEdges(edges.src, edges.dst, edges.weights);
          // A source with out-edges, so that the first run reaches much of the graph.
          const source = model.adjacency.findIndex((a) => a.size > 3);
          const s = await DynamicSssp.create(g, source, options);
          await expectDistances(s, model, true, 'from scratch');
          expect(s.lastRun.iterations).toBeGreaterThan(1);
          for (let batch = 0; batch < 5; batch++) {
            if (batch === 2) {
              // New vertices (beyond the dictionary's capacity) joined by the next batches.
              const ids = Array.from({ length: 600 }, (_, k) => model.vertexCount + k);
              await g.insertVertices(ids);
              model.insertVertices(ids);
            }
            const { src, dst, w } = insertionBatch(model, 300 + batch * 200, model.vertexCount, rand);
            await g.insertEdges(src, dst, w);
            model.insertEdges(src, dst, w);
            const run = await s.afterInsert(src, dst);
            await expectDistances(s, model, true, `after batch ${batch}`);
            expect(run.submits).toBeGreaterThanOrEqual(1);
          }
          // The same batch again changes nothing: no vertex improves.
          const again = insertionBatch(model, 50, 64, rand);
          await g.insertEdges(again.src, again.dst, again.w);
          model.insertEdges(again.src, again.dst, again.w);
          await s.afterInsert(again.src, again.dst);
          const run = await s.afterInsert(again.src, again.dst);
          expect(run.iterations).toBe(0);
          await expectDistances(s, model, true, 'repeated batch');
          s.destroy();
          g.destroy();
        });
      });
    }
  }

  it('recomputes after deletions and raised weights; sssp from scratch on the set variant', async () => {
    await gpuTest(async (device) => {
      const edges = kronecker({ scale: 9, edgeFactor: 6, seed: 8, weights: [1, 50] });
      const g = await DynamicGraph.fromEdgeList(device, edges);
      const model = new HostDynamicGraph(edges.vertexCount, false);
      model.insertEdges(edges.src, edges.dst, edges.weights);
      const source = model.adjacency.findIndex((a) => a.size > 3);
      const s = await DynamicSssp.create(g, source);
      await expectDistances(s, model, true, 'start');
      // Delete edges of the shortest-path tree's neighbourhood and raise some weights: recompute.
      const del = { src: new Uint32Array(200), dst: new Uint32Array(200) };
      const rand = mulberry32(3);
      for (let i = 0; i < 200; i++) {
        const u = i < 20 ? source : Math.floor(rand() * 64);
        const keys = [...model.adjacency[u]!.keys()];
        del.src[i] = u;
        del.dst[i] = keys.length > 0 ? keys[Math.floor(rand() * keys.length)]! : (u + 1) % 64;
      }
      await g.deleteEdges(del.src, del.dst);
      model.deleteEdges(del.src, del.dst);
      const raise = {
        src: Uint32Array.of(source),
        dst: Uint32Array.of([...model.adjacency[source]!.keys()][0]!),
      };
      await g.insertEdges(raise.src, raise.dst, Uint32Array.of(10_000));
      model.insertEdges(raise.src, raise.dst, [10_000]);
      await s.recompute();
      await expectDistances(s, model, true, 'recomputed');
      // Vertex deletion, then recomputation from another source.
      await g.deleteVertices([source]);
      model.deleteVertices([source]);
      await expect(s.recompute()).rejects.toThrow(InputError);
      const other = model.adjacency.findIndex((a) => a.size > 2);
      await s.recompute(other);
      await expectDistances(s, model, true, 'after vertex deletion');
      s.destroy();
      g.destroy();

      // Set variant: every edge weighs 1 (BFS depths).
      const set = await DynamicGraph.fromEdgeList(device, {
        vertexCount: edges.vertexCount,
        src: edges.src,
        dst: edges.dst,
        directed: false,
      });
      const setModel = new HostDynamicGraph(edges.vertexCount, false);
      setModel.insertEdges(edges.src, edges.dst);
      const r = await dynamicSssp(set, source);
      expectArrayEqual(r.distances, ssspReference(modelAsCsr(setModel, false), source), 'set variant');
      set.destroy();
    });
  });

  it('handles a lone source, an empty batch, saturating sums and bad arguments', async () => {
    await gpuTest(async (device) => {
      const g = await DynamicGraph.create(device, { vertexCount: 4, directed: true, values: 'u32' });
      const s = await DynamicSssp.create(g, 0);
      expect(Array.from(await s.result())).toEqual([0, Infinity, Infinity, Infinity]);
      expect((await s.afterInsert(new Uint32Array(0), new Uint32Array(0))).iterations).toBe(0);
      // 0 -> 1 -> 2 with weights 2^31 + 2^30: the sum saturates at 2^32 - 2 (the distances array holds it),
      // and the result names the vertex instead of returning it; 3 stays unreached.
      const big = 0xc0000000;
      await g.insertEdges(Uint32Array.of(0, 1), Uint32Array.of(1, 2), Uint32Array.of(big, big));
      await s.afterInsert(Uint32Array.of(0, 1), Uint32Array.of(1, 2));
      expect(Array.from(await s.distances.download(0, 4))).toEqual([0, big, 0xfffffffe, 0xffffffff]);
      // The same words as @weft/algorithms' sssp, from the one helper both use.
      await expect(s.result()).rejects.toThrow(distanceOverflowError(false, 2, 'graph values').message);
      await expect(s.result()).rejects.toThrow(/^graph values: the distance of vertex 2 reached 2\^32 - 2/);
      await expect(dynamicSssp(g, 0)).rejects.toThrow(InputError);
      // Lowered below the bound, the distances come back.
      await g.insertEdges(Uint32Array.of(1), Uint32Array.of(2), Uint32Array.of(5));
      await s.afterInsert(Uint32Array.of(1), Uint32Array.of(2));
      expect(Array.from(await s.result())).toEqual([0, big, big + 5, Infinity]);
      await expect(s.afterInsert(Uint32Array.of(0), new Uint32Array(0))).rejects.toThrow(InputError);
      // An f32 array on the GPU failed to compile ('transform'); Int32Array ids were read as u32 words.
      const f32Ids = device.upload(Float32Array.of(1));
      await expect(s.afterInsert(f32Ids as never, Uint32Array.of(2))).rejects.toThrow(
        /src must be a DeviceArray<'u32'>/,
      );
      await expect(s.deleteEdges(Uint32Array.of(0), Int32Array.of(1) as never)).rejects.toThrow(
        /dst must be/,
      );
      f32Ids.destroy();
      // A typo'd relax fell back to 'auto'.
      await expect(DynamicSssp.create(g, 0, { relax: 'slabs' as never })).rejects.toThrow(/relax must be/);
      await expect(DynamicSssp.create(g, 0, { sweepMin: -1 })).rejects.toThrow(/sweepMin/);
      for (const maxIterations of [1.5, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(DynamicSssp.create(g, 0, { maxIterations })).rejects.toThrow(
          `DynamicSssp options: maxIterations must be an integer >= 0, got ${maxIterations}`,
        );
      }
      s.destroy();
      await expect(s.result()).rejects.toThrow(InputError);
      g.destroy();
      // A source the first run rejects leaves no arrays behind.
      const h = await DynamicGraph.create(device, { vertexCount: 4, directed: true, values: 'u32' });
      const live = device.pool.stats.liveBuffers;
      await expect(DynamicSssp.create(h, 4)).rejects.toThrow(/source 4 is not a vertex/);
      await expect(DynamicSssp.create(h, 1.5)).rejects.toThrow(InputError);
      expect(device.pool.stats.liveBuffers).toBe(live);
      h.destroy();
      const f = await DynamicGraph.create(device, { vertexCount: 2, directed: true, values: 'f32' });
      await expect(DynamicSssp.create(f, 0)).rejects.toThrow(InputError);
      f.destroy();
    });
  });
});

describe('DynamicSssp.deleteEdges', () => {
  for (const directed of [true, false]) {
    it(`updates distances after deletion batches, mixed with insertions (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        const rand = mulberry32(directed ? 41 : 42);
        const edges = kronecker({ scale: 10, edgeFactor: 6, seed: 13, weights: [1, 100] });
        const g = await DynamicGraph.fromEdgeList(device, { ...edges, directed });
        const model = new HostDynamicGraph(edges.vertexCount, directed);
        model.insertEdges(edges.src, edges.dst, edges.weights);
        const source = model.adjacency.findIndex((a) => a.size > 3);
        const s = await DynamicSssp.create(g, source);
        for (let round = 0; round < 5; round++) {
          // Deleted edges: the source's, edges near the top of the tree, and random ones (some absent).
          const want = ssspReference(modelAsCsr(model, true), source);
          const size = 100 + 80 * round;
          const del = { src: new Uint32Array(size), dst: new Uint32Array(size) };
          for (let i = 0; i < size; i++) {
            let u = i < 3 ? source : Math.floor(rand() * model.vertexCount);
            if (i % 3 === 1) {
              // An edge into a vertex at a small distance (likely a tree edge).
              const near = model.adjacency.findIndex((_, v) => want[v]! <= 60 && rand() < 0.05);
              if (near >= 0) u = near;
            }
            const keys = [...model.adjacency[u]!.keys()];
            del.src[i] = u;
            del.dst[i] =
              keys.length > 0 ? keys[Math.floor(rand() * keys.length)]! : (u + 1) % model.vertexCount;
          }
          await s.deleteEdges(del.src, del.dst);
          model.deleteEdges(del.src, del.dst);
          await expectDistances(s, model, true, `round ${round} deletions`);
          const ins = insertionBatch(model, 150, model.vertexCount, rand);
          await g.insertEdges(ins.src, ins.dst, ins.w);
          model.insertEdges(ins.src, ins.dst, ins.w);
          await s.afterInsert(ins.src, ins.dst);
          await expectDistances(s, model, true, `round ${round} insertions`);
        }
        // Deleting edges that no shortest path uses (absent ones) drops nothing.
        const run = await s.deleteEdges(Uint32Array.of(source), Uint32Array.of(source));
        expect(run.iterations).toBe(0);
        await expectDistances(s, model, true, 'no-op deletion');
        s.destroy();
        g.destroy();
      });
    });
  }

  it('falls back to recomputation when zero-weight edges are tight', async () => {
    await gpuTest(async (device) => {
      const edges = kronecker({ scale: 9, edgeFactor: 6, seed: 17, weights: [0, 2] });
      const g = await DynamicGraph.fromEdgeList(device, edges);
      const model = new HostDynamicGraph(edges.vertexCount, false);
      model.insertEdges(edges.src, edges.dst, edges.weights);
      const source = model.adjacency.findIndex((a) => a.size > 3);
      const s = await DynamicSssp.create(g, source);
      const rand = mulberry32(9);
      for (let round = 0; round < 3; round++) {
        const del = { src: new Uint32Array(300), dst: new Uint32Array(300) };
        for (let i = 0; i < 300; i++) {
          const u = i < 5 ? source : Math.floor(rand() * model.vertexCount);
          const keys = [...model.adjacency[u]!.keys()];
          del.src[i] = u;
          del.dst[i] = keys.length > 0 ? keys[Math.floor(rand() * keys.length)]! : 0;
        }
        await s.deleteEdges(del.src, del.dst);
        model.deleteEdges(del.src, del.dst);
        await expectDistances(s, model, true, `round ${round}`);
      }
      s.destroy();
      g.destroy();
    });
  });
});
