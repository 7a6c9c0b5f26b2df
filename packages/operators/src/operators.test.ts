import { atomic, type DeviceArray, min, requestDevice, rw, transform, u32, wgsl } from '@weft/gpu';
import {
  FrontierBitmap,
  FrontierQueue,
  type HostCsr,
  hostCsrFromEdgeList,
  queueToBitmap,
  uploadGraph,
} from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { AdvanceWorkspace, advancePull, advancePush } from './advance.ts';
import { advanceDirectionOptimized } from './advance-optimized.ts';
import { compute } from './compute.ts';
import { enact } from './enactor.ts';
import { filter } from './filter.ts';
import { intersectionCount } from './intersection.ts';
import { neighborhoodReduce } from './neighborhood.ts';
import { csrNeighbors } from './neighbors.ts';

function randomCsr(n: number, m: number, seed: number, directed = true): HostCsr {
  const r = mulberry32(seed);
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    src[i] = Math.floor(r() * n);
    dst[i] = Math.floor(r() * n);
  }
  return hostCsrFromEdgeList({ vertexCount: n, src, dst, directed }).csr;
}

function sourceOfEdges(csr: HostCsr): Uint32Array {
  const out = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < csr.vertexCount; v++) out.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
  return out;
}

const sorted = (a: ArrayLike<number>) => Uint32Array.from(a).sort();

const graphs: [string, () => HostCsr][] = [
  ['empty', () => randomCsr(0, 0, 1)],
  ['one vertex', () => randomCsr(1, 0, 1)],
  ['no edges', () => randomCsr(50, 0, 1)],
  ['random sparse', () => randomCsr(1000, 3000, 2)],
  ['random dense-ish', () => randomCsr(300, 9000, 3)],
  ['kronecker 12', () => hostCsrFromEdgeList(kronecker({ scale: 12, edgeFactor: 8, seed: 4 })).csr],
];

describe('advancePush', () => {
  for (const [name, make] of graphs) {
    it(`${name}: each frontier edge once; kept dsts appended, uniquified`, () =>
      gpuTest(async (device) => {
        const csr = make();
        const n = csr.vertexCount;
        const graph = uploadGraph(device, csr);
        const edgeSrc = sourceOfEdges(csr);
        const r = mulberry32(n + 7);
        // A frontier with duplicates (a vertex listed twice visits its edges twice).
        const picks = Array.from({ length: Math.ceil(n / 2) }, () => Math.floor(r() * n));
        const queue = new FrontierQueue(device, n, { sizeMultiplier: 1 });
        const out = new FrontierQueue(device, Math.max(1, csr.edgeCount), { label: 'out' });
        const space = new AdvanceWorkspace(device, queue.capacity);
        const hits = device.upload(new Uint32Array(Math.max(1, csr.edgeCount)));
        for (const round of [0, 1, 2]) {
          // Round 0 balances by merge path, round 1 maps a thread to each vertex, round 2 walks the CSR
          // through the neighbor-iteration interface: same visits.
          const loadBalance = round === 0 ? 'merge-path' : 'thread-mapped';
          const g = round === 2 ? csrNeighbors(graph) : graph;
          queue.set(picks);
          hits.upload(new Uint32Array(hits.length));
          const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (${sourceOf(edgeSrc, device)}[edge] != src || ${graph.targets}[edge] != dst) { return false; }
  atomicAdd(&${atomic(hits)}[edge], 1u);
  return dst % 3u == ${u32(round)};
}`;
          await advancePush(device, g, queue.current, visit, {
            output: out.next,
            workspace: space,
            loadBalance,
          });
          const wantHits = new Uint32Array(hits.length);
          const wantOut: number[] = [];
          for (const v of picks) {
            for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
              wantHits[e]!++;
              if (csr.targets[e]! % 3 === round) wantOut.push(csr.targets[e]!);
            }
          }
          expectArrayEqual(await hits.download(), wantHits, 'edge visits');
          out.swap();
          expectArrayEqual(sorted(await out.toArray()), sorted(wantOut), 'appended');

          // Uniquified: each kept dst once.
          const visited = new FrontierBitmap(device, n);
          const keepAll = wgsl`(src: u32, dst: u32, edge: u32) -> bool { return true; }`;
          await advancePush(device, g, queue.current, keepAll, {
            output: out.next,
            visited,
            loadBalance,
          });
          out.swap();
          const unique = new Set<number>();
          for (const v of picks)
            for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) unique.add(csr.targets[e]!);
          expectArrayEqual(sorted(await out.toArray()), sorted([...unique]), 'unique');
          visited.destroy();
        }
        for (const a of [queue, out, space, hits, graph]) a.destroy();
      }));
  }

  it("'all' input visits every edge with its source", () =>
    gpuTest(async (device) => {
      for (const [csr, loadBalance] of [
        [randomCsr(5000, 20_000, 9), 'merge-path'],
        [randomCsr(5000, 20_000, 9), 'thread-mapped'],
        [randomCsr(3, 0, 1), 'merge-path'],
      ] as const) {
        const graph = uploadGraph(device, csr);
        const srcs = device.array('u32', Math.max(1, csr.edgeCount));
        await srcs.fill(0xffffffff);
        await advancePush(
          device,
          graph,
          'all',
          wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  ${rw(srcs)}[edge] = select(0xfffffffeu, src, ${graph.offsets}[src] <= edge && edge < ${graph.offsets}[src + 1u]);
  return false;
}`,
          { loadBalance },
        );
        if (csr.edgeCount > 0) expectArrayEqual(await srcs.download(), sourceOfEdges(csr), 'sources');
        graph.destroy();
        srcs.destroy();
      }
    }));

  it('in-edges of a directed graph (CSC) give CSR edge ids', () =>
    gpuTest(async (device) => {
      const csr = randomCsr(700, 4000, 11);
      const graph = uploadGraph(device, csr, { csc: true });
      const seen = device.array('u32', csr.edgeCount);
      await advancePush(
        device,
        graph,
        'all',
        wgsl`(v: u32, u: u32, edge: u32) -> bool {
  // Walking in-edges of v: edge is u -> v in CSR order.
  ${rw(seen)}[edge] = select(0u, 1u, ${graph.targets}[edge] == v) + u * 2u;
  return false;
}`,
        { direction: 'in' },
      );
      const want = sourceOfEdges(csr).map((u) => u * 2 + 1);
      expectArrayEqual(await seen.download(), want, 'in-edges');
      graph.destroy();
      seen.destroy();
      const noCsc = uploadGraph(device, csr);
      await expect(
        advancePush(device, noCsc, 'all', wgsl`(src: u32, dst: u32, edge: u32) -> bool { return false; }`, {
          direction: 'in',
        }),
      ).rejects.toThrow(/csc: true/);
      noCsc.destroy();
    }));
});

const sourceCache = new WeakMap<Uint32Array, ReturnType<typeof uploadOf>>();
function uploadOf(a: Uint32Array, device: Parameters<typeof uploadGraph>[0]) {
  return device.upload(a.length > 0 ? a : new Uint32Array(1));
}
function sourceOf(a: Uint32Array, device: Parameters<typeof uploadGraph>[0]) {
  let s = sourceCache.get(a);
  if (!s) {
    s = uploadOf(a, device);
    sourceCache.set(a, s);
  }
  return s;
}

describe('advancePush at a low storage-buffer limit', () => {
  it('marks visited bits and appends the new ones in a second pass where the walk would not fit', async () => {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    const device = await requestDevice({ label: 'eight', limits: { maxStorageBuffersPerShaderStage: 8 } });
    try {
      const n = 900;
      const csr = randomCsr(n, 7000, 41);
      const graph = uploadGraph(device, csr);
      // Three captured arrays: the thread-mapped walk with its appends would bind 9.
      const host = [3, 5, 7].map((k) => Uint32Array.from({ length: n }, (_, v) => (v * k) % 4));
      const [a, b, c] = host.map((h) => device.upload(h)) as [
        DeviceArray<'u32'>,
        DeviceArray<'u32'>,
        DeviceArray<'u32'>,
      ];
      const keep = wgsl`(src: u32, dst: u32, edge: u32) -> bool { return ${a}[dst] + ${b}[src] + ${c}[dst] > 4u; }`;
      const accepts = (u: number, v: number) => host[0]![v]! + host[1]![u]! + host[2]![v]! > 4;
      const frontier = [4, 17, 17, 250, 899, 0];
      const seenBefore = [5, 6, 7, 300, 301];
      const q = new FrontierQueue(device, n);
      const visited = new FrontierBitmap(device, n);
      for (const round of [0, 1]) {
        q.set(frontier);
        const words = new Uint32Array(visited.words.length);
        for (const v of seenBefore) words[v >>> 5]! |= 1 << (v & 31);
        visited.words.upload(words);
        await advancePush(device, graph, q.current, keep, {
          output: q.next,
          visited,
          loadBalance: 'thread-mapped',
        });
        const want = new Set<number>();
        for (const u of frontier) {
          for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
            const v = csr.targets[e]!;
            if (accepts(u, v) && !seenBefore.includes(v)) want.add(v);
          }
        }
        q.swap();
        const got = Array.from(await q.toArray()).sort((x, y) => x - y);
        expect(got, `round ${round}`).toEqual([...want].sort((x, y) => x - y));
      }
      for (const x of [graph, q, visited, a, b, c]) x.destroy();
    } finally {
      device.destroy();
    }
  });
});

describe('advancePull', () => {
  it('each candidate takes the first in-neighbor in the frontier', () =>
    gpuTest(async (device) => {
      const csr = randomCsr(2000, 8000, 21);
      const graph = uploadGraph(device, csr, { csc: true });
      const n = csr.vertexCount;
      const r = mulberry32(5);
      const inFrontier = Array.from({ length: n }, () => r() < 0.2);
      const candidate = Array.from({ length: n }, () => r() < 0.5);
      const q = new FrontierQueue(device, n);
      q.set(inFrontier.flatMap((b, v) => (b ? [v] : [])));
      const bitmap = new FrontierBitmap(device, n);
      await queueToBitmap(device, q.current, bitmap);
      const cand = device.upload(Uint32Array.from(candidate, (b) => (b ? 1 : 0)));
      const parent = device.upload(new Uint32Array(n).fill(0xffffffff));
      await advancePull(
        device,
        graph,
        bitmap,
        wgsl`(src: u32, dst: u32, edge: u32) -> bool { ${rw(parent)}[dst] = src; return true; }`,
        { candidate: wgsl`(v: u32) -> bool { return ${cand}[v] != 0u; }`, output: q.next },
      );
      // Reference: smallest in-neighbor (CSC lists sources sorted) in the frontier.
      const want = new Uint32Array(n).fill(0xffffffff);
      const src = sourceOfEdges(csr);
      for (let e = 0; e < csr.edgeCount; e++) {
        const u = src[e]!;
        const v = csr.targets[e]!;
        if (candidate[v] && inFrontier[u] && u < want[v]!) want[v] = u;
      }
      expectArrayEqual(await parent.download(), want, 'parents');
      q.swap();
      const found = [...want.keys()].filter((v) => want[v] !== 0xffffffff);
      expectArrayEqual(sorted(await q.toArray()), found, 'output');
      for (const a of [graph, q, bitmap, cand, parent]) a.destroy();
    }));
});

describe('filter and compute', () => {
  for (const n of [0, 1, 4095, 4097, 100_000]) {
    it(`filter ${n} items (with duplicates), plain and uniquified; stale output`, () =>
      gpuTest(async (device) => {
        const vertices = 5000;
        const r = mulberry32(n);
        const items = Array.from({ length: n }, () => Math.floor(r() * vertices));
        const q = new FrontierQueue(device, vertices, { sizeMultiplier: Math.max(1, n / vertices) });
        q.set(items);
        q.next.count.upload([12345]);
        const odd = wgsl`(v: u32) -> bool { return (v & 1u) == 1u; }`;
        await filter(device, q.current, odd, q.next);
        const out = new FrontierQueue(device, vertices, { sizeMultiplier: Math.max(1, n / vertices) });
        q.swap();
        expectArrayEqual(
          await q.toArray(),
          items.filter((v) => v % 2 === 1),
          'ordered filter',
        );
        q.swap();
        const visited = new FrontierBitmap(device, vertices);
        await filter(device, q.current, odd, out.next, { visited });
        out.swap();
        expectArrayEqual(
          sorted(await out.toArray()),
          sorted([...new Set(items.filter((v) => v % 2 === 1))]),
          'unique',
        );

        const marks = device.upload(new Uint32Array(vertices));
        await compute(device, q.current, wgsl`(v: u32) { atomicAdd(&${atomic(marks)}[v], 1u); }`);
        const want = new Uint32Array(vertices);
        for (const v of items) want[v]!++;
        expectArrayEqual(await marks.download(), want, 'compute over frontier');
        await compute(device, { all: vertices }, wgsl`(v: u32) { atomicAdd(&${atomic(marks)}[v], v); }`);
        expectArrayEqual(
          await marks.download(),
          want.map((c, v) => c + v),
          'compute over all',
        );
        for (const a of [q, out, visited, marks]) a.destroy();
      }));
  }
});

describe('neighborhoodReduce', () => {
  it('min neighbor over out- and in-edges, for all vertices and for a frontier', () =>
    gpuTest(async (device) => {
      const csr = randomCsr(3000, 12_000, 31);
      const n = csr.vertexCount;
      const graph = uploadGraph(device, csr, { csc: true });
      const out = device.array('u32', n);
      const f = wgsl`(v: u32, nbr: u32, edge: u32) -> u32 { return nbr * 2u + (edge & 1u); }`;
      const src = sourceOfEdges(csr);
      const wantOut = new Uint32Array(n).fill(0xffffffff);
      const wantIn = new Uint32Array(n).fill(0xffffffff);
      for (let e = 0; e < csr.edgeCount; e++) {
        const u = src[e]!;
        const v = csr.targets[e]!;
        wantOut[u] = Math.min(wantOut[u]!, v * 2 + (e & 1));
        wantIn[v] = Math.min(wantIn[v]!, u * 2 + (e & 1));
      }
      // f reads no vertex: by edge index (ignoresVertex) as by the vertex's segment.
      for (const ignoresVertex of [false, true]) {
        await out.fill(7);
        await neighborhoodReduce(device, graph, 'all', f, out, { monoid: min('u32'), ignoresVertex });
        expectArrayEqual(await out.download(), wantOut, `out, all, ignoresVertex ${ignoresVertex}`);
        await out.fill(7);
        const options = { monoid: min('u32'), direction: 'in', ignoresVertex } as const;
        await neighborhoodReduce(device, graph, 'all', f, out, options);
        expectArrayEqual(await out.download(), wantIn, `in, all, ignoresVertex ${ignoresVertex}`);
      }
      const picks = [5, 0, 2999, 5, 17];
      const q = new FrontierQueue(device, n);
      q.set(picks);
      const sums = device.array('u32', n);
      await neighborhoodReduce(
        device,
        graph,
        q.current,
        wgsl`(v: u32, nbr: u32, edge: u32) -> u32 { return nbr; }`,
        sums,
      );
      const got = (await sums.download()).subarray(0, picks.length);
      const want = picks.map((v) => {
        let s = 0;
        for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) s += csr.targets[e]!;
        return s;
      });
      expectArrayEqual(got, want, 'out sums over a frontier');
      for (const a of [graph, out, q, sums]) a.destroy();
    }));

  it('folds a vertex per thread where the segreduce tile and the functor exceed the storage buffers', async () => {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    const device = await requestDevice({ label: 'eight', limits: { maxStorageBuffersPerShaderStage: 8 } });
    try {
      const csr = randomCsr(700, 9000, 7);
      const n = csr.vertexCount;
      const graph = uploadGraph(device, csr, { csc: true });
      // Three captured arrays beside the graph's: the tile would bind 6 + 5 > 8.
      const scale = [2, 3, 5].map((k) => {
        const a = device.array('u32', n);
        a.upload(Uint32Array.from({ length: n }, (_, v) => (v * k) % 11));
        return a;
      });
      const [a, b, c] = scale as [(typeof scale)[0], (typeof scale)[0], (typeof scale)[0]];
      const f = wgsl`(v: u32, nbr: u32, edge: u32) -> u32 { return ${a}[nbr] + ${b}[v] * ${c}[nbr] + (edge & 1u); }`;
      const host = scale.map((_, i) => Uint32Array.from({ length: n }, (_, v) => (v * [2, 3, 5][i]!) % 11));
      const value = (v: number, nbr: number, e: number) =>
        host[0]![nbr]! + host[1]![v]! * host[2]![nbr]! + (e & 1);
      const src = sourceOfEdges(csr);
      const wantOut = new Uint32Array(n);
      const wantIn = new Uint32Array(n).fill(0xffffffff);
      for (let e = 0; e < csr.edgeCount; e++) {
        const u = src[e]!;
        const v = csr.targets[e]!;
        wantOut[u]! += value(u, v, e);
        wantIn[v] = Math.min(wantIn[v]!, value(v, u, e));
      }
      const out = device.array('u32', n);
      await neighborhoodReduce(device, graph, 'all', f, out);
      expectArrayEqual(await out.download(), wantOut, 'out sums, all');
      await neighborhoodReduce(device, graph, 'all', f, out, { monoid: min('u32'), direction: 'in' });
      expectArrayEqual(await out.download(), wantIn, 'in minima, all');
      const picks = [3, 0, 699, 3];
      const q = new FrontierQueue(device, n);
      q.set(picks);
      await neighborhoodReduce(device, graph, q.current, f, out);
      const got = (await out.download()).subarray(0, picks.length);
      const want = picks.map((v) => {
        let sum = 0;
        for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) sum += value(v, csr.targets[e]!, e);
        return sum;
      });
      expectArrayEqual(got, want, 'out sums over a frontier');
      for (const x of [graph, out, q, ...scale]) x.destroy();
    } finally {
      device.destroy();
    }
  });
});

describe('enact', () => {
  it('counts iterations until the frontier empties, in batches; honours maxIterations and abort', () =>
    gpuTest(async (device) => {
      // A path 0 -> 1 -> ... -> 99 walked one vertex per iteration.
      const n = 100;
      const src = Uint32Array.from({ length: n - 1 }, (_, i) => i);
      const dst = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
      const graph = uploadGraph(
        device,
        hostCsrFromEdgeList({ vertexCount: n, src, dst, directed: true }).csr,
      );
      const q = new FrontierQueue(device, n);
      const keep = wgsl`(src: u32, dst: u32, edge: u32) -> bool { return true; }`;
      const loop = {
        step: async (rec: Parameters<Parameters<typeof enact>[1]['step']>[0]) => {
          await advancePush(rec, graph, q.current, keep, { output: q.next });
          q.swap();
        },
        active: () => q.length,
      };
      q.set([0]);
      const progress: number[] = [];
      const result = await enact(device, loop, { onProgress: (p) => progress.push(p.iteration) });
      expect(result).toEqual({ iterations: 100, converged: true, submits: 5 });
      expect(progress).toEqual([4, 12, 28, 60, 100]);
      q.set([0]);
      expect(await enact(device, loop, { maxIterations: 10, batch: 3 })).toEqual({
        iterations: 10,
        converged: false,
        submits: 3,
      });
      expectArrayEqual(await q.toArray(), [10], 'frontier after 10 steps');
      // Infinity is a run bounded only by convergence; a fraction, a negative count or NaN is refused.
      q.set([0]);
      expect(await enact(device, loop, { maxIterations: Number.POSITIVE_INFINITY })).toMatchObject({
        iterations: 100,
        converged: true,
      });
      for (const maxIterations of [1.5, -1, Number.NaN]) {
        await expect(enact(device, loop, { maxIterations })).rejects.toThrow(
          `maxIterations: maxIterations must be an integer >= 0 or Infinity, got ${maxIterations}`,
        );
      }
      const abort = new AbortController();
      q.set([0]);
      await expect(
        enact(device, loop, {
          batch: 1,
          onProgress: (p) => p.iteration === 3 && abort.abort(new Error('stop')),
          signal: abort.signal,
        }),
      ).rejects.toThrow('stop');
      // A report read with the status: here a copy of the frontier length and a count of steps.
      const report = device.upload(new Uint32Array(2));
      const counted = {
        ...loop,
        report,
        step: async (rec: Parameters<Parameters<typeof enact>[1]['step']>[0]) => {
          await transform(
            rec,
            1,
            wgsl`(i: u32) { ${rw(report)}[0] = ${q.length.array}[${u32(q.length.index)}]; ${rw(report)}[1] += 1u; }`,
          );
          await loop.step(rec);
        },
      };
      q.set([0]);
      expect(await enact(device, counted, { maxIterations: 7, batch: 3 })).toEqual({
        iterations: 7,
        converged: false,
        submits: 2,
        report: [1, 7],
      });
      report.destroy();
      // Keeping every edge of a dense graph without uniquifying overflows a one-vertex-per-slot queue.
      const dense = uploadGraph(device, randomCsr(50, 1500, 3));
      const small = new FrontierQueue(device, 50);
      small.set([0, 1, 2, 3]);
      const flood = {
        step: async (rec: Parameters<Parameters<typeof enact>[1]['step']>[0]) => {
          await advancePush(rec, dense, small.current, keep, { output: small.next });
          small.swap();
        },
        active: () => small.length,
        capacity: small.capacity,
      };
      await expect(enact(device, flood, { maxIterations: 5 })).rejects.toThrow(/frontier capacity is 50/);
      dense.destroy();
      small.destroy();
      graph.destroy();
      q.destroy();
    }));
});

describe('advanceDirectionOptimized', () => {
  it('push, pull and auto claim the same unvisited neighbors; the GPU picks pull for a large frontier', () =>
    gpuTest(async (device) => {
      const csr = randomCsr(3000, 15_000, 41);
      const graph = uploadGraph(device, csr, { csc: true });
      const n = csr.vertexCount;
      const r = mulberry32(8);
      const frontier = [...new Set(Array.from({ length: 400 }, () => Math.floor(r() * n)))];
      const visitedHost = Array.from({ length: n }, () => r() < 0.3);
      for (const v of frontier) visitedHost[v] = true;
      const want = new Set<number>();
      for (const u of frontier) {
        for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
          if (!visitedHost[csr.targets[e]!]) want.add(csr.targets[e]!);
        }
      }
      const q = new FrontierQueue(device, n);
      const bitmap = new FrontierBitmap(device, n);
      const space = new AdvanceWorkspace(device, q.capacity);
      const seen = device.array('u32', n);
      const pulls = device.array('u32', 1);
      const functors = {
        push: wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  return atomicExchange(&${atomic(seen)}[dst], 1u) == 0u;
}`,
        pull: wgsl`(src: u32, dst: u32, edge: u32) -> bool { ${rw(seen)}[dst] = 1u; return true; }`,
        candidate: wgsl`(v: u32) -> bool { return ${seen}[v] == 0u; }`,
      };
      // threshold 1 never pulls, 0 always does; 1/20 of 15,000 edges is far below 400 vertices' edges.
      for (const [direction, threshold, pulled] of [
        ['push', 0, 0],
        ['pull', 1, 1],
        ['auto', 1, 0],
        ['auto', 0, 1],
        ['auto', 1 / 20, 1],
      ] as const) {
        q.set(frontier);
        seen.upload(Uint32Array.from(visitedHost, (b) => (b ? 1 : 0)));
        pulls.upload([0]);
        // Stale bits in the scratch bitmap must not matter.
        bitmap.words.upload(new Uint32Array(bitmap.words.length).fill(0xffffffff));
        await advanceDirectionOptimized(device, graph, q.current, functors, q.next, {
          bitmap,
          workspace: space,
          direction,
          threshold,
          pulls,
        });
        q.swap();
        expectArrayEqual(sorted(await q.toArray()), sorted([...want]), `${direction} ${threshold}`);
        expect((await pulls.download())[0], `${direction} ${threshold} pulled`).toBe(pulled);
      }
      for (const a of [graph, q, bitmap, space, seen, pulls]) a.destroy();
    }));
});

describe('intersectionCount', () => {
  it('counts common neighbors of vertex pairs, with and without an accept functor', () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(kronecker({ scale: 10, edgeFactor: 8, seed: 6 })).csr;
      const graph = uploadGraph(device, csr);
      const n = csr.vertexCount;
      const r = mulberry32(2);
      for (const pairs of [0, 1, 5000]) {
        const a = Uint32Array.from({ length: pairs }, () => Math.floor(r() * n));
        const b = Uint32Array.from({ length: pairs }, (_, i) => (i % 7 === 0 ? a[i]! : Math.floor(r() * n)));
        const da = device.upload(pairs > 0 ? a : new Uint32Array(1));
        const db = device.upload(pairs > 0 ? b : new Uint32Array(1));
        const out = device.array('u32', Math.max(1, pairs));
        const odd = device.array('u32', Math.max(1, pairs));
        await intersectionCount(device, graph, da, db, pairs, out);
        await intersectionCount(device, graph, da, db, pairs, odd, {
          accept: wgsl`(a: u32, b: u32, w: u32) -> bool { return (w & 1u) == 1u; }`,
        });
        const neighbors = (v: number) => new Set(csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!));
        const want = new Uint32Array(pairs);
        const wantOdd = new Uint32Array(pairs);
        for (let i = 0; i < pairs; i++) {
          const nb = neighbors(b[i]!);
          for (const w of neighbors(a[i]!)) {
            if (nb.has(w)) {
              want[i]!++;
              if (w % 2 === 1) wantOdd[i]!++;
            }
          }
        }
        if (pairs > 0) {
          expectArrayEqual(await out.download(0, pairs), want, 'common neighbors');
          expectArrayEqual(await odd.download(0, pairs), wantOdd, 'odd common neighbors');
        }
        for (const x of [da, db, out, odd]) x.destroy();
      }
      const one = device.array('u32', 1);
      await expect(intersectionCount(device, graph, one, one, 2, one)).rejects.toThrow(/2 pairs/);
      one.destroy();
      graph.destroy();
    }));
});
