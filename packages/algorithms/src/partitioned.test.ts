import {
  atomic,
  InputError,
  onTarget,
  requestDevices,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList, PartitionedGraph, partitionCsr, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { mulberry32 } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bfsReference } from './bfs/reference.ts';
import { componentsReference } from './components-reference.ts';
import {
  bfsPartitioned,
  connectedComponents,
  connectedComponentsPartitioned,
  PartitionedBfs,
  type PartitionedPageRankOptions,
  pageRank,
  pageRankPartitioned,
  sssp,
  ssspPartitioned,
} from './index.ts';
import { pageRankReference } from './pagerank-reference.ts';
import { boundaryLists, destroyLists, sentBelow } from './partitioned-boundary.ts';
import { MinExchangePart, minMergeRounds, onEveryPart, touches } from './partitioned-exchange.ts';
import { ssspReference } from './sssp/reference.ts';
import { testGraphs, testSources } from './test-graphs.ts';
import { verifyPageRank } from './verify.ts';

let devices: WeftDevice[] = [];
beforeAll(async () => {
  devices = await requestDevices({ count: 3, shareAdapter: true, label: 'partitioned test' });
});
afterAll(() => {
  for (const d of devices) d.destroy();
});

const UNREACHED = 0xffffffff;

describe('partitionCsr', () => {
  it('splits rows into ranges at multiples of 32 that together hold every edge once', () => {
    for (const { name, csr } of testGraphs(false, 12)) {
      for (const k of [1, 2, 3, 5]) {
        const parts = partitionCsr(csr, k);
        expect(parts).toHaveLength(k);
        expect(parts[0]!.lo).toBe(0);
        expect(parts[k - 1]!.hi).toBe(csr.vertexCount);
        let edges = 0;
        parts.forEach((p, i) => {
          if (i > 0) expect(p.lo, name).toBe(parts[i - 1]!.hi);
          if (p.lo < csr.vertexCount) expect(p.lo % 32, name).toBe(0);
          for (let v = 0; v < csr.vertexCount; v++) {
            const own = v >= p.lo && v < p.hi;
            const row = p.csr.targets.subarray(p.csr.offsets[v]!, p.csr.offsets[v + 1]!);
            const want = own
              ? csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!)
              : new Uint32Array(0);
            expect(Array.from(row), `${name} part ${i} row ${v}`).toEqual(Array.from(want));
          }
          edges += p.csr.edgeCount;
        });
        expect(edges, name).toBe(csr.edgeCount);
      }
    }
  });
});

describe('bfsPartitioned', () => {
  it('matches the reference over 1-3 devices, pushing, pulling and switching', async () => {
    // The 700-vertex path (700 levels, a host round trip each) is left to the shorter path below.
    for (const { name, csr } of testGraphs(false, 6).filter((g) => !g.name.startsWith('path'))) {
      for (const k of [1, 2, 3]) {
        const graph = PartitionedGraph.upload(devices.slice(0, k), csr);
        try {
          const all = csr.directed ? (['push', 'auto'] as const) : (['push', 'pull', 'auto'] as const);
          const directions = k === 3 ? all : (['auto'] as const);
          for (const source of testSources(csr).slice(0, 2)) {
            const want = Array.from(bfsReference(csr, source).depths, (d) => (d < 0 ? UNREACHED : d));
            for (const direction of directions) {
              const got = await bfsPartitioned(graph, source, { direction });
              expect(Array.from(got.depths), `${name}, ${k} parts, ${direction}, source ${source}`).toEqual(
                want,
              );
              expect(got.iterations).toBe(Math.max(...want.filter((d) => d !== UNREACHED)) + 1);
            }
          }
        } finally {
          graph.destroy();
        }
      }
    }
  });

  it('handles a path longer than a level, a star across parts and refuses bad input', async () => {
    const n = 100;
    const path = hostCsrFromEdgeList({
      vertexCount: n,
      src: Uint32Array.from({ length: n - 1 }, (_, i) => i),
      dst: Uint32Array.from({ length: n - 1 }, (_, i) => i + 1),
      directed: false,
    }).csr;
    const star = hostCsrFromEdgeList({
      vertexCount: n,
      src: new Uint32Array(n - 1).fill(n - 1),
      dst: Uint32Array.from({ length: n - 1 }, (_, i) => i),
      directed: false,
    }).csr;
    for (const csr of [path, star]) {
      const graph = PartitionedGraph.upload(devices.slice(0, 2), csr);
      try {
        for (const source of [0, 50, n - 1]) {
          const want = Array.from(bfsReference(csr, source).depths, (d) => (d < 0 ? UNREACHED : d));
          const got = await bfsPartitioned(graph, source);
          expect(Array.from(got.depths)).toEqual(want);
          expect(got.exchangedBytes).toBeGreaterThan(0);
        }
        await expect(bfsPartitioned(graph, n)).rejects.toThrow(/source 100/);
        await expect(bfsPartitioned(graph, -1)).rejects.toThrow(/source -1/);
      } finally {
        graph.destroy();
      }
    }
    const directed = PartitionedGraph.upload(devices.slice(0, 2), { ...path, directed: true });
    try {
      await expect(bfsPartitioned(directed, 0, { direction: 'pull' })).rejects.toThrow(/undirected/);
    } finally {
      directed.destroy();
    }
  });
});

describe('PartitionedBfs profile', () => {
  it('sums each part’s kernels over the levels, with the depths of a run without it', async () => {
    const csr = scatteredGraph(23, 300, 260, 900, false);
    const graph = PartitionedGraph.upload(devices.slice(0, 3), csr, { parts: 3 });
    try {
      for (const direction of ['push', 'pull', 'auto'] as const) {
        const plain = await bfsPartitioned(graph, 3, { direction });
        const got = await bfsPartitioned(graph, 3, { direction, profile: true });
        expect(Array.from(got.depths), direction).toEqual(Array.from(plain.depths));
        const want = Array.from(bfsReference(csr, 3).depths, (d) => (d < 0 ? UNREACHED : d));
        expect(Array.from(plain.depths), direction).toEqual(want);
        expect(plain.kernels, direction).toBeUndefined();
        const kernels = got.kernels!;
        expect(new Set(kernels.map((k) => k.part)), direction).toEqual(new Set([0, 1, 2]));
        for (const k of kernels) {
          expect(k.label.length, direction).toBeGreaterThan(0);
          // A tiny dispatch may read 0 ns between its timestamps.
          expect(k.ms, `${direction} ${k.label}`).toBeGreaterThanOrEqual(0);
          // Every level runs the same kernels on every part, but a kernel may run several times a level.
          expect(k.calls, `${direction} ${k.label}`).toBeGreaterThanOrEqual(1);
        }
        const compaction = kernels.filter((k) => k.label.startsWith('transform'));
        expect(compaction.length, direction).toBeGreaterThan(0);
        for (const part of [0, 1, 2]) {
          const rows = kernels.filter((k) => k.part === part);
          expect(rows, `${direction} part ${part} by time`).toEqual([...rows].sort((a, b) => b.ms - a.ms));
          expect(Math.max(...rows.map((k) => k.calls)), direction).toBeGreaterThanOrEqual(got.iterations);
          expect(
            rows.reduce((t, k) => t + k.ms, 0),
            `${direction} part ${part}`,
          ).toBeGreaterThan(0);
        }
      }
    } finally {
      graph.destroy();
    }
  });
});

describe('PartitionedBfs kept across sources', () => {
  it('matches the reference with empty parts and a last partial word, and reads back less when pulling', async () => {
    // 40 vertices in at most two 32-vertex blocks: of 4 parts the last ones are empty at the vertex count.
    const rand = mulberry32(7);
    const n = 40;
    const src: number[] = [];
    const dst: number[] = [];
    for (let e = 0; e < 90; e++) {
      src.push(Math.floor(rand() * n));
      dst.push(Math.floor(rand() * n));
    }
    const csr = hostCsrFromEdgeList({
      vertexCount: n,
      src: Uint32Array.from(src),
      dst: Uint32Array.from(dst),
      directed: false,
    }).csr;
    const graph = PartitionedGraph.upload(devices, csr, { parts: 4 });
    expect(graph.parts.map((p) => [p.lo, p.hi])).toEqual([
      [0, 32],
      [32, 40],
      [40, 40],
      [40, 40],
    ]);
    const problems = (['push', 'pull', 'auto'] as const).map(
      (direction) => new PartitionedBfs(graph, { direction }),
    );
    try {
      const bytes: Record<string, number> = {};
      for (const source of [0, 39, 33, 0]) {
        const want = Array.from(bfsReference(csr, source).depths, (d) => (d < 0 ? UNREACHED : d));
        for (const problem of problems) {
          const got = await problem.run(source);
          expect(Array.from(got.depths), `${problem.direction} from ${source}`).toEqual(want);
          if (source === 0) bytes[problem.direction] = got.exchangedBytes / got.iterations;
        }
      }
      // A push level reads every part's whole bitmap back, a pull level its owned words only.
      expect(bytes.pull).toBeLessThan(bytes.push!);
    } finally {
      for (const p of problems) p.destroy();
      graph.destroy();
    }
  });
});

/** Undirected and directed shapes that cross parts: star with its hub in the last part, path, grid. */
function crossingGraphs(): { name: string; csr: HostCsr }[] {
  const n = 100;
  const edges = (src: number[], dst: number[], directed: boolean) =>
    hostCsrFromEdgeList({ vertexCount: n, src: Uint32Array.from(src), dst: Uint32Array.from(dst), directed })
      .csr;
  const line = Array.from({ length: n - 1 }, (_, i) => i);
  const out: { name: string; csr: HostCsr }[] = [];
  for (const directed of [false, true]) {
    const kind = directed ? 'directed' : 'undirected';
    out.push({
      name: `star ${kind}`,
      csr: edges(
        line.map(() => n - 1),
        line,
        directed,
      ),
    });
    out.push({
      name: `path ${kind}`,
      csr: edges(
        line,
        line.map((i) => i + 1),
        directed,
      ),
    });
    // Descending path: a directed walk from n - 1 down to 0 crosses every part boundary against the ids.
    out.push({
      name: `descending path ${kind}`,
      csr: edges(
        line.map((i) => i + 1),
        line,
        directed,
      ),
    });
    // A path through 0, 50, 1, 51, ...: most hops cross a part boundary, so SSSP takes dozens of rounds.
    const zigzag = Array.from({ length: n }, (_, i) => (i % 2 === 0 ? i / 2 : n / 2 + (i - 1) / 2));
    out.push({
      name: `zigzag path ${kind}`,
      csr: edges(zigzag.slice(0, -1), zigzag.slice(1), directed),
    });
  }
  return out;
}

describe('pageRankPartitioned', () => {
  it('matches the f64 reference and the one-device run over 1-3 devices', async () => {
    const corpus = testGraphs(false, 3).filter(
      (g) => !g.name.startsWith('path') && !g.name.startsWith('kronecker'),
    );
    // The corpus graphs over 1, 2 or 3 parts in turn; the star and the zigzag over 2 and 3 (ranks do not
    // care for the diameter that the other paths add).
    const graphs = [
      ...corpus.map((g, i) => ({ ...g, ks: [1 + (i % 3)] })),
      ...crossingGraphs()
        .filter((g) => /^(star|zigzag)/.test(g.name))
        .map((g) => ({ ...g, ks: [2, 3] })),
    ];
    for (const { name, csr, ks } of graphs) {
      const single = uploadGraph(devices[0]!, csr, { csc: csr.directed });
      const one = await pageRank(single);
      single.destroy();
      for (const k of ks) {
        const graph = PartitionedGraph.upload(devices.slice(0, k), csr, { csc: csr.directed });
        try {
          const got = await pageRankPartitioned(graph);
          expect(got.converged, `${name}, ${k} parts`).toBe(true);
          expect(verifyPageRank(csr, got.ranks), `${name}, ${k} parts`).toBeNull();
          expect(Math.abs(got.iterations - one.iterations), `${name}, ${k} parts`).toBeLessThanOrEqual(1);
        } finally {
          graph.destroy();
        }
      }
    }
  });

  it('takes the weights, l1 convergence and maxIterations as pageRank does, and refuses bad input', async () => {
    for (const { name, csr } of testGraphs('u32', 0).slice(3, 4).concat(testGraphs('f32', 2).slice(-1))) {
      const graph = PartitionedGraph.upload(devices.slice(0, 3), csr, { csc: csr.directed });
      try {
        const weighted = await pageRankPartitioned(graph);
        expect(verifyPageRank(csr, weighted.ranks), `${name} weighted`).toBeNull();
        const plain = await pageRankPartitioned(graph, { weight: null });
        expect(verifyPageRank(csr, plain.ranks, { weight: null }), `${name} unweighted`).toBeNull();
        const l1 = await pageRankPartitioned(graph, { convergence: 'l1', tolerance: 1e-6, maxIterations: 2 });
        expect(l1).toMatchObject({ iterations: 2, converged: false });
        expect(l1.residual).toBeGreaterThan(0);
        const capped = await pageRankPartitioned(graph, { maxIterations: 3, alpha: 0.5 });
        expect(capped).toMatchObject({ iterations: 3, converged: false });
      } finally {
        graph.destroy();
      }
    }
    const csr = testGraphs(false, 0)[8]!.csr;
    expect(csr.directed).toBe(true);
    const noCsc = PartitionedGraph.upload(devices.slice(0, 2), csr);
    try {
      await expect(pageRankPartitioned(noCsc)).rejects.toThrow(/csc: true/);
      await expect(pageRankPartitioned(noCsc, { alpha: 2 })).rejects.toThrow(/alpha/);
      await expect(pageRankPartitioned(noCsc, { tolerance: 0, maxIterations: Infinity })).rejects.toThrow(
        /never stop/,
      );
      // Infinity passed every change (converged after one round), NaN none.
      for (const tolerance of [Infinity, Number.NaN, -1]) {
        await expect(pageRankPartitioned(noCsc, { tolerance })).rejects.toThrow(
          `tolerance: tolerance must be a finite number >= 0, got ${tolerance}`,
        );
      }
      await expect(pageRankPartitioned(noCsc, { maxIterations: -1 })).rejects.toThrow(
        /integer >= 0 or Infinity/,
      );
    } finally {
      noCsc.destroy();
    }
  });
});

describe('connectedComponentsPartitioned', () => {
  it('gives the labels of the reference and the one-device run over 1-3 devices', async () => {
    const graphs = [
      ...testGraphs(false, 4).filter((g) => !g.name.startsWith('kronecker')),
      ...crossingGraphs(),
    ];
    for (const { name, csr } of graphs) {
      const want = componentsReference(csr);
      const single = uploadGraph(devices[0]!, csr);
      const one = await connectedComponents(single);
      single.destroy();
      expect(Array.from(one.labels), name).toEqual(Array.from(want.labels));
      for (const k of [1, 2, 3]) {
        const graph = PartitionedGraph.upload(devices.slice(0, k), csr);
        try {
          const got = await connectedComponentsPartitioned(graph);
          expect(Array.from(got.labels), `${name}, ${k} parts`).toEqual(Array.from(want.labels));
          expect(got.count, `${name}, ${k} parts`).toBe(want.count);
          if (csr.edgeCount > 0) expect(got.exchangedBytes).toBeGreaterThan(0);
        } finally {
          graph.destroy();
        }
      }
    }
  });
});

describe('ssspPartitioned', () => {
  it('gives the distances of the reference and the one-device run over 1-3 devices', async () => {
    const graphs = [
      // Kronecker, the long path and the random geometric graph (hundreds of Bellman-Ford levels) are left to
      // the crossing shapes below.
      ...testGraphs('u32', 3).filter((g) => !/^(kronecker|path|random geometric)/.test(g.name)),
      ...testGraphs('f32', 2).slice(-2),
      ...testGraphs(false, 0).slice(3, 4),
      ...crossingGraphs(),
    ];
    for (const { name, csr } of graphs) {
      const single = uploadGraph(devices[0]!, csr);
      // Both ends of the contiguous paths (from either end a walk crosses every part); one source elsewhere
      // (each of the zigzag's rounds takes host round trips).
      const both = name.includes('path') && !name.startsWith('zigzag');
      for (const source of testSources(csr).slice(0, both ? 2 : 1)) {
        const want = Array.from(ssspReference(csr, source));
        expect(Array.from((await sssp(single, source)).distances), `${name} one device`).toEqual(want);
        for (const k of [1, 2, 3]) {
          const graph = PartitionedGraph.upload(devices.slice(0, k), csr);
          try {
            const got = await ssspPartitioned(graph, source);
            expect(Array.from(got.distances), `${name}, ${k} parts, source ${source}`).toEqual(want);
            // One part needs one round and a last one finding nothing; the zigzag crosses parts many times.
            if (k === 1) expect(got.rounds).toBeLessThanOrEqual(2);
            if (k > 1 && name.startsWith('zigzag path undirected')) expect(got.rounds).toBeGreaterThan(20);
          } finally {
            graph.destroy();
          }
        }
      }
      single.destroy();
    }
  });

  it('takes i32 weights, refuses negative ones and sources outside the graph', async () => {
    const path = (weights: Int32Array) => ({
      vertexCount: 70,
      edgeCount: 69,
      offsets: Uint32Array.from({ length: 71 }, (_, i) => Math.min(i, 69)),
      targets: Uint32Array.from({ length: 69 }, (_, i) => i + 1),
      weights,
      directed: true,
    });
    const ok = PartitionedGraph.upload(
      devices.slice(0, 3),
      path(Int32Array.from({ length: 69 }, (_, i) => i)),
    );
    try {
      const got = await ssspPartitioned(ok, 0);
      expect(Array.from(got.distances)).toEqual(Array.from({ length: 70 }, (_, v) => (v * (v - 1)) / 2 + 0));
      await expect(ssspPartitioned(ok, 70)).rejects.toThrow(/source 70/);
    } finally {
      ok.destroy();
    }
    const weights = Int32Array.from({ length: 69 }, () => 1);
    weights[40] = -3;
    const bad = PartitionedGraph.upload(devices.slice(0, 3), path(weights));
    try {
      await expect(ssspPartitioned(bad, 0)).rejects.toThrow(/weight -3 .* is negative/);
    } finally {
      bad.destroy();
    }
  });
});

describe('graphs past one part on one device (the 2^32-arc boundary simulated by an arc budget)', () => {
  it('BFS, SSSP, PageRank and CC over several parts of one device match the references', async () => {
    // A weighted random graph of 200 vertices: parts of at most 300 arcs stand for parts of 2^32 - 1.
    const r = mulberry32(31);
    const m = 700;
    const src = Uint32Array.from({ length: m }, () => Math.floor(r() * 200));
    const dst = Uint32Array.from({ length: m }, () => Math.floor(r() * 200));
    const weights = Uint32Array.from({ length: m }, () => 1 + Math.floor(r() * 50));
    const { csr } = hostCsrFromEdgeList({ vertexCount: 200, src, dst, weights, directed: false });
    const graph = PartitionedGraph.upload([devices[0]!], csr, { maxArcsPerPart: 300 });
    try {
      expect(graph.parts.length).toBeGreaterThanOrEqual(Math.ceil(csr.edgeCount / 300));
      expect(graph.parts.every((p) => p.graph.device === devices[0] && p.graph.edgeCount <= 300)).toBe(true);
      expect(graph.parts.map((p) => p.base)).toEqual(
        graph.parts.map((_, i) => graph.parts.slice(0, i).reduce((a, p) => a + p.graph.edgeCount, 0)),
      );
      const source = csr.targets[0]!;
      const depths = (await bfsPartitioned(graph, source)).depths;
      const wantDepths = bfsReference(csr, source).depths;
      expect(Array.from(depths, (d) => (d === UNREACHED ? -1 : d))).toEqual(Array.from(wantDepths));
      const distances = (await ssspPartitioned(graph, source)).distances;
      expect(Array.from(distances)).toEqual(Array.from(ssspReference(csr, source)));
      const { labels } = await connectedComponentsPartitioned(graph);
      expect(Array.from(labels)).toEqual(Array.from(componentsReference(csr).labels));
      const { ranks } = await pageRankPartitioned(graph, { weight: null });
      expect(verifyPageRank(csr, ranks, { weight: null })).toBeNull();
    } finally {
      graph.destroy();
    }
  });
});

describe('ssspPartitioned with computed weights', () => {
  it('takes a weight functor instead of stored weights, over several parts', async () => {
    const r = mulberry32(47);
    const m = 400;
    const src = Uint32Array.from({ length: m }, () => Math.floor(r() * 120));
    const dst = Uint32Array.from({ length: m }, () => Math.floor(r() * 120));
    const { csr } = hostCsrFromEdgeList({ vertexCount: 120, src, dst, directed: false });
    // The same symmetric weight of each pair, stored for the reference and computed for the GPU.
    const pair = (u: number, v: number) => ((Math.min(u, v) * 7 + Math.max(u, v) * 3) % 11) + 1;
    const weights = new Uint32Array(csr.edgeCount);
    for (let u = 0; u < csr.vertexCount; u++) {
      for (let k = csr.offsets[u]!; k < csr.offsets[u + 1]!; k++) weights[k] = pair(u, csr.targets[k]!);
    }
    const weight = wgsl`(src: u32, dst: u32, edge: u32) -> u32 {
  return ((min(src, dst) * 7u + max(src, dst) * 3u) % 11u) + 1u;
}`;
    const graph = PartitionedGraph.upload(devices.slice(0, 2), csr, { parts: 3 });
    try {
      const source = csr.targets[0]!;
      const got = await ssspPartitioned(graph, source, { weight });
      expect(Array.from(got.distances)).toEqual(Array.from(ssspReference({ ...csr, weights }, source)));
    } finally {
      graph.destroy();
    }
  });
});

/**
 * `csr` split at `bounds` (each a multiple of 32 or the vertex count) into parts with no rows outside their
 * range, part `i` on `devices[i % devices.length]`: boundaries `partitionCsr` would not choose.
 */
function partsAt(csr: HostCsr, bounds: number[], on: WeftDevice[]): PartitionedGraph {
  const parts = bounds.slice(1).map((hi, i) => {
    const lo = bounds[i]!;
    const offsets = Uint32Array.from({ length: csr.vertexCount + 1 }, (_, v) => {
      const at = Math.min(Math.max(v, lo), hi);
      return csr.offsets[at]! - csr.offsets[lo]!;
    });
    const a = csr.offsets[lo]!;
    const b = csr.offsets[hi]!;
    const part: HostCsr = {
      ...csr,
      edgeCount: b - a,
      offsets,
      targets: csr.targets.slice(a, b),
      ...(csr.weights ? { weights: csr.weights.slice(a, b) } : {}),
    };
    return { lo, hi, graph: uploadGraph(on[i % on.length]!, part, { csc: csr.directed }) };
  });
  return PartitionedGraph.fromParts(parts);
}

describe('partitioned runs over parts without remote arcs, without local arcs, and empty', () => {
  it('match the references, with and without a timed breakdown', async () => {
    // Part [0, 32) a cycle of its own; parts [32, 64) and [64, 96) joined only to each other; [32, 32) empty.
    const r = mulberry32(53);
    const src: number[] = [];
    const dst: number[] = [];
    for (let v = 0; v < 32; v++) {
      src.push(v);
      dst.push((v + 1) % 32);
    }
    for (let e = 0; e < 150; e++) {
      src.push(32 + Math.floor(r() * 32));
      dst.push(64 + Math.floor(r() * 32));
    }
    const weights = Uint32Array.from(src, () => 1 + Math.floor(r() * 9));
    for (const directed of [false, true]) {
      const { csr } = hostCsrFromEdgeList({
        vertexCount: 96,
        src: Uint32Array.from(src),
        dst: Uint32Array.from(dst),
        weights,
        directed,
      });
      const graph = partsAt(csr, [0, 32, 32, 64, 96], devices);
      const name = directed ? 'directed' : 'undirected';
      try {
        for (const breakdown of [false, true]) {
          const what = `${name}, breakdown ${breakdown}`;
          const pr = await pageRankPartitioned(graph, { breakdown, weight: null });
          expect(pr.converged, what).toBe(true);
          expect(verifyPageRank(csr, pr.ranks, { weight: null }), what).toBeNull();
          expect(pr.timing.computeMs, what).toBeGreaterThan(0);
          expect(pr.timing.setupMs, what).toBeGreaterThan(0);
          expect(pr.timing.resultMs, what).toBeGreaterThan(0);
          if (breakdown) expect(pr.timing.uploadMs, what).toBeGreaterThan(0);
          const weighted = await pageRankPartitioned(graph, { breakdown });
          expect(verifyPageRank(csr, weighted.ranks), what).toBeNull();
          for (const source of [5, 40, 70]) {
            const want = Array.from(bfsReference(csr, source).depths, (d) => (d < 0 ? UNREACHED : d));
            const directions = directed ? (['push'] as const) : (['push', 'pull', 'auto'] as const);
            for (const direction of directions) {
              const got = await bfsPartitioned(graph, source, { direction, breakdown });
              expect(Array.from(got.depths), `${what}, ${direction} from ${source}`).toEqual(want);
              expect(got.timing.computeMs).toBeGreaterThan(0);
              expect(got.timing.resultMs).toBeGreaterThan(0);
            }
          }
        }
        const cc = await connectedComponentsPartitioned(graph);
        expect(Array.from(cc.labels), name).toEqual(Array.from(componentsReference(csr).labels));
        expect(cc.timing.computeMs).toBeGreaterThan(0);
        expect(cc.timing.setupMs).toBeGreaterThan(0);
        expect(cc.timing.resultMs).toBeGreaterThan(0);
        for (const source of [3, 40]) {
          const got = await ssspPartitioned(graph, source);
          expect(Array.from(got.distances), `${name} from ${source}`).toEqual(
            Array.from(ssspReference(csr, source)),
          );
          for (const t of Object.values(got.timing)) expect(t).toBeGreaterThanOrEqual(0);
          expect(got.timing.resultMs).toBeGreaterThan(0);
        }
      } finally {
        graph.destroy();
      }
    }
  });
});

/**
 * Random arcs among `[0, active)` of `n` vertices (the rest isolated), with `crossing` arcs from each 32-vertex
 * block `[32 b, 32 b + 32)` to the next block, and weights 1-9.
 */
function scatteredGraph(seed: number, n: number, active: number, m: number, directed: boolean): HostCsr {
  const r = mulberry32(seed);
  const src = Array.from({ length: m }, () => Math.floor(r() * active));
  const dst = Array.from({ length: m }, () => Math.floor(r() * active));
  const weights = Float32Array.from(src, () => 1 + Math.floor(r() * 9));
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(src),
    dst: Uint32Array.from(dst),
    weights,
    directed,
  }).csr;
}

/** The bytes an iteration of the boundary exchange moves: each value another part reads, read back and
 * written once, and per part two totals read and the dangling total written. */
function boundaryBytes(csr: HostCsr, graph: PartitionedGraph): number {
  const owner = new Int32Array(csr.vertexCount).fill(-1);
  for (const [i, p] of graph.parts.entries()) owner.fill(i, p.lo, p.hi);
  // Distinct (source part, target vertex) pairs across parts: what a directed part sends for its arcs'
  // targets, or (by symmetry) what an undirected target's part sends for its source.
  const reached = new Set<string>();
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let k = csr.offsets[u]!; k < csr.offsets[u + 1]!; k++) {
      const v = csr.targets[k]!;
      if (owner[v] !== owner[u]) reached.add(`${owner[u]} ${v}`);
    }
  }
  return graph.parts.length * 12 + (graph.parts.length > 1 ? 8 * reached.size : 0);
}

/** Graphs whose parts exchange nothing, everything or a random share, in 2-7 parts on 2-3 devices. */
function exchangeCases(): { name: string; csr: HostCsr; graph: () => PartitionedGraph }[] {
  // 224 vertices: [0, 32) a cycle of its own (no boundary), [32, 32) empty, [32, 96) and [96, 128) joined
  // only to each other (a random bipartite part: most vertices boundary, some isolated), [128, 160) every
  // vertex with one arc to [160, 192) and back, [192, 224) isolated.
  const r = mulberry32(61);
  const src: number[] = [];
  const dst: number[] = [];
  for (let v = 0; v < 32; v++) {
    src.push(v);
    dst.push((v + 1) % 32);
  }
  for (let e = 0; e < 120; e++) {
    src.push(32 + Math.floor(r() * 64));
    dst.push(96 + Math.floor(r() * 32));
  }
  for (let v = 128; v < 160; v++) {
    src.push(v, 160 + ((v * 7) % 32));
    dst.push(160 + ((v * 7) % 32), v);
  }
  const blocks = (directed: boolean) =>
    hostCsrFromEdgeList({
      vertexCount: 224,
      src: Uint32Array.from(src),
      dst: Uint32Array.from(dst),
      weights: Float32Array.from(src, (_, i) => 1 + (i % 5)),
      directed,
    }).csr;
  const cases: { name: string; csr: HostCsr; graph: () => PartitionedGraph }[] = [];
  for (const directed of [false, true]) {
    const kind = directed ? 'directed' : 'undirected';
    const csr = blocks(directed);
    const csc = { csc: directed };
    cases.push({
      name: `blocks ${kind}`,
      csr,
      graph: () => partsAt(csr, [0, 32, 32, 96, 128, 160, 192, 224], devices),
    });
    // Every vertex of [0, 32) with an arc to one of [32, 64) and back: every vertex boundary.
    const matching = hostCsrFromEdgeList({
      vertexCount: 64,
      src: Uint32Array.from({ length: 64 }, (_, i) => (i < 32 ? i : 32 + ((i * 7) % 32))),
      dst: Uint32Array.from({ length: 64 }, (_, i) => (i < 32 ? 32 + ((i * 7) % 32) : i - 32)),
      weights: Float32Array.from({ length: 64 }, (_, i) => 1 + (i % 3)),
      directed,
    }).csr;
    cases.push({
      name: `matching ${kind}, all boundary`,
      csr: matching,
      graph: () => partsAt(matching, [0, 32, 64], devices.slice(0, 2)),
    });
    const scattered = scatteredGraph(67, 300, 250, 900, directed);
    for (const [k, d] of [
      [2, 2],
      [3, 3],
      [4, 2],
    ] as const) {
      cases.push({
        name: `random ${kind}, ${k} parts on ${d} devices`,
        csr: scattered,
        graph: () => PartitionedGraph.upload(devices.slice(0, d), scattered, { ...csc, parts: k }),
      });
    }
  }
  return cases;
}

describe('pageRankPartitioned boundary exchange', () => {
  it('moves only the values other parts read and gives the full exchange’s ranks (and BFS and CC theirs)', async () => {
    const cases = exchangeCases();
    for (const { name, csr, graph: make } of cases) {
      const graph = make();
      try {
        for (const weight of [null, 'weights'] as const) {
          const what = `${name}, weight ${weight}`;
          const full = await pageRankPartitioned(graph, { exchange: 'full', weight });
          const got = await pageRankPartitioned(graph, { weight });
          expect(verifyPageRank(csr, got.ranks, { weight }), what).toBeNull();
          expect(got.converged, what).toBe(true);
          expect(got.bytesPerIteration, what).toBe(boundaryBytes(csr, graph));
          expect(got.fullBytesPerIteration, what).toBe(full.bytesPerIteration);
          // Undirected parts receive the very contributions the full exchange copies: the same floats.
          if (!csr.directed) expect(Array.from(got.ranks), what).toEqual(Array.from(full.ranks));
          else expect(verifyPageRank(csr, full.ranks, { weight }), what).toBeNull();
        }
        // BFS's bitmaps and CC's changes cross the same parts: from a vertex of each block.
        const directions = csr.directed ? (['push'] as const) : (['push', 'pull', 'auto'] as const);
        for (const source of [0, 40, 130, 200].filter((v) => v < csr.vertexCount)) {
          const want = Array.from(bfsReference(csr, source).depths, (d) => (d < 0 ? UNREACHED : d));
          for (const direction of directions) {
            for (const merge of ['device', 'host'] as const) {
              const got = await bfsPartitioned(graph, source, { direction, merge });
              expect(Array.from(got.depths), `${name}, ${direction}, ${merge} from ${source}`).toEqual(want);
            }
          }
        }
        const cc = await connectedComponentsPartitioned(graph);
        expect(Array.from(cc.labels), name).toEqual(Array.from(componentsReference(csr).labels));
      } finally {
        graph.destroy();
      }
    }
  });

  it('sends less than the full exchange on a Kronecker graph, and refuses an unknown exchange', async () => {
    const csr = testGraphs(false, 0).find((g) => g.name.startsWith('kronecker'))!.csr;
    const graph = PartitionedGraph.upload(devices.slice(0, 2), csr);
    try {
      const got = await pageRankPartitioned(graph, { maxIterations: 3 });
      expect(got.bytesPerIteration).toBe(boundaryBytes(csr, graph));
      expect(got.bytesPerIteration).toBeLessThan(got.fullBytesPerIteration);
      await expect(pageRankPartitioned(graph, { exchange: 'all' as 'full' })).rejects.toThrow(/exchange/);
      await expect(bfsPartitioned(graph, 0, { merge: 'gpu' as 'host' })).rejects.toThrow(/merge/);
    } finally {
      graph.destroy();
    }
  });
});

describe('pageRankPartitioned stopping and bytes', () => {
  it('stops after maxIterations or on convergence, with the reference’s ranks and the full exchange’s floats', async () => {
    for (const { name, csr, graph: make } of exchangeCases()) {
      const graph = make();
      const parts = graph.parts.length;
      try {
        for (const weight of [null, 'weights'] as const) {
          for (const convergence of ['relative', 'l1'] as const) {
            for (const maxIterations of [0, 1, 2, 100]) {
              const what = `${name}, weight ${weight}, ${convergence}, at most ${maxIterations}`;
              const options = { weight, convergence, maxIterations };
              const got = await pageRankPartitioned(graph, options);
              expect(got.iterations, what).toBeLessThanOrEqual(maxIterations);
              if (!got.converged) expect(got.iterations, what).toBe(maxIterations);
              // Round 0 only spreads the first ranks: a run stopped there has no change to report.
              expect(got.residual !== undefined, what).toBe(
                convergence === 'l1' && !got.converged && got.iterations > 0,
              );
              // The f64 reference run for as many iterations reaches the same ranks, up to f32 rounding.
              const want = pageRankReference(csr, { weight, tolerance: 0, maxIterations: got.iterations });
              expect(relativeError(got.ranks, want.ranks), what).toBeLessThan(1e-5);
              if (convergence === 'relative' && got.converged) {
                const stops = pageRankReference(csr, { weight, maxIterations }).iterations;
                expect(Math.abs(got.iterations - stops), what).toBeLessThanOrEqual(1);
              }
              // Every round reads back the sent values and two totals a part; all but the last write what
              // was read and the dangling total.
              expect(got.bytesPerIteration, what).toBe(boundaryBytes(csr, graph));
              const readBack = (got.bytesPerIteration - 12 * parts) / 2 + 8 * parts;
              expect(got.exchangedBytes, what).toBe(got.iterations * got.bytesPerIteration + readBack);
              expect(got.timing.computeMs, what).toBeGreaterThan(0);
              // Undirected parts receive the very contributions the full exchange copies: the same run.
              const full = await pageRankPartitioned(graph, { ...options, exchange: 'full' });
              if (!csr.directed) {
                expect(Array.from(got.ranks), what).toEqual(Array.from(full.ranks));
                expect(got.iterations, what).toBe(full.iterations);
                expect(got.converged, what).toBe(full.converged);
                expect(got.residual, what).toBe(full.residual);
              } else {
                expect(Math.abs(got.iterations - full.iterations), what).toBeLessThanOrEqual(1);
              }
              // In chunks (undirected), every part runs its own loop of rounds: the same stop and bytes.
              const chunked = await pageRankPartitioned(graph, { ...options, chunks: 3 });
              expect(relativeError(chunked.ranks, got.ranks), what).toBeLessThan(1e-5);
              expect(Math.abs(chunked.iterations - got.iterations), what).toBeLessThanOrEqual(1);
              if (chunked.iterations === got.iterations) {
                expect(chunked.exchangedBytes, what).toBe(got.exchangedBytes);
                expect(chunked.residual !== undefined, what).toBe(got.residual !== undefined);
              }
            }
          }
        }
      } finally {
        graph.destroy();
      }
    }
  });

  it('refuses the removed staggered schedule, with one part or two, with or without a breakdown', async () => {
    const csr = scatteredGraph(5, 200, 150, 500, false);
    const one = PartitionedGraph.upload(devices.slice(0, 1), csr, { parts: 1 });
    const two = PartitionedGraph.upload(devices.slice(0, 2), csr, { parts: 2 });
    try {
      for (const graph of [one, two]) {
        for (const breakdown of [false, true]) {
          // What a JavaScript caller may still pass: the option is gone from the type.
          const options = { schedule: 'staggered', breakdown } as PartitionedPageRankOptions;
          await expect(pageRankPartitioned(graph, options)).rejects.toThrow(InputError);
          await expect(pageRankPartitioned(graph, options)).rejects.toThrow(/staggered schedule was removed/);
        }
      }
    } finally {
      one.destroy();
      two.destroy();
    }
  });
});

/** The largest difference of two rank vectors over the larger rank. */
function relativeError(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let v = 0; v < a.length; v++) {
    worst = Math.max(worst, Math.abs(a[v]! - b[v]!) / Math.max(Math.abs(a[v]!), Math.abs(b[v]!), 1e-30));
  }
  return worst;
}

describe('ssspPartitioned and connectedComponentsPartitioned exchanges', () => {
  it('send many changes as a bitmap and values, with the same results as pairs and fewer bytes', async () => {
    // 12000 vertices, 2000 of them isolated: a round changes thousands of entries, past the box's 2048 pairs.
    const csr = scatteredGraph(71, 12_000, 10_000, 30_000, false);
    const weights = Uint32Array.from(csr.weights!, (w) => w);
    const weighted = { ...csr, weights };
    for (const [k, d] of [
      [2, 2],
      [3, 2],
    ] as const) {
      const graph = PartitionedGraph.upload(devices.slice(0, d), weighted, { parts: k });
      const what = `${k} parts on ${d} devices`;
      try {
        const source = csr.targets[0]!;
        const want = Array.from(ssspReference(weighted, source));
        const pairs = await ssspPartitioned(graph, source, { exchange: 'pairs' });
        const compact = await ssspPartitioned(graph, source);
        expect(Array.from(pairs.distances), what).toEqual(want);
        expect(Array.from(compact.distances), what).toEqual(want);
        expect(compact.rounds, what).toBe(pairs.rounds);
        expect(compact.exchangedBytes, what).toBeLessThan(pairs.exchangedBytes);
        const labels = Array.from(componentsReference(csr).labels);
        const ccPairs = await connectedComponentsPartitioned(graph, { exchange: 'pairs' });
        const cc = await connectedComponentsPartitioned(graph);
        expect(Array.from(ccPairs.labels), what).toEqual(labels);
        expect(Array.from(cc.labels), what).toEqual(labels);
        expect(cc.exchangedBytes, what).toBeLessThan(ccPairs.exchangedBytes);
      } finally {
        graph.destroy();
      }
    }
    const graph = PartitionedGraph.upload(devices.slice(0, 2), csr);
    try {
      await expect(ssspPartitioned(graph, 0, { exchange: 'all' as 'pairs' })).rejects.toThrow(/exchange/);
      await expect(connectedComponentsPartitioned(graph, { exchange: 'all' as 'pairs' })).rejects.toThrow(
        /exchange/,
      );
    } finally {
      graph.destroy();
    }
  });
});

describe('partitioned BFS exchange', () => {
  it('sends sparse levels as vertex ids and dense ones as bitmaps, switching both ways', async () => {
    // A path to a hub, the hub's 200 leaves (a dense level), all leaves to 3 vertices (found by several
    // parts at once), then a path on: 320 vertices, so levels of more than 10 vertices go as bitmaps.
    const src: number[] = [0, 1, 2, 3];
    const dst: number[] = [1, 2, 3, 4];
    for (let v = 100; v < 300; v++) {
      src.push(4, v);
      dst.push(v, 300 + (v % 3));
    }
    for (let v = 302; v < 319; v++) {
      src.push(v);
      dst.push(v + 1);
    }
    for (const directed of [false, true]) {
      const { csr } = hostCsrFromEdgeList({
        vertexCount: 320,
        src: Uint32Array.from(src),
        dst: Uint32Array.from(dst),
        directed,
      });
      const graphs = [PartitionedGraph.upload(devices, csr), partsAt(csr, [0, 96, 96, 224, 320], devices)];
      try {
        for (const [g, graph] of graphs.entries()) {
          const directions = directed ? (['push'] as const) : (['push', 'pull', 'auto'] as const);
          for (const direction of directions) {
            for (const breakdown of [false, true]) {
              const what = `${directed ? 'directed' : 'undirected'}, graph ${g}, ${direction}, ${breakdown}`;
              const want = Array.from(bfsReference(csr, 0).depths, (d) => (d < 0 ? UNREACHED : d));
              const got = await bfsPartitioned(graph, 0, { direction, breakdown });
              expect(Array.from(got.depths), what).toEqual(want);
              expect(got.iterations, what).toBe(Math.max(...want.filter((d) => d !== UNREACHED)) + 1);
              // Levels 1-4 and 7 on go as ids, the leaves' level as bitmaps.
              expect(got.queueLevels, what).toBe(got.iterations - 2);
            }
          }
        }
      } finally {
        for (const g of graphs) g.destroy();
      }
    }
  });
});

describe('minMergeRounds', () => {
  it.each(['compact', 'pairs'] as const)(
    'merges pairs in the box, past it, bitmaps, whole vectors and nothing, and lowers each entry once (%s)',
    async (form) => {
      // Four parts on three devices; part 2 gets two whole vectors, a bitmap (compact: part 1's 2100 changes of
      // 5000 take 157 + 2100 words, not 4200 as pairs) and pairs in one round, part 0 the same pairs from two
      // parts in the last.
      const n = 5000;
      const on = [0, 1, 2, 0].map((d) => devices[d]!);
      const values = on.map((d) => d.array('u32', n, { label: 'merge test values' }));
      const hits = on.map((d) => d.array('u32', n, { label: 'merge test hits' }));
      const parts = on.map((d, i) => new MinExchangePart(d, values[i]!, n, `merge test ${i}`, form));
      const plus = (base: number) => wgsl`(v: u32) -> u32 { return ${u32(base)} + v; }`;
      const constant = (x: number) => wgsl`(v: u32) -> u32 { return ${u32(x)}; }`;
      // Each part's writes by round: [from, to, value]; rounds absent do nothing, empty ones change nothing.
      const script = new Map<string, readonly (readonly [number, number, ReturnType<typeof plus>])[]>([
        ['0,1', [[0, n, plus(500000)]]],
        ['1,1', [[0, 2100, plus(400000)]]],
        [
          '2,1',
          [
            [n - 10, n, constant(100)],
            [0, 10, plus(400000)],
          ],
        ],
        ['3,1', [[0, n, plus(600000)]]],
        ['1,2', []],
        ['2,2', [[0, 5, constant(7)]]],
        ['3,2', [[0, 5, constant(7)]]],
      ]);
      try {
        await onEveryPart(parts, async (p) => {
          const i = parts.indexOf(p);
          await values[i]!.fill(1_000_000);
          await hits[i]!.fill(0);
          await onTarget(p.device, 'merge test start', (rec) => p.recordStart(rec));
        });
        const calls = [0, 0, 0, 0];
        const got = await minMergeRounds(
          parts,
          async (i, incoming, rec) => {
            const round = ++calls[i]!;
            expect(incoming === undefined, `part ${i} round ${round}`).toBe(round === 1);
            const writes = script.get(`${i},${round}`);
            if (!writes) return undefined;
            for (const [from, to, x] of writes) {
              await transform(
                rec,
                to - from,
                wgsl`(k: u32) { let v = k + ${u32(from)}; ${rw(values[i]!)}[v] = min(${values[i]!}[v], ${x}(v)); }`,
              );
            }
            return rec;
          },
          (i) => wgsl`(v: u32) { atomicAdd(&${atomic(hits[i]!)}[v], 1u); }`,
        );
        expect(got.rounds).toBe(3);
        // Read back: the boxes (4 + 8 * 2048 bytes) of the 7 reports, then what did not fit: parts 0 and 3
        // whole vectors, part 1 its 2100 pairs or bitmap and values. Written: each of those to the 3 others,
        // and the boxes' pairs (20 from part 2 in round 1, 5 from parts 2 and 3 in round 2) to theirs.
        const part1 = form === 'compact' ? 4 * (157 + 2100) : 8 * 2100;
        const read = 7 * (4 + 8 * 2048) + 2 * 4 * n + part1;
        const written = 3 * (2 * 4 * n + part1) + 3 * 8 * 20 + 3 * 8 * 5 * 2;
        expect(got.exchangedBytes).toBe(read + written);
        const want = Array.from({ length: n }, (_, v) =>
          v < 5 ? 7 : v < 2100 ? 400000 + v : v >= n - 10 ? 100 : 500000 + v,
        );
        // Where each part's value dropped through a merge: once a round at most.
        const wantHits = [
          (v: number) => (v < 5 ? 2 : v < 2100 || v >= n - 10 ? 1 : 0),
          (v: number) => (v < 5 ? 1 : v < 2100 ? 0 : 1),
          (v: number) => (v < 10 || v >= n - 10 ? 0 : 1),
          () => 1,
        ];
        for (const [i, p] of parts.entries()) {
          expect(Array.from(await values[i]!.download()), `part ${i} values`).toEqual(want);
          expect(Array.from(await hits[i]!.download()), `part ${i} lowered`).toEqual(
            Array.from({ length: n }, (_, v) => wantHits[i]!(v)),
          );
          expect(Array.from(await p.before.download()), `part ${i} before`).toEqual(want);
        }
      } finally {
        for (const a of [...parts, ...values, ...hits]) a.destroy();
      }
    },
  );

  it('tells whether changes may touch a range', () => {
    const pairs = Uint32Array.from([3, 0, 40, 1]);
    expect(touches([{ pairs, count: 2 }], 32, 64)).toBe(true);
    expect(touches([{ pairs, count: 2 }], 4, 32)).toBe(false);
    expect(touches([{ count: 0 }, { full: new Uint32Array(8), count: 8 }], 4, 5)).toBe(true);
    // Bits 3 and 40 (words 0 and 1), then their values.
    const bits = Uint32Array.from([1 << 3, 1 << 8, 0, 9, 9]);
    expect(touches([{ bits, count: 2 }], 32, 64)).toBe(true);
    expect(touches([{ bits, count: 2 }], 4, 32)).toBe(false);
    expect(touches([{ bits, count: 2 }], 41, 96)).toBe(false);
    expect(touches([{ bits, count: 2 }], 0, 4)).toBe(true);
    expect(touches([], 0, 8)).toBe(false);
  });
});

describe('onEveryPart', () => {
  it('runs every part at once and throws the first failing part’s error, in part order', async () => {
    const started: number[] = [];
    const run = (i: number) => {
      started.push(i);
      // Part 2 fails first in time, part 1 later: part 1's error is the one thrown.
      return new Promise<void>((resolve, reject) =>
        setTimeout(() => (i === 0 ? resolve() : reject(new Error(`part ${i}`))), i === 2 ? 1 : 20),
      );
    };
    await expect(onEveryPart([0, 1, 2], run)).rejects.toThrow('part 1');
    expect(started).toEqual([0, 1, 2]);
    await expect(onEveryPart([0], run)).resolves.toBeUndefined();
  });
});

describe('pageRankPartitioned in chunks', () => {
  it('gives one chunk’s ranks over 2, 3 and 5 chunks', async () => {
    const kron = kronecker({ scale: 9, edgeFactor: 16, seed: 71 });
    const cases = [
      ...exchangeCases(),
      ...[false, true].map((directed) => {
        // Duplicates and self-loops kept: a Kronecker multigraph.
        const csr = hostCsrFromEdgeList({ ...kron, directed }, { dedupe: 'none', keepSelfLoops: true }).csr;
        const kind = directed ? 'directed' : 'undirected';
        return {
          name: `kronecker multigraph ${kind}`,
          csr,
          graph: () => PartitionedGraph.upload(devices.slice(0, 2), csr, { csc: directed }),
        };
      }),
    ];
    for (const { name, csr, graph: make } of cases) {
      const graph = make();
      const single = uploadGraph(devices[0]!, csr, { csc: csr.directed });
      try {
        const alone = await pageRank(single, { weight: null });
        for (const weight of csr.weights ? ([null, 'weights'] as const) : [null]) {
          const options = { weight, chunks: 1 };
          const one = await pageRankPartitioned(graph, options);
          for (const chunks of [2, 3, 5]) {
            const what = `${name}, weight ${weight}, ${chunks} chunks`;
            const got = await pageRankPartitioned(graph, { ...options, chunks });
            expect(got.converged, what).toBe(true);
            // A part splits at multiples of 32 rows: no more chunks than its blocks of 32.
            const blocks = Math.max(...graph.parts.map((p) => Math.ceil((p.hi - p.lo) / 32)));
            expect(got.chunks, what).toBe(csr.directed ? 1 : Math.min(chunks, blocks));
            expect(verifyPageRank(csr, got.ranks, { weight }), what).toBeNull();
            expect(Math.abs(got.iterations - one.iterations), what).toBeLessThanOrEqual(1);
            expect(got.bytesPerIteration, what).toBe(one.bytesPerIteration);
            if (got.iterations === one.iterations) {
              expect(got.exchangedBytes, what).toBe(one.exchangedBytes);
            }
            // Directed parts run as one chunk: the same floats; chunks sum their rows' remote shares in other
            // tiles than the whole pass, so the last bits may differ.
            if (csr.directed) expect(Array.from(got.ranks), what).toEqual(Array.from(one.ranks));
            else expect(relativeError(got.ranks, one.ranks), what).toBeLessThan(1e-5);
            if (weight === null) expect(relativeError(got.ranks, alone.ranks), what).toBeLessThan(1e-4);
          }
        }
      } finally {
        graph.destroy();
        single.destroy();
      }
    }
  });

  it('stops where one chunk stops, on random graphs and with few iterations', async () => {
    for (const { name, csr } of testGraphs('f32', 4).filter(
      (g) => !g.csr.directed && g.csr.vertexCount > 64,
    )) {
      const graph = PartitionedGraph.upload(devices.slice(0, 2), csr, { parts: 3 });
      try {
        for (const maxIterations of [0, 1, 2]) {
          const what = `${name}, at most ${maxIterations}`;
          const options = { maxIterations, convergence: 'l1' as const, tolerance: 1e-9 };
          const one = await pageRankPartitioned(graph, { ...options, chunks: 1 });
          const got = await pageRankPartitioned(graph, { ...options, chunks: 3 });
          expect(got.chunks, what).toBe(3);
          expect(got.iterations, what).toBe(maxIterations);
          expect(got.exchangedBytes, what).toBe(one.exchangedBytes);
          expect(relativeError(got.ranks, one.ranks), what).toBeLessThan(1e-5);
          // The first iteration only spreads the first ranks: those are the same floats.
          if (maxIterations === 0) expect(Array.from(got.ranks), what).toEqual(Array.from(one.ranks));
          else expect(got.residual, what).toBeCloseTo(one.residual!, 5);
        }
      } finally {
        graph.destroy();
      }
    }
  });

  it('reads sorted sent runs, so a row range is one run of each, counted on the host', async () => {
    for (const { name, csr, graph: make } of exchangeCases()) {
      const graph = make();
      const lists = await boundaryLists(graph, csr.directed ? 'targets' : 'sources');
      try {
        for (const [x, b] of lists.entries()) {
          const ids = await b.sendIds.download(0, b.sendCount);
          for (const [k, run] of b.send.entries()) {
            const got = Array.from(ids.subarray(run.at, run.at + run.count));
            const what = `${name}, part ${x} to ${run.part}`;
            expect(got, what).toEqual([...got].sort((a, c) => a - c));
            expect(new Set(got).size, what).toBe(got.length);
            for (let v = 0; v <= csr.vertexCount + 31; v += 32) {
              expect(sentBelow(b, k, v), `${what} below ${v}`).toBe(got.filter((u) => u < v).length);
            }
          }
        }
      } finally {
        for (const b of lists) destroyLists(b);
        graph.destroy();
      }
    }
  });

  it('runs on devices without subgroups and with 8 storage buffers (weighted: a thread a row)', async () => {
    const narrow = await requestDevices({
      count: 2,
      shareAdapter: true,
      label: 'partitioned narrow test',
      limits: { maxStorageBuffersPerShaderStage: 8 },
      features: { subgroups: false },
    });
    try {
      for (const csr of [
        scatteredGraph(73, 400, 380, 3000, false),
        scatteredGraph(79, 300, 100, 2000, false),
      ]) {
        const graph = PartitionedGraph.upload(narrow, csr, { parts: 2 });
        try {
          for (const weight of [null, 'weights'] as const) {
            const what = `weight ${weight}`;
            const one = await pageRankPartitioned(graph, { weight, chunks: 1 });
            const got = await pageRankPartitioned(graph, { weight, chunks: 3 });
            expect(got.chunks, what).toBe(3);
            expect(verifyPageRank(csr, got.ranks, { weight }), what).toBeNull();
            expect(relativeError(got.ranks, one.ranks), what).toBeLessThan(1e-5);
          }
        } finally {
          graph.destroy();
        }
      }
    } finally {
      for (const d of narrow) d.destroy();
    }
  });

  it('keeps the lists, chunk layouts and staging on the graph for the next call, and calls at once apart', async () => {
    const csr = scatteredGraph(83, 300, 260, 1200, false);
    const graph = PartitionedGraph.upload(devices.slice(0, 2), csr, { parts: 2 });
    try {
      const refuse = () => Promise.reject(new Error('made again'));
      const options = { chunks: 3 };
      const first = await pageRankPartitioned(graph, options);
      // Kept: asking for them again does not make them.
      for (const key of ['pagerank boundary sources', 'pagerank chunks 3', 'staging']) {
        await expect(
          graph.kept(key, refuse, () => undefined),
          key,
        ).resolves.toBeDefined();
      }
      const again = await pageRankPartitioned(graph, options);
      expect(Array.from(again.ranks)).toEqual(Array.from(first.ranks));
      const both = await Promise.all([
        pageRankPartitioned(graph, options),
        pageRankPartitioned(graph, options),
      ]);
      for (const r of both) expect(Array.from(r.ranks)).toEqual(Array.from(first.ranks));
      const whole = await pageRankPartitioned(graph, { chunks: 1 });
      expect(relativeError(whole.ranks, first.ranks)).toBeLessThan(1e-5);
    } finally {
      graph.destroy();
    }
  });

  it('cuts chunks by rows plus arcs, at multiples of 32: a block of hubs is a chunk of its own', async () => {
    // Rows [0, 32) hold most arcs of part [0, 320): by rows alone the first of 3 chunks would be 3 blocks.
    const r = mulberry32(89);
    const src = Array.from({ length: 3000 }, (_, e) =>
      e < 2400 ? Math.floor(r() * 32) : Math.floor(r() * 640),
    );
    const dst = src.map(() => Math.floor(r() * 640));
    const csr = hostCsrFromEdgeList({
      vertexCount: 640,
      src: Uint32Array.from(src),
      dst: Uint32Array.from(dst),
      directed: false,
    }).csr;
    const graph = partsAt(csr, [0, 320, 640], devices);
    try {
      const got = await pageRankPartitioned(graph, { chunks: 3 });
      expect(verifyPageRank(csr, got.ranks)).toBeNull();
      const refuse = () => Promise.reject(new Error('made again'));
      const layouts = (await graph.kept('pagerank chunks 3', refuse, () => undefined)) as {
        lo: number;
        hi: number;
        edge: number;
        edges: number;
      }[][];
      const first = layouts[0]!;
      expect(first.map((c) => [c.lo, c.hi])).toEqual([
        [0, 32],
        [32, first[1]!.hi],
        [first[1]!.hi, 320],
      ]);
      for (const [i, chunks] of layouts.entries()) {
        const { lo, hi } = graph.parts[i]!;
        expect(chunks[0]!.lo).toBe(lo);
        expect(chunks.at(-1)!.hi).toBe(hi);
        for (const c of chunks) {
          expect(c.lo % 32).toBe(0);
          expect(c.edges).toBe(csr.offsets[c.hi]! - csr.offsets[c.lo]!);
          expect(c.edge).toBe(csr.offsets[c.lo]! - csr.offsets[lo]!);
        }
      }
    } finally {
      graph.destroy();
    }
  });

  it('refuses chunks that are not a positive integer, and runs one where chunks do not apply', async () => {
    const csr = scatteredGraph(5, 200, 150, 500, false);
    const two = PartitionedGraph.upload(devices.slice(0, 2), csr, { parts: 2 });
    try {
      for (const chunks of [0, 1.5, -2, Number.NaN]) {
        await expect(pageRankPartitioned(two, { chunks })).rejects.toThrow(/chunks/);
      }
      // Chunks pipeline the boundary exchange's steps: the full exchange and a breakdown run in one.
      const want = await pageRankPartitioned(two, { chunks: 1 });
      for (const options of [{ exchange: 'full' as const }, { breakdown: true }]) {
        const got = await pageRankPartitioned(two, { ...options, chunks: 3 });
        expect(got.chunks).toBe(1);
        expect(Array.from(got.ranks)).toEqual(Array.from(want.ranks));
      }
      expect((await pageRankPartitioned(two, { chunks: 3 })).chunks).toBe(3);
    } finally {
      two.destroy();
    }
  });
});
