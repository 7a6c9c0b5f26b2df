import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bfs, connectedComponents, pageRank, sssp, ssspPartitioned } from '@weft/algorithms';
import { requestDevice, type WeftDevice } from '@weft/gpu';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import {
  kroneckerMultigraphOnDevice,
  kroneckerMultigraphPartitioned,
  pairWeightFunctor,
} from '@weft/graph/generators';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildKronOnDevice,
  checkStructure,
  gapbsCommands,
  kronOnDevice,
  verifyBfsOnGpu,
  verifyBfsPartitionedOnGpu,
  verifyBfsStreamed,
  verifyComponentsStreamed,
  verifyPageRankStreamed,
  verifySsspOnGpu,
  verifySsspPartitionedOnGpu,
  verifySsspStreamed,
  writeGapbsGraphs,
} from './device-graphs.ts';

// 64 arcs a chunk: Kronecker scale 3 at edge factor 16 (up to 256 arcs) spans 4 chunks.
let shared: Promise<WeftDevice> | undefined;
const device = () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({ label: 'bench graphs built on the GPU', bindingBudget: 256 });
  return shared;
};
afterAll(async () => (await shared)?.destroy());

describe('Kronecker graphs built on the GPU for the bench', () => {
  it('check partitioned BFS depths over parts, a parent found in any part', async () => {
    const d = await device();
    const o = { scale: 8, edgeFactor: 1, seed: 3 };
    const whole = await kroneckerMultigraphOnDevice(d, o);
    const parted = await kroneckerMultigraphPartitioned([d], o, { maxArcsPerPart: 200 });
    try {
      expect(parted.parts.length).toBeGreaterThan(2);
      const offsets = await whole.offsets.download();
      const linked = [...Array(256).keys()].filter((v) => offsets[v + 1]! > offsets[v]!);
      for (const source of [linked[0]!, linked[linked.length - 1]!]) {
        const { depths } = await bfs(whole, source);
        expect(await verifyBfsPartitionedOnGpu(parted, source, depths)).toBeNull();
        const far = [...depths.keys()].filter((v) => depths[v]! > 1);
        for (const v of [far[0]!, far[far.length - 1]!]) {
          for (const wrong of [depths[v]! + 1, depths[v]! - 1, -1]) {
            const bad = depths.slice();
            bad[v] = wrong;
            expect(
              await verifyBfsPartitionedOnGpu(parted, source, bad),
              `vertex ${v} at ${wrong}`,
            ).not.toBeNull();
          }
        }
      }
    } finally {
      whole.destroy();
      parted.destroy();
    }
  });

  it('check partitioned SSSP distances over parts, weights computed, a tight arc found in any part', async () => {
    const d = await device();
    const o = { scale: 8, edgeFactor: 1, seed: 3, weights: [1, 255] as [number, number] };
    const whole = await kroneckerMultigraphOnDevice(d, o);
    const parted = await kroneckerMultigraphPartitioned(
      [d],
      { ...o, weights: false },
      { maxArcsPerPart: 200 },
    );
    const weight = pairWeightFunctor({ seed: o.seed, weights: o.weights });
    try {
      expect(parted.parts.length).toBeGreaterThan(2);
      const offsets = await whole.offsets.download();
      const source = [...Array(256).keys()].find((v) => offsets[v + 1]! > offsets[v]!)!;
      const { distances } = await sssp(whole, source, { weight });
      expect(await verifySsspPartitionedOnGpu(parted, source, distances, weight)).toBeNull();
      const got = await ssspPartitioned(parted, source, { weight });
      expect(Array.from(got.distances)).toEqual(Array.from(distances));
      const far = [...distances.keys()].filter((v) => v !== source && Number.isFinite(distances[v]!));
      for (const v of [far[0]!, far[far.length - 1]!]) {
        for (const wrong of [distances[v]! + 1, distances[v]! - 1, Number.POSITIVE_INFINITY]) {
          const bad = distances.slice();
          bad[v] = wrong;
          expect(
            await verifySsspPartitionedOnGpu(parted, source, bad, weight),
            `vertex ${v} at ${wrong}`,
          ).not.toBeNull();
        }
      }
    } finally {
      whole.destroy();
      parted.destroy();
    }
  });

  it('are chosen past one binding, built in chunks, and validated by the streamed checks', async () => {
    const d = await device();
    // lavapipe's 128 MiB binding holds scale 20's 2^26 arcs, not scale 21's.
    expect(kronOnDevice(d, 20, false)).toBe(false);
    expect(kronOnDevice(d, 21, false)).toBe(true);
    expect(kronOnDevice(d, 5, true)).toBe(true);
    const g = await buildKronOnDevice(d, 3, 11);
    try {
      expect(g.graph.chunkedTargets.chunks.length).toBe(Math.ceil(g.graph.edgeCount / 64));
      expect(g.graph.chunkedTargets.chunks.length).toBeGreaterThanOrEqual(3);
      expect(g.stats).toMatchObject({ name: 'kron-3', vertices: 8, arcs: g.graph.edgeCount });
      const source = g.offsets.findIndex((o, v) => g.offsets[v + 1]! > o);

      // The host's streamed checks and the GPU's give the same verdicts.
      const { depths } = await bfs(g.graph, source);
      for (const check of [verifyBfsStreamed, verifyBfsOnGpu]) {
        expect(await check(g, source, depths), check.name).toBeNull();
      }
      const reached = [...depths.keys()].find((v) => v !== source && depths[v]! > 0)!;
      for (const wrong of [depths[reached]! + 1, -1, 0]) {
        const bad = depths.slice();
        bad[reached] = wrong;
        for (const check of [verifyBfsStreamed, verifyBfsOnGpu]) {
          expect(await check(g, source, bad), `${check.name} depth ${wrong}`).not.toBeNull();
        }
      }

      const { distances } = await sssp(g.graph, source);
      for (const check of [verifySsspStreamed, verifySsspOnGpu]) {
        expect(await check(g, source, distances), check.name).toBeNull();
      }
      for (const wrong of [distances[reached]! + 1, distances[reached]! - 1, Number.POSITIVE_INFINITY, 0]) {
        const bad = distances.slice();
        bad[reached] = wrong;
        for (const check of [verifySsspStreamed, verifySsspOnGpu]) {
          expect(await check(g, source, bad), `${check.name} distance ${wrong}`).not.toBeNull();
        }
      }

      const { labels, count } = await connectedComponents(g.graph);
      expect(await verifyComponentsStreamed(g, labels, count)).toBeNull();
      expect(await verifyComponentsStreamed(g, labels, count + 1)).not.toBeNull();
      const split = labels.slice();
      split[reached] = 99;
      expect(await verifyComponentsStreamed(g, split, count + 1)).not.toBeNull();
      const isolated = g.offsets.findIndex((o, v) => v < 8 && g.offsets[v + 1] === o);
      if (isolated >= 0) {
        const merged = labels.slice();
        merged[isolated] = labels[source]!;
        expect(await verifyComponentsStreamed(g, merged, count - 1)).not.toBeNull();
      }

      // gapbs's serialized graphs: the header, int64 offsets, then the targets (and weights) as int32s.
      const dir = await mkdtemp(join(tmpdir(), 'weft-gapbs-'));
      const [sg, wsg] = await writeGapbsGraphs(g, dir);
      const targets = await g.graph.chunkedTargets.download();
      const weights = await g.graph.chunkedWeights!.download();
      const m = g.graph.edgeCount;
      for (const [path, pairs] of [
        [sg, false],
        [wsg, true],
      ] as const) {
        const bytes = await readFile(path);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        expect(bytes.length).toBe(17 + 8 * 9 + (pairs ? 8 : 4) * m);
        expect([view.getUint8(0), view.getBigInt64(1, true), view.getBigInt64(9, true)]).toEqual([
          0,
          BigInt(m),
          8n,
        ]);
        for (let v = 0; v <= 8; v++) expect(view.getBigInt64(17 + 8 * v, true)).toBe(BigInt(g.offsets[v]!));
        const body = 17 + 8 * 9;
        for (let i = 0; i < m; i++) {
          expect(view.getInt32(body + (pairs ? 8 : 4) * i, true)).toBe(targets[i]);
          if (pairs) expect(view.getInt32(body + 8 * i + 4, true)).toBe(weights[i]);
        }
      }
      await rm(dir, { recursive: true });

      const { ranks } = await pageRank(g.graph, { weight: null });
      expect(await verifyPageRankStreamed(g, ranks)).toBeNull();
      const off = ranks.slice();
      off[reached] = off[reached]! * 1.01;
      expect(await verifyPageRankStreamed(g, off)).not.toBeNull();
    } finally {
      g.graph.destroy();
    }
  });

  it('the structure check refuses asymmetric arcs, self-loops and weights outside 1-255', async () => {
    const d = await device();
    const edges = (src: number[], dst: number[], weights: number[], directed: boolean) =>
      hostCsrFromEdgeList(
        {
          vertexCount: 70,
          src: Uint32Array.from(src),
          dst: Uint32Array.from(dst),
          weights: Uint32Array.from(weights),
          directed,
        },
        { keepSelfLoops: true },
      ).csr;
    const star = Array.from({ length: 69 }, (_, i) => i + 1);
    const hub = star.map(() => 0);
    const w = star.map((v) => 1 + (v % 255));
    for (const [csr, want] of [
      [edges(hub, star, w, false), null],
      [edges(hub, star, w, true), /not symmetric/],
      [edges([...hub, 5], [...star, 5], [...w, 3], false), /self-loop at 5/],
      [edges(hub, star, [0, ...w.slice(1)], false), /weight 0/],
    ] as const) {
      const graph = uploadGraph(d, csr);
      try {
        expect(graph.chunked).toBe(true);
        const problem = await checkStructure(graph, csr.offsets);
        if (want === null) expect(problem).toBeNull();
        else expect(problem).toMatch(want);
      } finally {
        graph.destroy();
      }
    }
  });

  it('prints gapbs command lines for the same scale and edge factor', () => {
    const lines = gapbsCommands(26, 64);
    expect(lines[0]).toMatch(/g\+\+ .* -fopenmp "\$GAPBS"\/src\/\$k\.cc/);
    expect(lines[1]).toBe('"$GAPBS"/bfs -g 26 -k 16 -n 64');
    expect(lines.slice(1).every((l) => l.includes('-g 26 -k 16'))).toBe(true);
  });
});
