import { type DeviceArray, InputError, type WeftDevice } from '@weft/gpu';
import { expectArrayEqual, gpuTest, mulberry32, randomF32, randomI32, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  type DeviceBuildOptions,
  DeviceBuildPlan,
  deviceGraphFromCsr,
  deviceGraphFromEdgeList,
} from './device-build.ts';
import type { DeviceGraph } from './device-graph.ts';
import { kronecker } from './generators/kronecker.ts';
import { uniformRandom } from './generators/uniform.ts';
import { type DedupeRule, hostCscFromCsr, hostCsrFromEdgeList } from './host-build.ts';
import type { HostEdgeList, HostWeights } from './host-graph.ts';

type WeightKind = 'none' | 'u32' | 'i32' | 'f32';

/**
 * Edges among `n` vertices whose ids come from a pool of `distinctIds` (so duplicates and reverse pairs are
 * common) with a share of self-loops.
 */
function randomEdges(
  m: number,
  n: number,
  seed: number,
  weights: WeightKind,
  directed: boolean,
  distinctIds = Math.min(n, Math.max(2, Math.ceil(Math.sqrt(m)))),
): HostEdgeList {
  const rand = mulberry32(seed);
  const pool = randomU32(distinctIds, seed + 1, n);
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    src[i] = pool[Math.floor(rand() * distinctIds)]!;
    dst[i] = rand() < 0.05 ? src[i]! : pool[Math.floor(rand() * distinctIds)]!;
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed };
  const w = weightArray(weights, m, seed + 2);
  if (w !== undefined) edges.weights = w;
  return edges;
}

function weightArray(kind: WeightKind, m: number, seed: number): HostWeights | undefined {
  if (kind === 'u32') return randomU32(m, seed, 8).map((x, i) => (i % 3 === 0 ? x + 2 ** 31 : x));
  if (kind === 'i32') return randomI32(m, seed, -5, 5);
  // Few distinct values: ties between duplicates test which of equal weights a rule keeps.
  if (kind === 'f32') return randomF32(m, seed, -4, 4).map((x) => Math.round(x * 2) / 2);
  return undefined;
}

async function expectSameAsHost(
  device: WeftDevice,
  edges: HostEdgeList,
  options: DeviceBuildOptions,
  input: Parameters<typeof deviceGraphFromEdgeList>[1] = edges,
): Promise<DeviceGraph> {
  const { csr, report } = hostCsrFromEdgeList(edges, options);
  const built = await deviceGraphFromEdgeList(device, input, options);
  const { graph } = built;
  expect(built.report).toEqual(report);
  expect(graph.vertexCount).toBe(csr.vertexCount);
  expect(graph.edgeCount).toBe(csr.edgeCount);
  expect(graph.directed).toBe(csr.directed);
  const back = await graph.toHost();
  expectArrayEqual(back.offsets, csr.offsets, 'offsets');
  expectArrayEqual(back.targets, csr.targets, 'targets');
  if (csr.weights === undefined) {
    expect(back.weights).toBeUndefined();
  } else {
    expect(back.weights?.constructor).toBe(csr.weights.constructor);
    expectArrayEqual(back.weights!, csr.weights, 'weights');
  }
  if (options.csc) {
    const csc = hostCscFromCsr(csr);
    expectArrayEqual(await graph.inOffsets!.download(), csc.inOffsets, 'inOffsets');
    expectArrayEqual(await graph.sources!.download(), csc.sources, 'sources');
    expectArrayEqual(await graph.inEdgeIds!.download(), csc.inEdgeIds, 'inEdgeIds');
  }
  return graph;
}

const RULES: DedupeRule[] = ['min', 'max', 'first', 'last'];

describe('deviceGraphFromEdgeList', () => {
  for (const directed of [true, false]) {
    for (const dedupe of RULES) {
      for (const weights of ['u32', 'i32', 'f32'] as const) {
        it(`matches hostCsrFromEdgeList: ${directed ? 'directed' : 'undirected'}, ${dedupe}, ${weights} weights`, async () => {
          await gpuTest(async (device) => {
            const edges = randomEdges(5000, 300, 17 + RULES.indexOf(dedupe), weights, directed);
            (await expectSameAsHost(device, edges, { dedupe })).destroy();
          });
        });
      }
    }
  }

  it('keeps self-loops, symmetrizes a directed list, and keeps multi-edges with dedupe none', async () => {
    await gpuTest(async (device) => {
      const edges = randomEdges(3000, 100, 5, 'u32', true);
      for (const options of [
        { keepSelfLoops: true },
        { keepSelfLoops: true, symmetrize: true, dedupe: 'first' },
        { symmetrize: true, dedupe: 'last' },
        { dedupe: 'none' },
        { dedupe: 'none', keepSelfLoops: true },
        { dedupe: 'none', symmetrize: true, csc: true },
        { symmetrize: false, dedupe: 'max', csc: true },
      ] satisfies DeviceBuildOptions[]) {
        (await expectSameAsHost(device, edges, options)).destroy();
        (await expectSameAsHost(device, { ...edges, directed: false }, options)).destroy();
      }
    });
  });

  it("symmetrizes with dedupe 'none' by adding only the missing reverses", async () => {
    await gpuTest(async (device) => {
      // Half the edges listed in both directions (a symmetric file), half once; duplicates and loops too.
      for (const n of [300, 100_000]) {
        const half = randomEdges(4000, n, 21, 'f32', false, 90);
        const both: HostEdgeList = {
          vertexCount: n,
          src: new Uint32Array([...half.src, ...half.dst.subarray(0, 2000)]),
          dst: new Uint32Array([...half.dst, ...half.src.subarray(0, 2000)]),
          weights: new Float32Array([...half.weights!, ...half.weights!.subarray(0, 2000)]),
          directed: false,
        };
        for (const keepSelfLoops of [false, true]) {
          (await expectSameAsHost(device, both, { dedupe: 'none', keepSelfLoops })).destroy();
        }
      }
    });
  });

  it('sorts with two keys when ids need more than 16 bits, ids near 2^21', async () => {
    await gpuTest(async (device) => {
      for (const n of [65_537, 2 ** 21]) {
        for (const directed of [true, false]) {
          const edges = randomEdges(20_000, n, n + 3, 'f32', directed, 2000);
          // Ids at the top of the range: the last vertex and its neighbours.
          edges.src[0] = n - 1;
          edges.dst[1] = n - 1;
          (await expectSameAsHost(device, edges, { dedupe: 'min', csc: true })).destroy();
        }
      }
    });
  });

  it('handles empty graphs, isolated vertices and 1-2 vertices', async () => {
    await gpuTest(async (device) => {
      const none = new Uint32Array(0);
      for (const n of [0, 1, 7, 70_000]) {
        const edges: HostEdgeList = { vertexCount: n, src: none, dst: none, directed: true };
        (await expectSameAsHost(device, edges, { csc: true })).destroy();
        (await expectSameAsHost(device, { ...edges, weights: new Float32Array(0) }, {})).destroy();
      }
      const loop: HostEdgeList = {
        vertexCount: 1,
        src: new Uint32Array([0, 0]),
        dst: new Uint32Array([0, 0]),
        directed: false,
      };
      (await expectSameAsHost(device, loop, {})).destroy();
      (await expectSameAsHost(device, loop, { keepSelfLoops: true })).destroy();
      const pair: HostEdgeList = {
        vertexCount: 2,
        src: new Uint32Array([1, 0, 1]),
        dst: new Uint32Array([0, 1, 0]),
        weights: new Int32Array([3, -1, 2]),
        directed: false,
      };
      for (const dedupe of RULES) (await expectSameAsHost(device, pair, { dedupe, csc: true })).destroy();
      // Isolated vertices everywhere but two edges at the ends of a big id range.
      const sparse: HostEdgeList = {
        vertexCount: 100_000,
        src: new Uint32Array([99_999, 0]),
        dst: new Uint32Array([0, 99_999]),
        directed: true,
      };
      (await expectSameAsHost(device, sparse, { csc: true })).destroy();
    });
  });

  it('merges one huge group and builds a star (a vertex with all edges)', async () => {
    await gpuTest(async (device) => {
      const m = 40_000;
      const same: HostEdgeList = {
        vertexCount: 10,
        src: new Uint32Array(m).fill(3),
        dst: new Uint32Array(m).fill(8),
        weights: randomU32(m, 9),
        directed: true,
      };
      for (const dedupe of RULES) (await expectSameAsHost(device, same, { dedupe })).destroy();
      const star: HostEdgeList = {
        vertexCount: m + 1,
        src: new Uint32Array(m).fill(m),
        dst: Uint32Array.from({ length: m }, (_, i) => m - 1 - i),
        weights: randomF32(m, 4),
        directed: false,
      };
      (await expectSameAsHost(device, star, { csc: true })).destroy();
    });
  });

  it('takes device arrays, infers the vertex count and rejects bad input', async () => {
    await gpuTest(async (device) => {
      const edges = randomEdges(4000, 1000, 8, 'i32', false);
      const src = device.upload(edges.src);
      const dst = device.upload(edges.dst);
      const weights = device.upload(edges.weights as Int32Array);
      let largest = 0;
      for (const ids of [edges.src, edges.dst]) for (const v of ids) largest = Math.max(largest, v);
      const host = { ...edges, vertexCount: largest + 1 };
      const { vertexCount: _, ...noCount } = edges;
      const graph = await expectSameAsHost(
        device,
        host,
        { dedupe: 'max' },
        { ...noCount, src, dst, weights },
      );
      graph.destroy();
      // The inputs stay the caller's.
      expect(src.destroyed).toBe(false);

      const bad = { ...edges, src: edges.src.slice(), dst: edges.dst.slice() };
      bad.dst[10] = 1000;
      bad.dst[20] = 5000;
      await expect(deviceGraphFromEdgeList(device, bad)).rejects.toThrow(
        'edges.dst[10] = 1000 is not a vertex id (vertexCount is 1000)',
      );
      bad.src[3000] = 2 ** 32 - 1;
      const badSrc = device.upload(bad.src);
      await expect(deviceGraphFromEdgeList(device, { ...bad, src: badSrc })).rejects.toThrow(
        `edges.src[3000] = ${2 ** 32 - 1} is not a vertex id`,
      );
      await expect(deviceGraphFromEdgeList(device, { ...edges, dst: edges.dst.subarray(1) })).rejects.toThrow(
        InputError,
      );
      await expect(deviceGraphFromEdgeList(device, edges, { dedupe: 'mean' as DedupeRule })).rejects.toThrow(
        /dedupe/,
      );
      for (const a of [src, dst, weights, badSrc]) a.destroy();
    });
  });

  it('rebuilds with one plan: a second build with other data leaves nothing stale', async () => {
    await gpuTest(async (device) => {
      const shape = { edgeCount: 6000, vertexCount: 500, weightType: 'u32', directed: false } as const;
      const plan = DeviceBuildPlan.create(device, shape, { dedupe: 'last' });
      for (const seed of [1, 2]) {
        // The second list has fewer distinct pairs than the first.
        const edges = randomEdges(6000, 500, seed, 'u32', false, seed === 1 ? 400 : 60);
        const arrays = {
          src: device.upload(edges.src),
          dst: device.upload(edges.dst),
          weights: device.upload(edges.weights as Uint32Array),
        };
        const rec = device.recorder();
        await plan.record(rec, arrays);
        await plan.record(rec, arrays);
        await rec.submit();
        const counts = await plan.readCounts();
        const { csr, report } = hostCsrFromEdgeList(edges, { dedupe: 'last' });
        expect(plan.report(counts)).toEqual(report);
        const graph = await plan.toGraph(counts, arrays, { csc: true });
        const back = await graph.toHost();
        expectArrayEqual(back.offsets, csr.offsets, 'offsets');
        expectArrayEqual(back.targets, csr.targets, 'targets');
        expectArrayEqual(back.weights!, csr.weights!, 'weights');
        expectArrayEqual(await graph.sources!.download(), hostCscFromCsr(csr).sources, 'csc sources');
        graph.destroy();
        for (const a of Object.values(arrays)) (a as DeviceArray).destroy();
      }
      plan.destroy();
    });
  });

  it('builds a Kronecker graph of about 1M edges', async () => {
    await gpuTest(async (device) => {
      const edges = kronecker({ scale: 16, seed: 3, weights: true });
      expect(edges.src.length).toBe(2 ** 20);
      (await expectSameAsHost(device, edges, {})).destroy();
    });
  }, 60_000);

  it('builds a uniform random graph of 2^19 edges with 18-bit ids (two sorts)', async () => {
    await gpuTest(async (device) => {
      // 2^19 edges mirrored to 2^20 entries.
      const edges = uniformRandom({ scale: 18, edgeFactor: 2, seed: 5 });
      (await expectSameAsHost(device, edges, { csc: true })).destroy();
    });
  }, 60_000);
});

describe('deviceGraphFromCsr', () => {
  it('uploads a CSR and builds its in-edge view on the GPU', async () => {
    await gpuTest(async (device) => {
      for (const edges of [
        randomEdges(3000, 200, 4, 'f32', true),
        randomEdges(3000, 70_000, 6, 'none', true, 3000),
        { vertexCount: 5, src: new Uint32Array(0), dst: new Uint32Array(0), directed: true },
      ]) {
        const { csr } = hostCsrFromEdgeList(edges);
        const graph = await deviceGraphFromCsr(device, csr, { csc: true });
        const csc = hostCscFromCsr(csr);
        expectArrayEqual(await graph.inOffsets!.download(), csc.inOffsets, 'inOffsets');
        expectArrayEqual(await graph.sources!.download(), csc.sources, 'sources');
        expectArrayEqual(await graph.inEdgeIds!.download(), csc.inEdgeIds, 'inEdgeIds');
        expectArrayEqual((await graph.toHost()).targets, csr.targets, 'targets');
        graph.destroy();
      }
    });
  });
});
