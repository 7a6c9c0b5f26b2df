import { pageRankReference, verifyPageRank } from '@weft/algorithms';
import { InputError, requestDevice, type WeftDevice } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import { grid, kronecker } from '@weft/graph/generators';
import { gpuTest, mulberry32, testSubgroups } from '@weft/testing';
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
      // Infinity passed every change (one iteration, "converged"), as in pageRank.
      for (const tolerance of [Number.POSITIVE_INFINITY, Number.NaN, -1]) {
        await expect(DynamicPageRank.create(g, { tolerance })).rejects.toThrow(
          `tolerance: tolerance must be a finite number >= 0, got ${tolerance}`,
        );
      }
      await expect(DynamicPageRank.create(g, { maxIterations: Number.POSITIVE_INFINITY })).rejects.toThrow(
        InputError,
      );
      for (const maxIterations of [1.5, -1, Number.NaN]) {
        await expect(DynamicPageRank.create(g, { maxIterations })).rejects.toThrow(
          `maxIterations: maxIterations must be an integer >= 0, got ${maxIterations}`,
        );
      }
      await expect(DynamicPageRank.create(g, { extrapolate: 'no' as never })).rejects.toThrow(/extrapolate/);
      const p = await DynamicPageRank.create(g);
      // -1 passed the range check (as a number it is below vertexCount) and reached the GPU as 2^32 - 1.
      await expect(p.insertEdges(Int32Array.of(-1) as never, Uint32Array.of(0))).rejects.toThrow(
        /src must be/,
      );
      p.destroy();
      await expect(p.update()).rejects.toThrow(InputError);
      g.destroy();
    });
  });
});

describe('DynamicPageRank.insertEdges / deleteEdges (residual push)', () => {
  /** Random edges among all ids (isolated ones too), some repeated, some self-loops. */
  function randomBatch(model: HostDynamicGraph, count: number, rand: () => number) {
    const all = Array.from({ length: model.vertexCount }, (_, v) => v);
    const { src, dst } = randomPairs(count, all, rand);
    src[0] = dst[0]!; // a self-loop
    if (count > 2) {
      src[1] = src[2]!;
      dst[1] = dst[2]!; // a repeat
    }
    return { src, dst };
  }

  function liveEdges(model: HostDynamicGraph, count: number, rand: () => number) {
    const live = model.adjacency.flatMap((adj, u) => [...adj.keys()].map((v) => [u, v] as const));
    const del = Array.from({ length: count }, () => live[Math.floor(rand() * live.length)]!);
    // An absent edge and a repeat: both ignored.
    const src = Uint32Array.from([...del.map((e) => e[0]), 0, del[0]![0]]);
    const dst = Uint32Array.from([...del.map((e) => e[1]), 0, del[0]![1]]);
    return { src, dst };
  }

  for (const directed of [false, true]) {
    it(`matches a from-scratch PageRank after every batch on a skewed graph (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        const rand = mulberry32(directed ? 11 : 12);
        // Kronecker: hubs, isolated ids (dangling), and, directed, sinks.
        const edges = kronecker({ scale: 8, edgeFactor: 4, seed: 5 });
        const g = await DynamicGraph.fromEdgeList(device, { ...edges, directed });
        const model = new HostDynamicGraph(edges.vertexCount, directed);
        model.insertEdges(edges.src, edges.dst);
        const p = await DynamicPageRank.create(g);
        for (let batch = 0; batch < 10; batch++) {
          let run: Awaited<ReturnType<DynamicPageRank['insertEdges']>>;
          if (batch % 3 === 2) {
            const { src, dst } = liveEdges(model, 1 + Math.floor(rand() * 30), rand);
            run = await p.deleteEdges(src, dst);
            model.deleteEdges(src, dst);
          } else {
            const { src, dst } = randomBatch(model, 1 + Math.floor(rand() * 40), rand);
            run = await p.insertEdges(src, dst);
            model.insertEdges(src, dst);
          }
          expect(run.converged, `batch ${batch}`).toBe(true);
          expect(verifyPageRank(snapshot(model), await p.result()), `batch ${batch}`).toBeNull();
        }
        // Every edge of the biggest hub deleted: it and, directed, its in-neighbours' shares change.
        const hub = model.adjacency.reduce(
          (best, adj, v) => (adj.size > model.adjacency[best]!.size ? v : best),
          0,
        );
        const out = [...model.adjacency[hub]!.keys()];
        const src = Uint32Array.from(out, () => hub);
        const dst = Uint32Array.from(out);
        await p.deleteEdges(src, dst);
        model.deleteEdges(src, dst);
        expect(verifyPageRank(snapshot(model), await p.result()), 'hub emptied').toBeNull();
        // Back again, from GPU arrays.
        const s = device.array('u32', src.length).upload(src);
        const t = device.array('u32', dst.length).upload(dst);
        await p.insertEdges(s, t);
        model.insertEdges(src, dst);
        expect(verifyPageRank(snapshot(model), await p.result()), 'hub refilled').toBeNull();
        // An empty batch changes nothing: one round that pushes nothing.
        expect((await p.insertEdges(new Uint32Array(0), new Uint32Array(0))).iterations).toBe(1);
        s.destroy();
        t.destroy();
        p.destroy();
        g.destroy();
      });
    });
  }

  it('follows a path, a star and vertex changes made to the graph directly', async () => {
    await gpuTest(async (device) => {
      // A path of 300 vertices (high diameter), then a star on top of it.
      const n = 300;
      const path = {
        src: Uint32Array.from({ length: n - 1 }, (_, i) => i),
        dst: Uint32Array.from({ length: n - 1 }, (_, i) => i + 1),
      };
      const g = await DynamicGraph.fromEdgeList(device, { vertexCount: n, ...path, directed: false });
      const model = new HostDynamicGraph(n, false);
      model.insertEdges(path.src, path.dst);
      const p = await DynamicPageRank.create(g);
      const close = { src: Uint32Array.of(0), dst: Uint32Array.of(n - 1) };
      await p.insertEdges(close.src, close.dst);
      model.insertEdges(close.src, close.dst);
      expect(verifyPageRank(snapshot(model), await p.result()), 'cycle').toBeNull();
      const star = {
        src: Uint32Array.from({ length: 257 }, () => 5),
        dst: Uint32Array.from({ length: 257 }, (_, i) => (i * 7 + 11) % n),
      };
      await p.insertEdges(star.src, star.dst);
      model.insertEdges(star.src, star.dst);
      expect(verifyPageRank(snapshot(model), await p.result()), 'star').toBeNull();
      await p.deleteEdges(path.src.subarray(100, 200), path.dst.subarray(100, 200));
      model.deleteEdges(path.src.subarray(100, 200), path.dst.subarray(100, 200));
      expect(verifyPageRank(snapshot(model), await p.result()), 'path cut').toBeNull();
      // New ids: the scores do not cover them, so the batch falls back to a warm power iteration.
      await g.insertVertices([n, n + 1]);
      model.insertVertices([n, n + 1]);
      const join = { src: Uint32Array.of(n, n + 1), dst: Uint32Array.of(5, n) };
      await p.insertEdges(join.src, join.dst);
      model.insertEdges(join.src, join.dst);
      expect(verifyPageRank(snapshot(model), await p.result()), 'new ids').toBeNull();
      await p.deleteEdges(Uint32Array.of(n), Uint32Array.of(5));
      model.deleteEdges(Uint32Array.of(n), Uint32Array.of(5));
      expect(verifyPageRank(snapshot(model), await p.result()), 'after the fallback').toBeNull();
      // Changes made to the graph directly (the id count unchanged): the next batch sees them.
      await g.deleteVertices([7]);
      model.deleteVertices([7]);
      await g.insertEdges(Uint32Array.of(20), Uint32Array.of(250));
      model.insertEdges([20], [250]);
      await p.insertEdges(Uint32Array.of(30), Uint32Array.of(31));
      model.insertEdges([30], [31]);
      expect(verifyPageRank(snapshot(model), await p.result()), 'after direct changes').toBeNull();
      await expect(p.insertEdges(Uint32Array.of(1), Uint32Array.of())).rejects.toThrow(InputError);
      await expect(p.insertEdges(Uint32Array.of(n + 2), Uint32Array.of(0))).rejects.toThrow(InputError);
      p.destroy();
      await expect(p.deleteEdges(Uint32Array.of(1), Uint32Array.of(2))).rejects.toThrow(InputError);
      g.destroy();
    });
  });

  it('handles an empty graph, one vertex, a hub on one slab chain, a grid and a rejected batch', async () => {
    await gpuTest(async (device) => {
      const empty = await DynamicGraph.create(device, { vertexCount: 0, directed: false });
      const p0 = await DynamicPageRank.create(empty);
      expect((await p0.insertEdges(new Uint32Array(0), new Uint32Array(0))).iterations).toBe(0);
      expect(await p0.result()).toEqual(new Float32Array(0));
      p0.destroy();
      empty.destroy();
      const one = await DynamicGraph.create(device, { vertexCount: 1, directed: true });
      const p1 = await DynamicPageRank.create(one);
      await p1.insertEdges(Uint32Array.of(0), Uint32Array.of(0));
      expect(Array.from(await p1.result())).toEqual([1]);
      p1.destroy();
      one.destroy();
      // A star built without degree hints: the hub's one bucket is a chain of slabs; 257 leaves straddle a
      // workgroup's worth of keys. Directed: leaves point at the hub, which is dangling until it points back.
      for (const directed of [false, true]) {
        const n = 258;
        const g = await DynamicGraph.create(device, { vertexCount: n, directed });
        const model = new HostDynamicGraph(n, directed);
        const p = await DynamicPageRank.create(g);
        const leaves = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
        const hub = new Uint32Array(n - 1);
        for (const [src, dst] of [
          [leaves, hub],
          [hub.subarray(0, 64), leaves.subarray(0, 64)],
        ] as const) {
          await p.insertEdges(src, dst);
          model.insertEdges(src, dst);
          expect(verifyPageRank(snapshot(model), await p.result()), `star ${directed}`).toBeNull();
        }
        await p.deleteEdges(leaves.subarray(100, 256), hub.subarray(100, 256));
        model.deleteEdges(leaves.subarray(100, 256), hub.subarray(100, 256));
        expect(verifyPageRank(snapshot(model), await p.result()), `star cut ${directed}`).toBeNull();
        // A batch the graph rejects (an id past the vertices) leaves the ranks' state as it was.
        await expect(p.insertEdges(Uint32Array.of(1, n), Uint32Array.of(2, 0))).rejects.toThrow(InputError);
        await p.insertEdges(Uint32Array.of(1), Uint32Array.of(2));
        model.insertEdges([1], [2]);
        expect(
          verifyPageRank(snapshot(model), await p.result()),
          `after a rejected batch ${directed}`,
        ).toBeNull();
        p.destroy();
        g.destroy();
      }
      // A 16 x 16 grid (diameter 30), cut in two and joined again.
      const edges = grid({ width: 16, height: 16 });
      const g = await DynamicGraph.fromEdgeList(device, edges);
      const model = new HostDynamicGraph(edges.vertexCount, false);
      model.insertEdges(edges.src, edges.dst);
      const p = await DynamicPageRank.create(g);
      const cut = {
        src: Uint32Array.from({ length: 16 }, (_, i) => i * 16 + 7),
        dst: Uint32Array.from({ length: 16 }, (_, i) => i * 16 + 8),
      };
      await p.deleteEdges(cut.src, cut.dst);
      model.deleteEdges(cut.src, cut.dst);
      expect(verifyPageRank(snapshot(model), await p.result()), 'grid cut').toBeNull();
      await p.insertEdges(cut.src.subarray(0, 1), cut.dst.subarray(0, 1));
      model.insertEdges(cut.src.subarray(0, 1), cut.dst.subarray(0, 1));
      expect(verifyPageRank(snapshot(model), await p.result()), 'grid joined').toBeNull();
      p.destroy();
      g.destroy();
    });
  });
});

describe('DynamicPageRank push shortcuts (extrapolate)', () => {
  type Batch = { kind: 'insert' | 'delete'; src: Uint32Array; dst: Uint32Array; what: string };

  function isolated(model: HostDynamicGraph): number[] {
    return model.adjacency.flatMap((adj, v) => (adj.size === 0 && model.alive[v] ? [v] : []));
  }

  function live(model: HostDynamicGraph): [number, number][] {
    return model.adjacency.flatMap((adj, u) => [...adj.keys()].map((v) => [u, v] as [number, number]));
  }

  /** New components from isolated vertices: pairs, three-vertex paths and a four-leaf star. */
  function tinyComponents(model: HostDynamicGraph, rand: () => number): Batch {
    const free = isolated(model).sort(() => rand() - 0.5);
    const src: number[] = [];
    const dst: number[] = [];
    let at = 0;
    const take = () => free[at++]!;
    for (let k = 0; k < 6 && at + 2 <= free.length; k++) {
      src.push(take());
      dst.push(take());
    }
    for (let k = 0; k < 3 && at + 3 <= free.length; k++) {
      const [a, b, c] = [take(), take(), take()];
      src.push(a, b);
      dst.push(b, c);
    }
    if (at + 5 <= free.length) {
      const hub = take();
      for (let k = 0; k < 4; k++) {
        src.push(hub);
        dst.push(take());
      }
    }
    // Directed: both ways, so that the new components have cycles (a geometric tail) too.
    const both = model.directed;
    return {
      kind: 'insert',
      src: Uint32Array.from(both ? [...src, ...dst] : src),
      dst: Uint32Array.from(both ? [...dst, ...src] : dst),
      what: 'tiny components',
    };
  }

  function randomInserts(model: HostDynamicGraph, count: number, rand: () => number): Batch {
    const n = model.vertexCount;
    const one = () => Math.floor(rand() * n);
    return {
      kind: 'insert',
      src: Uint32Array.from({ length: count }, one),
      dst: Uint32Array.from({ length: count }, one),
      what: `${count} random inserts`,
    };
  }

  function randomDeletes(model: HostDynamicGraph, count: number, rand: () => number): Batch {
    const edges = live(model);
    const del = Array.from({ length: count }, () => edges[Math.floor(rand() * edges.length)]!);
    return {
      kind: 'delete',
      src: Uint32Array.from(del, (e) => e[0]),
      dst: Uint32Array.from(del, (e) => e[1]),
      what: `${count} random deletes`,
    };
  }

  /** The biggest hub joined to isolated vertices, or cut from half its neighbours. */
  function hubBatch(model: HostDynamicGraph, kind: 'insert' | 'delete'): Batch {
    const hub = model.adjacency.reduce(
      (best, adj, v) => (adj.size > model.adjacency[best]!.size ? v : best),
      0,
    );
    const others = kind === 'insert' ? isolated(model).slice(0, 20) : [...model.adjacency[hub]!.keys()];
    const picked = kind === 'insert' ? others : others.filter((_, i) => i % 2 === 0);
    return {
      kind,
      src: Uint32Array.from(picked, () => hub),
      dst: Uint32Array.from(picked),
      what: `hub ${kind}`,
    };
  }

  async function apply(p: DynamicPageRank, model: HostDynamicGraph, b: Batch) {
    const run = b.kind === 'insert' ? await p.insertEdges(b.src, b.dst) : await p.deleteEdges(b.src, b.dst);
    if (b.kind === 'insert') model.insertEdges(b.src, b.dst);
    else model.deleteEdges(b.src, b.dst);
    return run;
  }

  for (const directed of [false, true]) {
    it(`matches the reference after every batch, in no more rounds than plain pushes (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        const rand = mulberry32(directed ? 21 : 22);
        const edges = kronecker({ scale: 9, edgeFactor: 6, seed: 7 });
        const graphs = await Promise.all(
          [0, 1].map(() => DynamicGraph.fromEdgeList(device, { ...edges, directed })),
        );
        const models = [0, 1].map(() => new HostDynamicGraph(edges.vertexCount, directed));
        for (const m of models) m.insertEdges(edges.src, edges.dst);
        const fast = await DynamicPageRank.create(graphs[0]!);
        const plain = await DynamicPageRank.create(graphs[1]!, { extrapolate: false });
        expect(fast.extrapolate && !plain.extrapolate).toBe(true);
        const model = models[0]!;
        const rounds = { fast: 0, plain: 0 };
        const plan: ((m: HostDynamicGraph) => Batch)[] = [
          () => ({ kind: 'insert', src: new Uint32Array(0), dst: new Uint32Array(0), what: 'empty' }),
          (m) => tinyComponents(m, rand),
          (m) => randomInserts(m, 60, rand),
          (m) => randomDeletes(m, 40, rand),
          (m) => {
            const [u, v] = live(m)[Math.floor(rand() * live(m).length)]!;
            return { kind: 'delete', src: Uint32Array.of(u), dst: Uint32Array.of(v), what: 'one delete' };
          },
          (m) => randomInserts(m, 1, rand),
          (m) => hubBatch(m, 'insert'),
          (m) => randomInserts(m, 200, rand),
          (m) => hubBatch(m, 'delete'),
          (m) => tinyComponents(m, rand),
          (m) => randomDeletes(m, 150, rand),
        ];
        for (const make of plan) {
          const b = make(model);
          const runs = [await apply(fast, models[0]!, b), await apply(plain, models[1]!, b)];
          for (const [i, run] of runs.entries()) {
            const p = i === 0 ? fast : plain;
            expect(run.converged, `${b.what} ${i}`).toBe(true);
            expect(verifyPageRank(snapshot(models[i]!), await p.result()), `${b.what} ${i}`).toBeNull();
          }
          rounds.fast += runs[0]!.iterations;
          rounds.plain += runs[1]!.iterations;
          // An empty batch still takes one round that pushes nothing.
          if (b.what === 'empty') expect(runs.map((r) => r.iterations)).toEqual([1, 1]);
          // Pairs, paths and a star fade geometrically (paths and stars alternating): plain pushes take
          // about 60 rounds, extrapolation a few.
          if (b.what === 'tiny components') expect(runs[0]!.iterations, b.what).toBeLessThanOrEqual(8);
        }
        expect(rounds.fast, JSON.stringify(rounds)).toBeLessThan(0.75 * rounds.plain);
        // A from-scratch run on the same graph agrees too.
        const scratch = await dynamicPageRank(graphs[0]!);
        expect(verifyPageRank(snapshot(model), scratch.ranks)).toBeNull();
        fast.destroy();
        plain.destroy();
        for (const g of graphs) g.destroy();
      });
    });
  }

  it('joins isolated vertices to a skewed graph in under half the rounds of plain pushes (undirected)', async () => {
    await gpuTest(async (device) => {
      // Each join adds to the residual's sum, which plain pushes shrink only by alpha a round.
      const edges = kronecker({ scale: 9, edgeFactor: 6, seed: 7 });
      const model = new HostDynamicGraph(edges.vertexCount, false);
      model.insertEdges(edges.src, edges.dst);
      const rand = mulberry32(3);
      const free = isolated(model);
      const joined = withEdges(model);
      const src = Uint32Array.from(free.slice(0, 40));
      const dst = Uint32Array.from(src, () => joined[Math.floor(rand() * joined.length)]!);
      model.insertEdges(src, dst);
      const rounds: number[] = [];
      for (const extrapolate of [true, false]) {
        const g = await DynamicGraph.fromEdgeList(device, { ...edges, directed: false });
        const p = await DynamicPageRank.create(g, { extrapolate });
        const run = await p.insertEdges(src, dst);
        expect(run.converged).toBe(true);
        expect(verifyPageRank(snapshot(model), await p.result()), `extrapolate ${extrapolate}`).toBeNull();
        rounds.push(run.iterations);
        p.destroy();
        g.destroy();
      }
      expect(rounds[0]!, `${rounds}`).toBeLessThan(0.5 * rounds[1]!);
    });
  });

  it('takes the shortcuts at another alpha and tolerance', async () => {
    await gpuTest(async (device) => {
      const rand = mulberry32(31);
      const edges = kronecker({ scale: 8, edgeFactor: 4, seed: 9 });
      for (const directed of [false, true]) {
        const g = await DynamicGraph.fromEdgeList(device, { ...edges, directed });
        const model = new HostDynamicGraph(edges.vertexCount, directed);
        model.insertEdges(edges.src, edges.dst);
        const p = await DynamicPageRank.create(g, { alpha: 0.6, tolerance: 1e-6 });
        for (const b of [
          tinyComponents(model, rand),
          randomInserts(model, 50, rand),
          randomDeletes(model, 50, rand),
        ]) {
          const run = await apply(p, model, b);
          expect(run.converged, b.what).toBe(true);
          if (b.what === 'tiny components') expect(run.iterations, b.what).toBeLessThanOrEqual(8);
          const got = await p.result();
          expect(verifyPageRank(snapshot(model), got, { alpha: 0.6, relTolerance: 2e-5 }), b.what).toBeNull();
        }
        p.destroy();
        g.destroy();
      }
    });
  });

  for (const directed of [false, true]) {
    it(`ends a new two-vertex component's geometric tail at once (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        // Isolated vertices only: an edge (both ways when directed) makes a component whose residual fades
        // by alpha a round, about 60 rounds of plain pushes to reach the tolerance.
        const n = 64;
        const rounds: number[] = [];
        for (const extrapolate of [true, false]) {
          const g = await DynamicGraph.create(device, { vertexCount: n, directed });
          const model = new HostDynamicGraph(n, directed);
          const p = await DynamicPageRank.create(g, { extrapolate });
          const src = directed ? Uint32Array.of(3, 4, 10, 11) : Uint32Array.of(3, 10);
          const dst = directed ? Uint32Array.of(4, 3, 11, 10) : Uint32Array.of(4, 11);
          const run = await p.insertEdges(src, dst);
          model.insertEdges(src, dst);
          expect(run.converged).toBe(true);
          expect(verifyPageRank(snapshot(model), await p.result())).toBeNull();
          rounds.push(run.iterations);
          p.destroy();
          g.destroy();
        }
        // Undirected, the degree vector is the pairs' whole residual: moving the sum ends it at once.
        expect(rounds[0], `${rounds}`).toBeLessThanOrEqual(directed ? 4 : 1);
        expect(rounds[1], `${rounds}`).toBeGreaterThan(40);
      });
    });
  }
});

type EdgeBatch = { src: Uint32Array; dst: Uint32Array; del: boolean };

/**
 * Applies `batches` to a DynamicPageRank on `edges` with each way of counting a push (per workgroup, per
 * thread), checking convergence and the ranks against the reference after every batch.
 */
async function expectBatchesInBothModes(
  device: WeftDevice,
  edges: { vertexCount: number; src: Uint32Array; dst: Uint32Array; directed: boolean },
  batches: readonly EdgeBatch[],
) {
  for (const mode of ['per-workgroup', 'per-thread'] as const) {
    const g = await DynamicGraph.fromEdgeList(device, edges);
    const model = new HostDynamicGraph(edges.vertexCount, edges.directed);
    model.insertEdges(edges.src, edges.dst);
    const p = await DynamicPageRank.create(g);
    p.pushAtomics = mode;
    for (const [k, b] of batches.entries()) {
      const run = b.del ? await p.deleteEdges(b.src, b.dst) : await p.insertEdges(b.src, b.dst);
      if (b.del) model.deleteEdges(b.src, b.dst);
      else model.insertEdges(b.src, b.dst);
      expect(run.converged, `${mode} batch ${k}`).toBe(true);
      expect(verifyPageRank(snapshot(model), await p.result()), `${mode} batch ${k}`).toBeNull();
    }
    p.destroy();
    g.destroy();
  }
}

describe('DynamicPageRank push counters (per workgroup and per thread)', () => {
  for (const directed of [false, true]) {
    it(`matches the reference when thousands of vertices push at once, a hub among them (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        // A ring of 2500 with a hub pointing at every ring vertex (many base buckets), and 1000 isolated
        // ids: the first batch gives every ring vertex a new out-edge, so the passes of shares and the first
        // folds count and list thousands of pushers over several workgroups, and joins the isolated ids in
        // pairs (both ways when directed), whose tails end by extrapolation: queue appends from the fold.
        const ring = 2500;
        const n = ring + 1000;
        const src: number[] = [];
        const dst: number[] = [];
        for (let v = 0; v < ring; v++) {
          src.push(v, 0);
          dst.push((v + 1) % ring, v);
        }
        const edges = { vertexCount: n, src: Uint32Array.from(src), dst: Uint32Array.from(dst), directed };
        const chords = Uint32Array.from({ length: ring }, (_, v) => (v * 7 + 3) % ring);
        const ids = Uint32Array.from({ length: ring }, (_, v) => v);
        const left = Uint32Array.from({ length: 500 }, (_, k) => ring + 2 * k);
        const right = Uint32Array.from(left, (v) => v + 1);
        const batches = [
          {
            src: Uint32Array.from([...ids, ...left, ...(directed ? right : [])]),
            dst: Uint32Array.from([...chords, ...right, ...(directed ? left : [])]),
            del: false,
          },
          {
            src: new Uint32Array(ring / 2),
            dst: Uint32Array.from({ length: ring / 2 }, (_, k) => 2 * k + 1),
            del: true,
          },
          { src: ids.subarray(0, 1200), dst: chords.subarray(0, 1200), del: true },
          // The hub's other edges: it ends isolated (undirected) or dangling, its score's fall summed in f32.
          {
            src: new Uint32Array(ring / 2),
            dst: Uint32Array.from({ length: ring / 2 }, (_, k) => 2 * k),
            del: true,
          },
        ];
        await expectBatchesInBothModes(device, edges, batches);
      });
    });
  }

  for (const directed of [false, true]) {
    it(`matches the reference when one hub reaches more keys than a workgroup stashes (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        // A hub pointing at 9000 leaves, its buckets within one workgroup's listed items: a push from it
        // reaches more keys than the workgroup's stash holds, so slabs past it append to the queue themselves.
        const leaves = 9000;
        const n = leaves + 2;
        const edges = {
          vertexCount: n,
          src: new Uint32Array(leaves),
          dst: Uint32Array.from({ length: leaves }, (_, k) => k + 1),
          directed,
        };
        const batches = [
          { src: Uint32Array.of(0), dst: Uint32Array.of(n - 1), del: false },
          {
            src: new Uint32Array(leaves / 2),
            dst: Uint32Array.from({ length: leaves / 2 }, (_, k) => 2 * k + 1),
            del: true,
          },
          { src: Uint32Array.of(0), dst: Uint32Array.of(n - 1), del: true },
        ];
        await expectBatchesInBothModes(device, edges, batches);
      });
    });
  }
});

describe('DynamicPageRank residual accuracy (f32)', () => {
  for (const directed of [false, true]) {
    it(`matches the reference after a hub loses every edge, its residual summed from far larger shares (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        // A ring of 100 with a hub joined to every ring vertex (directed: every ring vertex points at it),
        // chords added, then every hub edge deleted: the hub's score of about 100 (directed 30) falls to 1
        // through a residual summed in f32 from shares of that size, off by their ulps, more than the
        // tolerance times 1; the stored residual said 0. 1000 isolated ids as in the counters' test.
        const ring = 100;
        const n = ring + 1000;
        const src: number[] = [];
        const dst: number[] = [];
        for (let v = 0; v < ring; v++) {
          src.push(v, directed ? v : 0);
          dst.push((v + 1) % ring, directed ? 0 : v);
        }
        const edges = { vertexCount: n, src: Uint32Array.from(src), dst: Uint32Array.from(dst), directed };
        const ids = Uint32Array.from({ length: ring }, (_, v) => v);
        const chords = Uint32Array.from(ids, (v) => (v * 7 + 3) % ring);
        for (const extrapolate of [true, false]) {
          for (const mode of ['per-workgroup', 'per-thread'] as const) {
            const what = `extrapolate ${extrapolate}, ${mode}`;
            const g = await DynamicGraph.fromEdgeList(device, edges);
            const model = new HostDynamicGraph(n, directed);
            model.insertEdges(edges.src, edges.dst);
            const p = await DynamicPageRank.create(g, { extrapolate });
            p.pushAtomics = mode;
            await p.insertEdges(ids, chords);
            model.insertEdges(ids, chords);
            const hub = new Uint32Array(ring);
            const [from, to] = directed ? [ids, hub] : [hub, ids];
            const run = await p.deleteEdges(from, to);
            model.deleteEdges(from, to);
            expect(run.converged, what).toBe(true);
            expect(verifyPageRank(snapshot(model), await p.result()), what).toBeNull();
            // The residuals kept are those of the scores, within the tolerance times the score.
            const y = await p.scores.download(0, n);
            const kept = await p.residuals.download(0, n);
            const degrees = model.degrees();
            const inflow = new Float64Array(n);
            model.adjacency.forEach((adj, u) => {
              for (const v of adj.keys()) inflow[v]! += (0.85 * y[u]!) / degrees[u]!;
            });
            for (let v = 0; v < n; v++) {
              const drift = Math.abs(1 + inflow[v]! - y[v]! - kept[v]!);
              if (!(drift <= 1e-5 * y[v]!))
                expect(drift, `${what}: residual of vertex ${v}`).toBeLessThanOrEqual(1e-5 * y[v]!);
            }
            p.destroy();
            g.destroy();
          }
        }
      });
    });
  }
});

// Browsers often grant 10 storage buffers a stage: every push kernel (the fold binds the most) must fit.
describe('DynamicPageRank with maxStorageBuffersPerShaderStage = 10', () => {
  for (const directed of [false, true]) {
    it(`matches the reference after batches, per workgroup and per thread (${directed ? 'directed' : 'undirected'})`, async () => {
      process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
      const device = await requestDevice({
        label: 'limit 10',
        features: testSubgroups() ? {} : { subgroups: false },
        limits: { maxStorageBuffersPerShaderStage: 10 },
      });
      try {
        expect(device.limits.maxStorageBuffersPerShaderStage).toBe(10);
        const rand = mulberry32(directed ? 11 : 12);
        const edges = { ...kronecker({ scale: 9, edgeFactor: 4, seed: 5 }), directed };
        const n = edges.vertexCount;
        const all = Array.from({ length: n }, (_, v) => v);
        for (const mode of ['per-workgroup', 'per-thread'] as const) {
          const g = await DynamicGraph.fromEdgeList(device, edges);
          const model = new HostDynamicGraph(n, directed);
          model.insertEdges(edges.src, edges.dst);
          const p = await DynamicPageRank.create(g);
          p.pushAtomics = mode;
          expect(verifyPageRank(snapshot(model), await p.result()), `${mode} cold`).toBeNull();
          // Small batches push from a few vertices (bucket lists), large ones sweep every slab; deletions take
          // edges of the graph.
          const batches = [
            { size: 8, at: -1 },
            { size: 1200, at: 0 },
            { size: 2000, at: -1 },
            { size: 40, at: 1200 },
          ];
          for (const [k, { size, at }] of batches.entries()) {
            const del = at >= 0;
            const b = del
              ? { src: edges.src.subarray(at, at + size), dst: edges.dst.subarray(at, at + size) }
              : randomPairs(size, all, rand);
            const run = del ? await p.deleteEdges(b.src, b.dst) : await p.insertEdges(b.src, b.dst);
            if (del) model.deleteEdges(b.src, b.dst);
            else model.insertEdges(b.src, b.dst);
            expect(run.converged, `${mode} batch ${k}`).toBe(true);
            expect(verifyPageRank(snapshot(model), await p.result()), `${mode} batch ${k}`).toBeNull();
          }
          p.destroy();
          g.destroy();
        }
      } finally {
        device.destroy();
      }
    });
  }
});
