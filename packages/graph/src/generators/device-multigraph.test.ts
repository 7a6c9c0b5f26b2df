import { DeviceLimitError, requestDevice, type WeftDevice } from '@weft/gpu';
import { expectArrayEqual, gpuTest } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import type { DeviceGraph } from '../device-graph.ts';
import type { HostCsr } from '../host-graph.ts';
import {
  type KroneckerOnDeviceOptions,
  multigraphCsr,
  pairWeight,
  pairWeightKey,
  philoxKronecker,
  philoxKroneckerMultigraph,
  philoxUniformMultigraph,
  type UniformOnDeviceOptions,
} from './counter-based.ts';
import { kroneckerMultigraphOnDevice, uniformMultigraphOnDevice } from './device-multigraph.ts';

// 256 bytes a chunk: 64 arcs, so graphs of 65 to 320 arcs span 2 to 5 chunks (weights as many again, within
// lavapipe's 16 storage buffers a kernel).
let shared: Promise<WeftDevice> | undefined;
const chunkedDevice = () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({ label: 'multigraph', bindingBudget: 256 });
  return shared;
};
afterAll(async () => (await shared)?.destroy());

/** Each vertex's arcs sorted by (target, weight): the device build leaves them in the order atomics landed. */
function sortedLists(csr: HostCsr): { targets: number[]; weights: number[] } {
  const targets: number[] = [];
  const weights: number[] = [];
  for (let v = 0; v < csr.vertexCount; v++) {
    const arcs: [number, number][] = [];
    for (let i = csr.offsets[v]!; i < csr.offsets[v + 1]!; i++) {
      arcs.push([csr.targets[i]!, csr.weights?.[i] ?? 0]);
    }
    arcs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    for (const [t, w] of arcs) {
      targets.push(t);
      weights.push(w);
    }
  }
  return { targets, weights };
}

async function expectTwin(made: Promise<DeviceGraph>, twin: HostCsr, chunks?: number): Promise<void> {
  const graph = await made;
  try {
    expect(graph.vertexCount).toBe(twin.vertexCount);
    expect(graph.edgeCount).toBe(twin.edgeCount);
    expect(graph.directed).toBe(false);
    if (chunks !== undefined) expect(graph.chunkedTargets.chunks.length).toBe(chunks);
    const back = await graph.toHost();
    expectArrayEqual(back.offsets, twin.offsets, 'offsets');
    const got = sortedLists(back);
    expectArrayEqual(got.targets, twin.targets, 'targets');
    if (twin.weights === undefined) expect(back.weights).toBeUndefined();
    else expectArrayEqual(got.weights, twin.weights, 'weights');
  } finally {
    graph.destroy();
  }
}

const kron = (device: WeftDevice, o: KroneckerOnDeviceOptions, chunks?: number) =>
  expectTwin(kroneckerMultigraphOnDevice(device, o), philoxKroneckerMultigraph(o), chunks);
const uniform = (device: WeftDevice, o: UniformOnDeviceOptions, chunks?: number) =>
  expectTwin(uniformMultigraphOnDevice(device, o), philoxUniformMultigraph(o), chunks);

describe('multigraphCsr (host twin of the scatter build)', () => {
  it('keeps duplicates, drops self-loops and gives both arcs the edge weight', () => {
    const csr = multigraphCsr({
      vertexCount: 4,
      src: Uint32Array.of(0, 1, 0, 2, 3),
      dst: Uint32Array.of(1, 0, 1, 2, 0),
      weights: Uint32Array.of(5, 4, 3, 9, 7),
      directed: false,
    });
    expect([...csr.offsets]).toEqual([0, 4, 7, 7, 8]);
    expect([...csr.targets]).toEqual([1, 1, 1, 3, 0, 0, 0, 0]);
    expect([...csr.weights!]).toEqual([3, 4, 5, 7, 3, 4, 5, 7]);
    // Pair weights: both arcs and every duplicate of an edge carry the weight of its vertex pair.
    const o = { scale: 4, edgeFactor: 8, seed: 3, weights: true } as const;
    const twin = philoxKroneckerMultigraph(o);
    const key = pairWeightKey(3);
    const seen = new Set<number>();
    for (let u = 0; u < twin.vertexCount; u++) {
      for (let i = twin.offsets[u]!; i < twin.offsets[u + 1]!; i++) {
        const v = twin.targets[i]!;
        const w = twin.weights![i]!;
        expect(w).toBe(pairWeight(v, u, key, { lo: 1, span: 255 }));
        seen.add(w);
      }
    }
    expect(seen.size).toBeGreaterThan(20);
    expect(Math.min(...seen)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...seen)).toBeLessThanOrEqual(255);
    expectArrayEqual(twin.targets, multigraphCsr(philoxKronecker(o)).targets, 'targets');
  });
});

describe('kroneckerMultigraphOnDevice', () => {
  it('equals the host twin in 2 to 5 chunks, with boundaries inside edge lists', async () => {
    const device = await chunkedDevice();
    for (const [scale, edgeFactor, weights] of [
      [0, 5, false],
      [1, 3, false],
      [5, 1, false],
      [3, 8, false],
      [4, 8, true],
      [5, 4, false],
      [4, 9, true],
      [3, 17, true],
    ] as const) {
      const o = { scale, edgeFactor, seed: 7 * scale + edgeFactor, weights };
      const arcs = philoxKroneckerMultigraph(o).edgeCount;
      await kron(device, o, Math.max(1, Math.ceil(arcs / 64)));
    }
    // Graphs that fit one chunk are built the same way in one binding; hubs take many cursor slots.
    await kron(device, { scale: 5, edgeFactor: 1, seed: 3, a: 0.9, b: 0.05, c: 0.05, permute: false });
  });

  it('equals the host twin in one binding at larger sizes, and the uniform generator too', async () => {
    await gpuTest(async (device) => {
      await kron(device, { scale: 10, edgeFactor: 16, seed: 5, weights: true }, 1);
      await kron(device, { scale: 8, edgeFactor: 1, seed: 6, weights: [0, 2 ** 32 - 1] }, 1);
      await uniform(device, { scale: 9, edgeFactor: 8, seed: 8, weights: true }, 1);
    });
    const device = await chunkedDevice();
    await uniform(device, { scale: 5, edgeFactor: 4, seed: 9, weights: [3, 4] });
  });

  it('refuses more than 2^32 - 1 possible arcs with a one-line DeviceLimitError', async () => {
    await gpuTest(async (device) => {
      const err = await kroneckerMultigraphOnDevice(device, { scale: 27, seed: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeviceLimitError);
      expect((err as Error).message).toMatch(/kroneckerMultigraphOnDevice: 2147483648 edges/);
      expect((err as Error).message).not.toMatch(/\n/);
    });
  });
});
