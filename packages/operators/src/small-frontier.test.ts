import { atomic, rw, u32, type WeftDevice, wgsl } from '@weft/gpu';
import {
  FrontierQueue,
  type HostCsr,
  type HostEdgeList,
  hostCsrFromEdgeList,
  uploadGraph,
} from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { advancePush } from './advance.ts';
import {
  advanceSmallFrontier,
  SMALL_FRONTIER_EXIT,
  SmallFrontierState,
  smallFrontierCapacity,
  smallFrontierWorkgroupSize,
} from './small-frontier.ts';

const UNREACHED = 0xffffffff;

function undirected(vertexCount: number, pairs: [number, number][]): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount,
    src: Uint32Array.from(pairs, (p) => p[0]),
    dst: Uint32Array.from(pairs, (p) => p[1]),
    directed: false,
  }).csr;
}

const csrOf = (edges: HostEdgeList) => hostCsrFromEdgeList(edges).csr;

/** A path 0 - 1 - ... - (n - 1). */
function path(n: number): HostCsr {
  return undirected(
    n,
    Array.from({ length: Math.max(0, n - 1) }, (_, i): [number, number] => [i, i + 1]),
  );
}

/**
 * A broom: a path of `handle` vertices whose last vertex is a hub with `bristles` neighbours, each with a twig
 * of its own, every twig joined to one knot, then a path of `tail` more vertices. BFS from 0: one vertex a
 * level, then `bristles` twice (every bristle must be in its level's frontier to reach its twig), then one.
 */
function broom(handle: number, bristles: number, tail: number): HostCsr {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < handle; i++) pairs.push([i, i + 1]);
  const hub = handle - 1;
  const knot = handle + 2 * bristles;
  for (let j = 0; j < bristles; j++) {
    pairs.push([hub, handle + j]);
    pairs.push([handle + j, handle + bristles + j]);
    pairs.push([handle + bristles + j, knot]);
  }
  for (let t = 0; t < tail; t++) pairs.push([knot + t, knot + t + 1]);
  return undirected(knot + tail + 1, pairs);
}

/** Level-synchronous BFS depths from `sources` (UNREACHED for the rest). */
function hostBfs(csr: HostCsr, sources: readonly number[]): Uint32Array {
  const depth = new Uint32Array(csr.vertexCount).fill(UNREACHED);
  let frontier: number[] = [];
  for (const s of sources) {
    if (depth[s] !== 0) frontier.push(s);
    depth[s] = 0;
  }
  for (let d = 1; frontier.length > 0; d++) {
    const next: number[] = [];
    for (const v of frontier) {
      for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
        const w = csr.targets[e]!;
        if (depth[w] === UNREACHED) {
          depth[w] = d;
          next.push(w);
        }
      }
    }
    frontier = next;
  }
  return depth;
}

/** Levels a BFS runs: one per non-empty frontier (the deepest level expands into nothing). */
function levelCount(depth: Uint32Array): number {
  let max = -1;
  for (const d of depth) if (d !== UNREACHED) max = Math.max(max, d);
  return max + 1;
}

interface BfsRun {
  depth: Uint32Array;
  /** For each reached non-source vertex, the CSR edge that claimed it. */
  parentEdge: Uint32Array;
  engineLevels: number;
  bulkLevels: number;
  /** The engine's exit per call. */
  exits: number[];
  calls: number;
}

/**
 * BFS as an integration would drive it: each round, the engine runs as many levels as it can in place on the
 * queue's current frontier, then one bulk level (`advancePush`) takes whatever it left into `next`. The host
 * reads the state back each round only to stop and to check; the GPU never waits for it.
 */
async function bfs(
  device: WeftDevice,
  csr: HostCsr,
  sources: readonly number[],
  options: {
    maxLevels?: number;
    capacity?: number;
    workgroupSize?: number;
    bulk?: boolean;
    direction?: 'out' | 'both';
  } = {},
): Promise<BfsRun> {
  const n = csr.vertexCount;
  const graph = uploadGraph(device, csr, { csc: csr.directed && options.direction === 'both' });
  const init = new Uint32Array(n).fill(UNREACHED);
  for (const s of sources) init[s] = 0;
  const depth = device.upload(init);
  const parentEdge = device.upload(new Uint32Array(Math.max(1, n)).fill(UNREACHED));
  const queue = new FrontierQueue(device, n);
  queue.set([...new Set(sources)]);
  const state = new SmallFrontierState(device, { itemsPerWorkgroup: [256, 1024] });
  const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let d = atomicLoad(&${atomic(depth)}[src]) + 1u;
  if (atomicMin(&${atomic(depth)}[dst], d) > d) {
    ${rw(parentEdge)}[dst] = edge;
    return true;
  }
  return false;
}`;
  const run: BfsRun = { depth: init, parentEdge: init, engineLevels: 0, bulkLevels: 0, exits: [], calls: 0 };
  for (let round = 0; ; round++) {
    if (round > n + 2) throw new Error('BFS did not converge');
    const rec = device.recorder();
    const { bulk: _, ...engine } = options;
    await advanceSmallFrontier(rec, graph, queue.current, claim, { state, ...engine });
    if (options.bulk !== false) {
      await advancePush(rec, graph, queue.current, claim, { output: queue.next, loadBalance: 'auto' });
      if (options.direction === 'both' && csr.directed) {
        await advancePush(rec, graph, queue.current, claim, {
          output: queue.next,
          loadBalance: 'auto',
          direction: 'in',
          append: true,
        });
      }
      queue.swap();
    }
    await rec.submit();
    const s = await state.read();
    run.calls++;
    run.exits.push(s.exit);
    run.engineLevels = s.levelsTotal;
    if (s.frontierLength > 0 && options.bulk !== false) run.bulkLevels++;
    if ((await queue.readLength()) === 0) break;
  }
  run.depth = await depth.download();
  run.parentEdge = await parentEdge.download();
  for (const a of [graph, depth, parentEdge, queue, state]) a.destroy();
  return run;
}

/** Checks depths against the host BFS, every claimed parent edge, and the level count. */
function expectBfs(csr: HostCsr, sources: readonly number[], run: BfsRun): void {
  const want = hostBfs(csr, sources);
  expectArrayEqual(run.depth, want, 'depths');
  const sourceSet = new Set(sources);
  for (let v = 0; v < csr.vertexCount; v++) {
    if (want[v] === UNREACHED || sourceSet.has(v)) {
      expect(run.parentEdge[v], `parent edge of ${v}`).toBe(UNREACHED);
      continue;
    }
    const e = run.parentEdge[v]!;
    expect(csr.targets[e], `target of ${v}'s parent edge`).toBe(v);
    let u = 0;
    while (csr.offsets[u + 1]! <= e) u++;
    expect(want[u]! + 1, `depth of ${v}'s parent`).toBe(want[v]);
  }
  expect(run.engineLevels + run.bulkLevels, 'levels').toBe(levelCount(want));
}

describe('advanceSmallFrontier', () => {
  it('sizes itself from the device limits', () =>
    gpuTest(async (device) => {
      const cap = smallFrontierCapacity(device);
      expect(cap % 256).toBe(0);
      expect(cap * 8).toBeLessThanOrEqual(device.limits.maxComputeWorkgroupStorageSize - 1024);
      expect(smallFrontierWorkgroupSize(device)).toBeLessThanOrEqual(
        device.limits.maxComputeInvocationsPerWorkgroup,
      );
      expect(smallFrontierWorkgroupSize(device, 256)).toBe(256);
    }));

  it('a path: thousands of levels in one dispatch', () =>
    gpuTest(async (device) => {
      const csr = path(3000);
      const run = await bfs(device, csr, [0], { bulk: false });
      expectBfs(csr, [0], run);
      expect(run.engineLevels).toBe(3000);
      expect(run.calls).toBe(1);
      expect(run.exits).toEqual([SMALL_FRONTIER_EXIT.empty]);
    }));

  it('a path from its middle, 256 threads', () =>
    gpuTest(async (device) => {
      const csr = path(1001);
      const run = await bfs(device, csr, [500], { bulk: false, workgroupSize: 256 });
      expectBfs(csr, [500], run);
      expect(run.calls).toBe(1);
    }));

  it('a level bound: calls resume where the last one stopped', () =>
    gpuTest(async (device) => {
      const csr = path(1000);
      const run = await bfs(device, csr, [0], { bulk: false, maxLevels: 96 });
      expectBfs(csr, [0], run);
      expect(run.calls).toBe(Math.ceil(1000 / 96));
      expect(run.exits.slice(0, -1).every((e) => e === SMALL_FRONTIER_EXIT.levelBound)).toBe(true);
      expect(run.exits.at(-1)).toBe(SMALL_FRONTIER_EXIT.empty);
    }));

  it('a grid from a corner and from its centre', () =>
    gpuTest(async (device) => {
      const csr = csrOf(grid({ width: 61, height: 47 }));
      for (const source of [0, 23 * 61 + 30]) {
        const run = await bfs(device, csr, [source], { bulk: false });
        expectBfs(csr, [source], run);
        expect(run.calls).toBe(1);
      }
    }));

  it('a road-like graph, from one source and from several', () =>
    gpuTest(async (device) => {
      const csr = csrOf(road({ width: 90, height: 70, seed: 7 }));
      for (const sources of [[0], [6299, 17, 3000]]) {
        const run = await bfs(device, csr, sources, { capacity: 256 });
        expectBfs(csr, sources, run);
        expect(run.bulkLevels).toBe(0);
      }
    }));

  it('a grid whose frontier outgrows the capacity and shrinks again: bulk levels in between', () =>
    gpuTest(async (device) => {
      // From the centre the frontier is a diamond of up to 4 r vertices, over 256 from r = 65 until the
      // border cuts it down again.
      const w = 151;
      const csr = csrOf(grid({ width: w, height: w }));
      const source = 75 * w + 75;
      const run = await bfs(device, csr, [source], { capacity: 256, workgroupSize: 256 });
      expectBfs(csr, [source], run);
      expect(run.bulkLevels).toBeGreaterThan(0);
      expect(run.engineLevels).toBeGreaterThan(run.bulkLevels);
      expect(run.exits).toContain(SMALL_FRONTIER_EXIT.overflow);
      expect(run.exits).toContain(SMALL_FRONTIER_EXIT.tooLarge);
      expect(run.exits.at(-1)).toBe(SMALL_FRONTIER_EXIT.empty);
    }));

  for (const capacity of [256, undefined]) {
    it(`a broom: two levels past the capacity (${capacity ?? 'default'}), then the engine again`, () =>
      gpuTest(async (device) => {
        const cap = capacity ?? smallFrontierCapacity(device);
        const csr = broom(200, cap + 37, 150);
        const run = await bfs(device, csr, [0], capacity === undefined ? {} : { capacity });
        expectBfs(csr, [0], run);
        // The bristles' and the twigs' levels are bulk levels; from the knot on, the engine again.
        expect(run.bulkLevels).toBe(2);
        expect(run.exits.slice(0, 2)).toEqual([SMALL_FRONTIER_EXIT.overflow, SMALL_FRONTIER_EXIT.tooLarge]);
        expect(run.exits.at(-1)).toBe(SMALL_FRONTIER_EXIT.empty);
      }));
  }

  it('a hub within the capacity is walked by the whole workgroup', () =>
    gpuTest(async (device) => {
      // Several hubs in one level (more than the cooperative list holds) and a hub as the source.
      const pairs: [number, number][] = [];
      const hubs = 300;
      for (let h = 1; h <= hubs; h++) {
        pairs.push([0, h]);
        for (let j = 0; j < 70; j++) pairs.push([h, hubs + 1 + ((h * 7 + j) % 900)]);
      }
      const csr = undirected(hubs + 901, pairs);
      for (const sources of [[0], [1], [5, 900]]) {
        const run = await bfs(device, csr, sources, { workgroupSize: 256 });
        expectBfs(csr, sources, run);
      }
    }));

  it('largest degree 64 (no hub list compiled) and 65 (the list): the same depths as the host', () =>
    gpuTest(async (device) => {
      for (const degree of [64, 65]) {
        // A chain of stars: each centre reaches `degree - 2` leaves and the next centre (last one: a leaf more).
        const pairs: [number, number][] = [];
        const centres = 12;
        let next = centres;
        for (let c = 0; c < centres; c++) {
          if (c + 1 < centres) pairs.push([c, c + 1]);
          const leaves = degree - (c === 0 || c + 1 === centres ? 1 : 2);
          for (let j = 0; j < leaves; j++) pairs.push([c, next++]);
        }
        const csr = undirected(next, pairs);
        const largest = Math.max(...Array.from(csr.offsets.subarray(1), (o, v) => o - csr.offsets[v]!));
        expect(largest).toBe(degree);
        for (const sources of [[0], [centres + 3], [5, next - 1]]) {
          expectBfs(csr, sources, await bfs(device, csr, sources, { workgroupSize: 64 }));
        }
      }
    }));

  it('disconnected sources, a random graph', () =>
    gpuTest(async (device) => {
      const r = mulberry32(3);
      const n = 4000;
      const pairs: [number, number][] = [];
      // Two components (even and odd ids) of sparse random edges.
      for (let i = 0; i < 3 * n; i++) {
        const a = Math.floor(r() * n);
        const b = (Math.floor(r() * (n / 2)) * 2 + (a % 2)) % n;
        pairs.push([a, b]);
      }
      const csr = undirected(n, pairs);
      for (const sources of [[0], [0, 1], [3, 10, 11, 3]]) {
        const run = await bfs(device, csr, sources, { capacity: 256 });
        expectBfs(csr, sources, run);
      }
    }));

  it("direction 'both': a directed graph's weak BFS, hubs of in-edges included, with and without bulk levels", () =>
    gpuTest(async (device) => {
      const r = mulberry32(11);
      const n = 1500;
      const src: number[] = [];
      const dst: number[] = [];
      const arc = (a: number, b: number) => {
        src.push(a);
        dst.push(b);
      };
      for (let i = 0; i < 2 * n; i++) arc(Math.floor(r() * n), Math.floor(r() * n));
      // A hub reached only against its 300 in-arcs, another only along its 90 out-arcs; a directed path.
      for (let j = 0; j < 300; j++) arc(20 + j, 7);
      for (let j = 0; j < 90; j++) arc(9, 700 + j);
      for (let j = 1000; j < 1400; j++) arc(j + 1, j);
      const edges = (a: number[], b: number[]) => ({
        vertexCount: n,
        src: Uint32Array.from(a),
        dst: Uint32Array.from(b),
        directed: true,
      });
      const csr = csrOf(edges(src, dst));
      const weak = csrOf(edges([...src, ...dst], [...dst, ...src]));
      const sourceOf = (e: number) => {
        let u = 0;
        while (csr.offsets[u + 1]! <= e) u++;
        return u;
      };
      for (const [sources, options] of [
        [[7], { bulk: false }],
        [[1400, 9], { bulk: false, workgroupSize: 256 }],
        [[0], { capacity: 256 }],
      ] as const) {
        const run = await bfs(device, csr, sources, { ...options, direction: 'both' });
        const want = hostBfs(weak, sources);
        expectArrayEqual(run.depth, want, `depths from ${sources}`);
        expect(run.engineLevels + run.bulkLevels, 'levels').toBe(levelCount(want));
        for (let v = 0; v < n; v++) {
          const e = run.parentEdge[v]!;
          if (e === UNREACHED) continue;
          // The claiming arc joins v to a vertex one level up, either way round.
          const u = sourceOf(e);
          expect(u === v || csr.targets[e] === v, `arc ${e} touches ${v}`).toBe(true);
          const other = csr.targets[e] === v ? u : csr.targets[e]!;
          expect(want[other]! + 1, `parent of ${v}`).toBe(want[v]);
        }
      }
      // An undirected graph's 'both' walks each edge once, as 'out'.
      const roads = csrOf(road({ width: 30, height: 20, seed: 2 }));
      expectBfs(roads, [0], await bfs(device, roads, [0], { direction: 'both' }));
    }));

  it('empty frontier, a single vertex, an isolated source', () =>
    gpuTest(async (device) => {
      const one = path(1);
      const run = await bfs(device, one, [0]);
      expectBfs(one, [0], run);
      expect(run.engineLevels).toBe(1);

      const csr = path(10);
      const none = await bfs(device, csr, []);
      expectBfs(csr, [], none);
      expect(none.exits).toEqual([SMALL_FRONTIER_EXIT.empty]);
      expect(none.engineLevels).toBe(0);

      const isolated = undirected(5, [[0, 1]]);
      expectBfs(isolated, [3], await bfs(device, isolated, [3]));
    }));

  it('leaves a too-large frontier untouched and writes the bulk dispatch arguments', () =>
    gpuTest(async (device) => {
      const csr = path(2000);
      const graph = uploadGraph(device, csr);
      const queue = new FrontierQueue(device, csr.vertexCount);
      const state = new SmallFrontierState(device, { itemsPerWorkgroup: [256, 100, 7] });
      const always = wgsl`(src: u32, dst: u32, edge: u32) -> bool { return true; }`;
      const picks = Array.from({ length: 700 }, (_, i) => (i * 13) % 2000);
      queue.set(picks);
      await advanceSmallFrontier(device, graph, queue.current, always, { state, capacity: 512 });
      expectArrayEqual(await queue.toArray(), Uint32Array.from(picks), 'frontier');
      let s = await state.read();
      expect(s).toEqual({
        levelsTotal: 0,
        levelsLast: 0,
        exit: SMALL_FRONTIER_EXIT.tooLarge,
        frontierLength: 700,
      });
      expectArrayEqual((await state.words.download()).subarray(0, 9), [3, 1, 1, 7, 1, 1, 100, 1, 1], 'args');

      // Zero levels allowed: the frontier stays as it is, the level bound is why.
      queue.set(picks.slice(0, 300));
      await advanceSmallFrontier(device, graph, queue.current, always, { state, maxLevels: 0 });
      expectArrayEqual(await queue.toArray(), Uint32Array.from(picks.slice(0, 300)), 'frontier');
      s = await state.read();
      expect(s.exit).toBe(SMALL_FRONTIER_EXIT.levelBound);
      expectArrayEqual((await state.words.download()).subarray(0, 9), [2, 1, 1, 3, 1, 1, 43, 1, 1], 'args');

      // One level of a functor that keeps every edge (each pick's neighbours, duplicates and all) outgrows
      // the capacity: the part past it goes straight to the buffer.
      await advanceSmallFrontier(device, graph, queue.current, always, {
        state,
        maxLevels: 1,
        capacity: 512,
      });
      const want: number[] = [];
      for (const v of picks.slice(0, 300))
        for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) want.push(csr.targets[e]!);
      const got = await queue.toArray();
      expectArrayEqual(got.sort(), Uint32Array.from(want).sort(), 'one level');
      s = await state.read();
      expect(s).toEqual({
        levelsTotal: 1,
        levelsLast: 1,
        exit: SMALL_FRONTIER_EXIT.overflow,
        frontierLength: want.length,
      });

      await state.recordReset(device);
      expect((await state.read()).levelsTotal).toBe(0);
      for (const a of [graph, queue, state]) a.destroy();
    }));

  it('withLevel: the functor sees every level index, counted on across calls until a reset', () =>
    gpuTest(async (device) => {
      const n = 700;
      const csr = path(n);
      const graph = uploadGraph(device, csr);
      const queue = new FrontierQueue(device, n);
      const state = new SmallFrontierState(device);
      // seen[v]: the index of the level that reached v, plus one (0: not reached).
      const seen = device.upload(new Uint32Array(n));
      const mark = wgsl`(src: u32, dst: u32, edge: u32, level: u32) -> bool {
  if (dst == 0u || atomicLoad(&${atomic(seen)}[dst]) != 0u) { return false; }
  return atomicMax(&${atomic(seen)}[dst], level + 1u) == 0u;
}`;
      for (let round = 0; round < 2; round++) {
        queue.set([0]);
        let calls = 0;
        while ((await queue.readLength()) > 0) {
          await advanceSmallFrontier(device, graph, queue.current, mark, {
            state,
            maxLevels: 50,
            withLevel: true,
          });
          calls++;
        }
        expect(calls).toBe(Math.ceil(n / 50));
        // Vertex v of the path is reached by level v - 1, whatever call ran it.
        const want = Uint32Array.from({ length: n }, (_, v) => v);
        expectArrayEqual(await seen.download(), want, `round ${round}`);
        expect((await state.read()).levelsTotal).toBe(n);
        await state.recordReset(device);
        seen.upload(new Uint32Array(n));
      }
      for (const a of [graph, queue, state, seen]) a.destroy();
    }));

  it('onEmpty: one dispatch labels every component, seeding each from its smallest vertex', () =>
    gpuTest(async (device) => {
      // A path, isolated vertices, a star wider than 256, a longer path and a sparse random part.
      const pairs: [number, number][] = [];
      for (let v = 0; v < 9; v++) pairs.push([v, v + 1]);
      for (let j = 0; j < 300; j++) pairs.push([11, 12 + j]);
      for (let v = 312; v < 411; v++) pairs.push([v, v + 1]);
      const r = mulberry32(9);
      for (let k = 0; k < 150; k++) pairs.push([414 + Math.floor(r() * 200), 414 + Math.floor(r() * 200)]);
      const n = 614;
      const csr = undirected(n, pairs);
      // The host: BFS from each vertex not reached yet, in index order.
      const wantDepth = new Uint32Array(n).fill(UNREACHED);
      const wantComp = new Uint32Array(n).fill(UNREACHED);
      for (let s = 0; s < n; s++) {
        if (wantDepth[s] !== UNREACHED) continue;
        const depth = hostBfs(csr, [s]);
        for (let v = 0; v < n; v++) {
          if (depth[v] !== UNREACHED) {
            wantDepth[v] = depth[v]!;
            wantComp[v] = s;
          }
        }
      }
      const graph = uploadGraph(device, csr);
      for (const options of [{}, { capacity: 256 }, { capacity: 256, maxLevels: 1 }]) {
        const depth = device.upload(new Uint32Array(n).fill(UNREACHED));
        const comp = device.upload(new Uint32Array(n).fill(UNREACHED));
        const queue = new FrontierQueue(device, n);
        const state = new SmallFrontierState(device);
        const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let d = atomicLoad(&${atomic(depth)}[src]) + 1u;
  if (atomicMin(&${atomic(depth)}[dst], d) > d) {
    ${rw(comp)}[dst] = ${rw(comp)}[src];
    return true;
  }
  return false;
}`;
        // Thread 0 seeds the first vertex not reached yet (a cursor in the hook's scratch word 3).
        const seed = wgsl`(lid: u32, threads: u32, calls: u32) {
  if (lid != 0u) { return; }
  var v = atomicLoad(&weft_hook_words[3]);
  for (; v < ${u32(n)}; v++) {
    if (atomicLoad(&${atomic(depth)}[v]) == ${u32(UNREACHED)}) { break; }
  }
  atomicStore(&weft_hook_words[3], v);
  if (v < ${u32(n)}) {
    atomicStore(&${atomic(depth)}[v], 0u);
    ${rw(comp)}[v] = v;
    weft_frontier_append(v);
  }
}`;
        const exits: number[] = [];
        for (let round = 0; ; round++) {
          if (round > n + 2) throw new Error('did not converge');
          const rec = device.recorder();
          await advanceSmallFrontier(rec, graph, queue.current, claim, { state, onEmpty: seed, ...options });
          await advancePush(rec, graph, queue.current, claim, { output: queue.next, loadBalance: 'auto' });
          queue.swap();
          await rec.submit();
          exits.push((await state.read()).exit);
          if (exits.at(-1) === SMALL_FRONTIER_EXIT.empty) break;
        }
        const where = JSON.stringify(options);
        expectArrayEqual(await depth.download(), wantDepth, `${where}: depths`);
        expectArrayEqual(await comp.download(), wantComp, `${where}: components`);
        if (!('capacity' in options)) expect(exits, where).toEqual([SMALL_FRONTIER_EXIT.empty]);
        else {
          // The star's leaves do not fit: a level (or, past a level bound, the next call's input) goes bulk.
          const bulk = [SMALL_FRONTIER_EXIT.overflow, SMALL_FRONTIER_EXIT.tooLarge] as number[];
          expect(
            exits.some((e) => bulk.includes(e)),
            `${where}: ${exits}`,
          ).toBe(true);
        }
        for (const a of [depth, comp, queue, state]) a.destroy();
      }
      graph.destroy();
    }));
  it('onLevel: sees every level the engine runs, an overflowing one whole, and none of the bulk levels', () =>
    gpuTest(async (device) => {
      // Levels of one vertex, then 300 bristles (past a capacity of 256), 300 twigs, the knot and a tail.
      const csr = broom(10, 300, 20);
      const n = csr.vertexCount;
      const want = hostBfs(csr, [0]);
      const sizes = new Map<number, number>();
      for (const d of want) sizes.set(d, (sizes.get(d) ?? 0) + 1);
      const graph = uploadGraph(device, csr);
      for (const options of [{}, { capacity: 256 }, { capacity: 256, maxLevels: 3 }]) {
        const where = JSON.stringify(options);
        const depth = device.upload(new Uint32Array(n).fill(UNREACHED)).upload([0]);
        const seen = device.upload(new Uint32Array(n).fill(UNREACHED));
        const counts = device.upload(new Uint32Array(n + 1));
        const queue = new FrontierQueue(device, n);
        queue.set([0]);
        const state = new SmallFrontierState(device);
        const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  return atomicMin(&${atomic(depth)}[dst], atomicLoad(&${atomic(depth)}[src]) + 1u) == ${u32(UNREACHED)};
}`;
        // Without bulk levels the engine's level index is the frontier's depth: level + 1 the output's.
        const onLevel = wgsl`(lid: u32, threads: u32, len: u32, level: u32) {
  let d = atomicLoad(&${atomic(depth)}[weft_frontier_item(0u)]);
  for (var i = lid; i < len; i += threads) { ${rw(seen)}[weft_frontier_item(i)] = d; }
  if (lid == 0u) {
    ${rw(counts)}[d] = len;
    if (level + 1u != d) { ${rw(counts)}[${u32(n)}] = 1u; }
  }
}`;
        for (let round = 0; ; round++) {
          if (round > n) throw new Error('did not converge');
          const rec = device.recorder();
          await advanceSmallFrontier(rec, graph, queue.current, claim, { state, onLevel, ...options });
          await advancePush(rec, graph, queue.current, claim, { output: queue.next, loadBalance: 'auto' });
          queue.swap();
          await rec.submit();
          const { array, index } = queue.length;
          if ((await array.download(index, 1))[0] === 0) break;
        }
        expectArrayEqual(await depth.download(), want, `${where}: depths`);
        const got = await seen.download();
        const levels = await counts.download();
        const hooked = new Set<number>();
        for (let v = 0; v < n; v++) {
          if (got[v] === UNREACHED) continue;
          expect(got[v], `${where}: vertex ${v}`).toBe(want[v]);
          hooked.add(want[v]!);
        }
        for (const d of hooked) expect(levels[d], `${where}: level ${d}`).toBe(sizes.get(d));
        // Every level but the source's with the default capacity; the bristles overflow whole at 256, and
        // the twigs (the bulk level after the overflow) and the knot (after a frontier too large) are missed.
        const all = [...sizes.keys()].filter((d) => d > 0).sort((a, b) => a - b);
        if (!('capacity' in options)) {
          expect(
            [...hooked].sort((a, b) => a - b),
            where,
          ).toEqual(all);
          expect(levels[n], `${where}: a level index off its depth`).toBe(0);
        } else {
          expect(hooked.has(10), `${where}: the overflowing level`).toBe(true);
          expect(hooked.has(11) || hooked.has(12), `${where}: bulk levels`).toBe(false);
        }
        for (const a of [depth, seen, counts, queue, state]) a.destroy();
      }
      graph.destroy();
    }));
});
