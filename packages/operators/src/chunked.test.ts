import { atomic, DeviceLimitError, load, requestDevice, rw, u32, type WeftDevice, wgsl } from '@weft/gpu';
import {
  FrontierBitmap,
  FrontierQueue,
  type HostCsr,
  hostCsrFromEdgeList,
  queueToBitmap,
  uploadGraph,
} from '@weft/graph';
import { expectArrayEqual, mulberry32 } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { AdvanceWorkspace, advancePull, advancePush } from './advance.ts';
import { advanceDirectionOptimized } from './advance-optimized.ts';
import { Cascade } from './cascade.ts';
import { compute } from './compute.ts';
import { DisjointSets } from './disjoint-sets.ts';
import { enact } from './enactor.ts';
import { filter } from './filter.ts';
import { intersectionCount } from './intersection.ts';
import type { LoadBalance } from './load-balance.ts';
import { neighborhoodReduce } from './neighborhood.ts';
import { advanceSmallFrontier, SmallFrontierState } from './small-frontier.ts';

// 32 edges a chunk (a binding budget of 128 bytes): the graphs below span 2 to 5 chunks.
const SHIFT = 5;
const CHUNK = 2 ** SHIFT;

let shared: Promise<WeftDevice> | undefined;
const device = async () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({ label: 'chunked operators' });
  const d = await shared;
  d.bindingBudget = 4 * CHUNK;
  return d;
};
afterAll(async () => (await shared)?.destroy());

function csrOf(n: number, lists: [number, number[]][], directed: boolean): HostCsr {
  const src: number[] = [];
  const dst: number[] = [];
  for (const [v, targets] of lists) {
    for (const t of targets) {
      src.push(v);
      dst.push(t);
    }
  }
  const edges = { vertexCount: n, src: Uint32Array.from(src), dst: Uint32Array.from(dst), directed };
  return hostCsrFromEdgeList(edges).csr;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

function randomCsr(n: number, m: number, seed: number, directed: boolean): HostCsr {
  const r = mulberry32(seed);
  const src = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  const dst = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  return hostCsrFromEdgeList({ vertexCount: n, src, dst, directed }).csr;
}

/**
 * Directed: vertex 1's list crosses the boundary at 32, vertex 2's ends exactly at 64, vertex 3's fills the
 * third chunk exactly, vertex 4's one edge is the fourth chunk, and vertices 5.. have empty lists whose offset
 * is the edge count (past the last element). Undirected: a hub of 64 arcs (two whole chunks) and 64 leaf
 * arcs, 4 full chunks, then isolated vertices.
 */
function corpus(): { name: string; csr: HostCsr }[] {
  const boundaries = csrOf(
    45,
    [
      [0, range(1, 21)],
      [1, range(2, 37)],
      [2, range(3, 12)],
      [3, range(4, 36)],
      [4, [0]],
    ],
    true,
  );
  const leaves = range(1, 65);
  const full = csrOf(70, [[0, leaves], ...leaves.map((v): [number, number[]] => [v, [0]])], false);
  return [
    {
      name: 'path 18 (2 chunks)',
      csr: csrOf(
        18,
        range(0, 17).map((v) => [v, [v + 1]]),
        false,
      ),
    },
    { name: 'random undirected (3 chunks)', csr: randomCsr(30, 40, 3, false) },
    { name: 'directed boundaries (4 chunks)', csr: boundaries },
    { name: 'hub of two whole chunks (4 full chunks)', csr: full },
    { name: 'random directed (5 chunks)', csr: randomCsr(40, 150, 4, true) },
  ];
}

/** The source of each CSR edge. */
function sourcesOf(csr: HostCsr): Uint32Array {
  const out = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < csr.vertexCount; v++) out.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
  return out;
}

/**
 * Each vertex's walk in `direction` as [neighbor, CSR edge id] in the operators' order: its CSR row for
 * out-edges and for an undirected graph's in-edges, else the arcs u -> v by increasing u (the CSC).
 */
function walksOf(csr: HostCsr, direction: 'out' | 'in'): [number, number][][] {
  const out: [number, number][][] = Array.from({ length: csr.vertexCount }, () => []);
  const sources = sourcesOf(csr);
  for (let e = 0; e < csr.edgeCount; e++) {
    if (direction === 'out' || !csr.directed) out[sources[e]!]!.push([csr.targets[e]!, e]);
    else out[csr.targets[e]!]!.push([sources[e]!, e]);
  }
  return out;
}

const sorted = (a: ArrayLike<number>) => Uint32Array.from(a).sort();

/** Plain-array copies of the edge columns (tiny graphs: one binding each), to check what the operators see. */
function columns(d: WeftDevice, csr: HostCsr) {
  const pad = (a: Uint32Array) => (a.length > 0 ? a : new Uint32Array(1));
  return {
    src: d.upload(pad(sourcesOf(csr)), { label: 'edge sources' }),
    dst: d.upload(pad(csr.targets), { label: 'edge targets' }),
  };
}

describe('operators on graphs stored in chunks', () => {
  const graphs = corpus();

  it('the corpus spans 2 to 5 chunks, with lists across, at and after boundaries', async () => {
    const d = await device();
    const counts = graphs.map(({ csr }) => Math.ceil(csr.edgeCount / CHUNK));
    expect(counts).toEqual([2, 3, 4, 4, 5]);
    const b = graphs[2]!.csr;
    expect([b.offsets[1], b.offsets[2], b.offsets[3], b.offsets[4], b.offsets[5]]).toEqual([
      20, 55, 64, 96, 97,
    ]);
    expect(graphs[3]!.csr.edgeCount).toBe(4 * CHUNK);
    for (const { name, csr } of graphs) {
      const g = uploadGraph(d, csr);
      expect(g.chunkedTargets.chunks.length, name).toBe(Math.ceil(csr.edgeCount / CHUNK));
      g.destroy();
    }
  });

  it('advancePush (every load balance, out- and in-edges, all or a frontier) visits each edge once', async () => {
    const d = await device();
    const r = mulberry32(1);
    for (const [i, { name, csr }] of graphs.entries()) {
      const n = csr.vertexCount;
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const { src, dst } = columns(d, csr);
      const hits = d.array('u32', Math.max(1, csr.edgeCount));
      const bad = d.array('u32', 1);
      // Every vertex with an edge list at a boundary, the empty rows after the last edge, a duplicate.
      const picks = [0, 1, 2, 3, 4, n - 1, n - 1, ...Array.from({ length: 8 }, () => Math.floor(r() * n))];
      const queue = new FrontierQueue(d, n, { sizeMultiplier: 4 });
      const out = new FrontierQueue(d, Math.max(1, 4 * csr.edgeCount), { label: 'out' });
      const space = new AdvanceWorkspace(d, queue.capacity);
      const visited = new FrontierBitmap(d, n);
      for (const direction of ['out', 'in'] as const) {
        const walks = walksOf(csr, direction);
        // Walking a directed graph's in-edges of v: the edge is u -> v in CSR order.
        const check =
          direction === 'out' || !csr.directed
            ? wgsl`(s: u32, t: u32, edge: u32) -> bool { return ${src}[edge] == s && ${dst}[edge] == t; }`
            : wgsl`(s: u32, t: u32, edge: u32) -> bool { return ${src}[edge] == t && ${dst}[edge] == s; }`;
        const visit = wgsl`(s: u32, t: u32, edge: u32) -> bool {
  if (!${check}(s, t, edge)) { atomicStore(&${atomic(bad)}[0], 1u); }
  atomicAdd(&${atomic(hits)}[edge], 1u);
  return t % 3u != 1u;
}`;
        for (const input of ['all', 'frontier'] as const) {
          const from = input === 'all' ? range(0, n) : picks;
          const wantHits = new Uint32Array(hits.length);
          const want = new Set<number>();
          for (const v of from) {
            for (const [u, e] of walks[v]!) {
              wantHits[e]!++;
              if (u % 3 !== 1) want.add(u);
            }
          }
          // Each chunk count compiles its own kernels (slow on lavapipe): 'all' alternates the two walks,
          // and 'per-advance' (which picks one of them on the GPU) runs on the graphs with hubs.
          const balances: LoadBalance[] =
            input === 'all'
              ? [i % 2 === 0 ? 'merge-path' : 'thread-mapped']
              : ['merge-path', 'thread-mapped', ...(i >= 2 ? (['per-advance', 'auto'] as const) : [])];
          for (const loadBalance of balances) {
            const where = `${name} ${direction} ${input} ${loadBalance}`;
            queue.set(picks);
            await hits.fill(0);
            await bad.fill(0);
            await visited.words.fill(0);
            await advancePush(d, graph, input === 'all' ? 'all' : queue.current, visit, {
              output: out.next,
              visited,
              workspace: space,
              loadBalance,
              direction,
            });
            expectArrayEqual(await hits.download(), wantHits, `${where}: visits`);
            expect((await bad.download())[0], `${where}: (src, dst, edge) agree`).toBe(0);
            out.swap();
            expectArrayEqual(sorted(await out.toArray()), sorted([...want]), `${where}: output`);
          }
        }
      }
      for (const a of [graph, src, dst, hits, bad, queue, out, space, visited]) a.destroy();
    }
  });

  it('advancePull, advanceDirectionOptimized and filter find the frontier in-neighbors', async () => {
    const d = await device();
    const r = mulberry32(2);
    for (const { name, csr } of graphs) {
      const n = csr.vertexCount;
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const inWalks = walksOf(csr, 'in');
      const inFrontier = Array.from({ length: n }, (_, v) => v < 5 || r() < 0.3);
      const q = new FrontierQueue(d, n);
      q.set(range(0, n).filter((v) => inFrontier[v]));
      const bitmap = new FrontierBitmap(d, n);
      await queueToBitmap(d, q.current, bitmap);
      const parent = d.array('u32', Math.max(1, n));
      const out = new FrontierQueue(d, n, { label: 'pull out' });
      await parent.fill(0xffffffff);
      await advancePull(
        d,
        graph,
        bitmap,
        wgsl`(src: u32, dst: u32, edge: u32) -> bool { ${rw(parent)}[dst] = src; return true; }`,
        { output: out.next, candidate: wgsl`(v: u32) -> bool { return v % 4u != 3u; }` },
      );
      out.swap();
      const got = await parent.download();
      const want: number[] = [];
      for (let v = 0; v < n; v++) {
        const first = inWalks[v]!.map(([u]) => u).find((u) => inFrontier[u]);
        const expected = v % 4 === 3 || first === undefined ? 0xffffffff : first;
        expect(got[v], `${name}: parent of ${v}`).toBe(expected);
        if (expected !== 0xffffffff) want.push(v);
      }
      expectArrayEqual(sorted(await out.toArray()), want, `${name}: pulled`);

      // The direction-optimizing advance, pushing or pulling, reaches the same out-neighbors.
      const reached = new Set<number>();
      for (let v = 0; v < n; v++) {
        if (!inFrontier[v]) continue;
        for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) reached.add(csr.targets[e]!);
      }
      for (const mode of ['push', 'pull'] as const) {
        const seen = new FrontierBitmap(d, n);
        const scratch = new FrontierBitmap(d, n);
        const space = new AdvanceWorkspace(d, q.capacity);
        const next = new FrontierQueue(d, n, { label: 'do out' });
        const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let bit = 1u << (dst & 31u);
  return (atomicOr(&${atomic(seen.words)}[dst >> 5u], bit) & bit) == 0u;
}`;
        await advanceDirectionOptimized(
          d,
          graph,
          q.current,
          {
            push: claim,
            pull: claim,
            candidate: wgsl`(v: u32) -> bool {
  return (atomicLoad(&${atomic(seen.words)}[v >> 5u]) & (1u << (v & 31u))) == 0u;
}`,
          },
          next.next,
          { workspace: space, bitmap: scratch, direction: mode },
        );
        next.swap();
        expectArrayEqual(sorted(await next.toArray()), sorted([...reached]), `${name}: direction ${mode}`);
        // filter keeps the even ones of that frontier.
        const kept = new FrontierQueue(d, n, { label: 'filtered' });
        await filter(d, next.current, wgsl`(v: u32) -> bool { return v % 2u == 0u; }`, kept.next);
        kept.swap();
        expectArrayEqual(
          sorted(await kept.toArray()),
          sorted([...reached].filter((v) => v % 2 === 0)),
          `${name}: filter`,
        );
        for (const a of [seen, scratch, space, next, kept]) a.destroy();
      }
      for (const a of [graph, q, bitmap, parent, out]) a.destroy();
    }
  });

  it('neighborhoodReduce (out, in; all or a frontier) and compute sum what the host sums', async () => {
    const d = await device();
    for (const { name, csr } of graphs) {
      const n = csr.vertexCount;
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const output = d.array('u32', Math.max(1, n));
      const q = new FrontierQueue(d, n);
      const picks = [n - 1, 3, 1, 0, 2, 4];
      q.set(picks);
      // Weighted by position so a neighbor read from the wrong chunk changes the sum.
      const f = wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return dst * 1000u + edge + 1u; }`;
      for (const direction of ['out', 'in'] as const) {
        const walks = walksOf(csr, direction);
        const sumOf = (v: number) => walks[v]!.reduce((s, [u, e]) => s + u * 1000 + e + 1, 0);
        for (const ignoresVertex of [false, true]) {
          await output.fill(7);
          await neighborhoodReduce(d, graph, 'all', f, output, { direction, ignoresVertex });
          const what = `${name} ${direction} all, ignoresVertex ${ignoresVertex}`;
          expectArrayEqual(await output.download(0, n), range(0, n).map(sumOf), what);
        }
        if (direction === 'in') continue;
        await neighborhoodReduce(d, graph, q.current, f, output, { direction });
        expectArrayEqual(
          await output.download(0, picks.length),
          picks.map(sumOf),
          `${name} ${direction} frontier`,
        );
      }
      // A compute functor walking the edge lists through the chunk accessor.
      const { chunkedTargets: targets, offsets } = graph;
      await compute(
        d,
        { all: n },
        wgsl`(v: u32) {
  var s = 0u;
  for (var k = ${offsets}[v]; k < ${offsets}[v + 1u]; k++) { s += ${load(targets, 'k')}; }
  ${rw(output)}[v] = s;
}`,
      );
      const want = range(0, n).map((v) => {
        let s = 0;
        for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) s += csr.targets[e]!;
        return s;
      });
      expectArrayEqual(await output.download(0, n), want, `${name} compute`);
      for (const a of [graph, output, q]) a.destroy();
    }
  });

  it('intersectionCount (with emitted neighbors) matches the host sets', async () => {
    const d = await device();
    const r = mulberry32(3);
    for (const { name, csr } of graphs) {
      const n = csr.vertexCount;
      const graph = uploadGraph(d, csr);
      const row = (v: number) => csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!);
      // Pairs of the boundary rows with each other, then random ones, and a vertex with itself.
      const first = [0, 1, 1, 2, 3, 0, n - 1, ...Array.from({ length: 20 }, () => Math.floor(r() * n))];
      const second = [1, 2, 3, 3, 3, 3, 1, ...Array.from({ length: 20 }, () => Math.floor(r() * n))];
      const a = d.upload(Uint32Array.from(first));
      const b = d.upload(Uint32Array.from(second));
      const count = d.array('u32', first.length);
      const starts = d.array('u32', first.length);
      const common = d.array('u32', 4 * n + 1);
      await intersectionCount(d, graph, a, b, first.length, count, { emit: { starts, neighbors: common } });
      const want = first.map((x, i) => [...row(x)].filter((w) => row(second[i]!).includes(w)));
      expectArrayEqual(
        await count.download(),
        want.map((w) => w.length),
        `${name} counts`,
      );
      const flat = want.flat();
      if (flat.length > 0) expectArrayEqual(await common.download(0, flat.length), flat, `${name} neighbors`);
      for (const x of [graph, a, b, count, starts, common]) x.destroy();
    }
  });

  it('Cascade (out, in, both; overflowing queues) and DisjointSets label components', async () => {
    const d = await device();
    for (const [i, { name, csr }] of graphs.entries()) {
      const n = csr.vertexCount;
      const graph = uploadGraph(d, csr, { csc: csr.directed });
      const sources = sourcesOf(csr);
      const labels = d.array('u32', Math.max(1, n));
      const label = atomic(labels);
      const edge = wgsl`(src: u32, dst: u32, e: u32) -> bool {
  let l = atomicLoad(&${label}[src]);
  if (l >= atomicLoad(&${label}[dst])) { return false; }
  return l < atomicMin(&${label}[dst], l);
}`;
      for (const direction of ['out', 'in', 'both'] as const) {
        // A queue of 4 vertices overflows at once: the marked vertices carry the rest to later steps.
        for (const queue of [i % 2 === 0 ? 4 : 256]) {
          await compute(d, { all: n }, wgsl`(v: u32) { atomicStore(&${label}[v], v); }`);
          const cascade = new Cascade(graph, wgsl`(v: u32) -> bool { return true; }`, edge, {
            direction,
            queue,
          });
          await enact(d, cascade, { maxIterations: 4 * n + 4 });
          cascade.destroy();
          // Host: the smallest vertex that reaches each vertex along the walked direction.
          const want = Uint32Array.from(range(0, n));
          for (let changed = true; changed; ) {
            changed = false;
            for (let e = 0; e < csr.edgeCount; e++) {
              const [u, v] = [sources[e]!, csr.targets[e]!];
              const pairs: [number, number][] =
                direction === 'out'
                  ? [[u, v]]
                  : direction === 'in'
                    ? [[v, u]]
                    : [
                        [u, v],
                        [v, u],
                      ];
              for (const [x, y] of pairs) {
                if (want[x]! < want[y]!) {
                  want[y] = want[x]!;
                  changed = true;
                }
              }
            }
          }
          expectArrayEqual(await labels.download(0, n), want, `${name} ${direction} queue ${queue}`);
        }
      }
      // Union-find over the edges read through the chunk accessor: weak components.
      const sets = new DisjointSets(d, n);
      await sets.recordReset(d);
      const rec = d.recorder();
      await sets.recordUnion(
        rec,
        csr.edgeCount,
        wgsl`(e: u32) -> vec2<u32> {
  var lo = 0u;
  var hi = ${u32(Math.max(0, n - 1))};
  while (lo < hi) {
    let mid = (lo + hi + 1u) / 2u;
    if (${graph.offsets}[mid] <= e) { lo = mid; } else { hi = mid - 1u; }
  }
  return vec2<u32>(lo, ${load(graph.chunkedTargets, 'e')});
}`,
      );
      await rec.submit();
      expect(await sets.finished(), name).toBe(true);
      const weak = await sets.labels();
      expectArrayEqual(weak, await labels.download(0, n), `${name} union-find`);
      for (const a of [graph, labels, sets]) a.destroy();
    }
  });

  it('advanceSmallFrontier runs BFS levels in one workgroup across the chunks, or refuses past the buffers', async () => {
    const d = await device();
    let ran = 0;
    for (const { name, csr } of graphs) {
      const n = csr.vertexCount;
      for (const direction of ['out', 'both'] as const) {
        const graph = uploadGraph(d, csr, { csc: csr.directed });
        const depth = d.upload(Uint32Array.from({ length: n }, (_, v) => (v === 0 ? 0 : 0xffffffff)));
        const queue = new FrontierQueue(d, n);
        queue.set([0]);
        const state = new SmallFrontierState(d);
        const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let next = atomicLoad(&${atomic(depth)}[src]) + 1u;
  return atomicMin(&${atomic(depth)}[dst], next) > next;
}`;
        const run = advanceSmallFrontier(d, graph, queue.current, claim, { state, direction });
        const err = await run.then(
          () => undefined,
          (e: unknown) => e,
        );
        if (err !== undefined) {
          // Each chunk is a storage binding: with the CSC's arrays beside them the stage runs out.
          expect(err, `${name} ${direction}`).toBeInstanceOf(DeviceLimitError);
          expect(String(err), `${name} ${direction}`).toMatch(/small frontier/);
        } else {
          ran++;
          expect((await state.read()).frontierLength, `${name} ${direction}`).toBe(0);
          const want = new Array<number>(n).fill(0xffffffff);
          want[0] = 0;
          const sources = sourcesOf(csr);
          for (let level = 0, changed = true; changed; level++) {
            changed = false;
            for (let e = 0; e < csr.edgeCount; e++) {
              const [u, v] = [sources[e]!, csr.targets[e]!];
              const pairs: [number, number][] =
                direction === 'both'
                  ? [
                      [u, v],
                      [v, u],
                    ]
                  : [[u, v]];
              for (const [x, y] of pairs) {
                if (want[x] === level && want[y] === 0xffffffff) {
                  want[y] = level + 1;
                  changed = true;
                }
              }
            }
          }
          expectArrayEqual(await depth.download(), want, `${name} ${direction}`);
        }
        for (const a of [graph, depth, queue, state]) a.destroy();
      }
    }
    expect(ran).toBeGreaterThanOrEqual(8);
  });

  it('advancePush walks hubs with many threads where the balanced tile does not fit the stage', async () => {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    const d = await requestDevice({
      label: 'chunked hubs, 10 buffers',
      limits: { maxStorageBuffersPerShaderStage: 10 },
    });
    // The kernels each advance dispatches: the hubs' walk must run, not only the one-thread-a-vertex walk.
    const kernels: string[] = [];
    const recorder = d.recorder.bind(d);
    d.recorder = (options) => {
      const rec = recorder(options);
      const dispatch = rec.dispatch.bind(rec);
      rec.dispatch = (kernel, dispatchOptions) => {
        kernels.push(kernel.label);
        return dispatch(kernel, dispatchOptions);
      };
      return rec;
    };
    try {
      d.bindingBudget = 4 * 256;
      const n = 400;
      // 10 buffers a stage. 3 chunks: the tile would bind 11 or more, the thread-per-vertex walk fits with its
      // appends. 4 chunks and a visited bitmap: the walk only sets bits, and a second pass appends them.
      for (const { extra, chunks, claims } of [
        { extra: 40, chunks: 3, claims: false },
        { extra: 100, chunks: 4, claims: true },
      ]) {
        const r = mulberry32(5);
        // Hub 0 with 300 leaves (its list crosses a chunk boundary), random edges among the rest.
        const randomEnd = () => 1 + Math.floor(r() * (n - 1));
        const randomEdges = Array.from({ length: extra }, (): [number, number[]] => [
          randomEnd(),
          [randomEnd()],
        ]);
        const csr = csrOf(n, [[0, range(1, 301)], ...randomEdges], false);
        const graph = uploadGraph(d, csr);
        expect(graph.chunkedTargets.chunks.length).toBe(chunks);
        // Per edge: its visits, then the (src, dst) of its last visit (one buffer: the stage has few).
        const seen = d.array('u32', 2 * csr.edgeCount);
        const out = new FrontierQueue(d, 4 * csr.edgeCount, { label: 'out' });
        const queue = new FrontierQueue(d, n, { sizeMultiplier: 4 });
        const visited = new FrontierBitmap(d, n);
        const visit = wgsl`(s: u32, t: u32, edge: u32) -> bool {
  atomicAdd(&${atomic(seen)}[2u * edge], 1u);
  atomicStore(&${atomic(seen)}[2u * edge + 1u], s * 65536u + t);
  return t % 3u != 1u;
}`;
        const sources = sourcesOf(csr);
        // The hub twice, a leaf, a vertex of a random edge, the last vertex.
        const picks = [0, 5, 0, csr.targets[csr.offsets[7]!] ?? 7, n - 1];
        for (const input of ['all', 'frontier'] as const) {
          const where = `${chunks} chunks, ${input}`;
          const from = input === 'all' ? range(0, n) : picks;
          const wantHits = new Uint32Array(csr.edgeCount);
          const wantOut: number[] = [];
          for (const v of from) {
            for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
              wantHits[e]!++;
              if (csr.targets[e]! % 3 !== 1) wantOut.push(csr.targets[e]!);
            }
          }
          await seen.fill(0);
          await visited.words.fill(0);
          queue.set(picks);
          kernels.length = 0;
          await advancePush(d, graph, input === 'all' ? 'all' : queue.current, visit, {
            output: out.next,
            loadBalance: 'merge-path',
            ...(claims ? { visited } : {}),
          });
          // Over all vertices 3 chunks still fit the balanced tile; otherwise the hub gets its own threads (with
          // 4 chunks over all vertices only in the bits-only walk, whose two bindings fewer make room for its list).
          const wantKernel = input === 'all' && chunks === 3 ? 'transformLbs tile' : 'advance hubs';
          expect(kernels, `${where}: kernels`).toContain(wantKernel);
          const got = await seen.download();
          expectArrayEqual(
            got.filter((_, i) => i % 2 === 0),
            wantHits,
            `${where}: visits`,
          );
          for (let e = 0; e < csr.edgeCount; e++) {
            if (wantHits[e] === 0) continue;
            expect(got[2 * e + 1], `${where}: edge ${e}`).toBe(sources[e]! * 65536 + csr.targets[e]!);
          }
          out.swap();
          const want = claims ? [...new Set(wantOut)] : wantOut;
          expectArrayEqual(sorted(await out.toArray()), sorted(want), `${where}: output`);
        }
        for (const a of [graph, seen, out, queue, visited]) a.destroy();
      }
    } finally {
      d.destroy();
    }
  });

  it('with 10 storage buffers a stage (Chromium), chunks that do not fit refuse naming the kernel', async () => {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    const d = await requestDevice({
      label: 'chunked, 10 buffers',
      limits: { maxStorageBuffersPerShaderStage: 10 },
    });
    try {
      d.bindingBudget = 4 * CHUNK;
      const outcomes: string[] = [];
      for (const { name, csr } of [graphs[0]!, graphs[4]!]) {
        const n = csr.vertexCount;
        const graph = uploadGraph(d, csr, { csc: csr.directed });
        const labels = d.array('u32', Math.max(1, n));
        const label = atomic(labels);
        await compute(d, { all: n }, wgsl`(v: u32) { atomicStore(&${label}[v], v); }`);
        const edge = wgsl`(src: u32, dst: u32, e: u32) -> bool {
  let l = atomicLoad(&${label}[src]);
  return l < atomicMin(&${label}[dst], l);
}`;
        const cascade = new Cascade(graph, wgsl`(v: u32) -> bool { return true; }`, edge, {
          direction: 'both',
          edgeIds: false,
        });
        const run = await enact(d, cascade).catch((e: unknown) => e);
        cascade.destroy();
        if (run instanceof DeviceLimitError) {
          expect(String(run), name).toMatch(/^DeviceLimitError: kernel 'cascade both' \(storage buffers\)/);
          outcomes.push('refused');
        } else {
          const want = Uint32Array.from(range(0, n));
          const sources = sourcesOf(csr);
          for (let changed = true; changed; ) {
            changed = false;
            for (let e = 0; e < csr.edgeCount; e++) {
              const [u, v] = [sources[e]!, csr.targets[e]!];
              const low = Math.min(want[u]!, want[v]!);
              if (want[u] !== low || want[v] !== low) {
                want[u] = low;
                want[v] = low;
                changed = true;
              }
            }
          }
          expectArrayEqual(await labels.download(0, n), want, name);
          outcomes.push('ran');
        }
        labels.destroy();
        graph.destroy();
      }
      // Two chunks fit beside the cascade's own buffers; five chunks and a CSC do not.
      expect(outcomes).toEqual(['ran', 'refused']);
    } finally {
      d.destroy();
    }
  });
});
