import { DeviceLimitError, InputError, type WeftDevice } from '@weft/gpu';
import { expectArrayEqual, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import type { DeviceGraph } from '../device-graph.ts';
import { hostCsrFromEdgeList } from '../host-build.ts';
import { type HostEdgeList, outDegrees } from '../host-graph.ts';
import {
  type KroneckerOnDeviceOptions,
  kroneckerParameters,
  philoxKronecker,
  philoxUniform,
  scramble,
  type UniformOnDeviceOptions,
} from './counter-based.ts';
import { kroneckerOnDevice, recordKroneckerEdges, uniformOnDevice } from './device-generators.ts';
import { kronecker } from './kronecker.ts';

async function expectSameCsr(made: Promise<DeviceGraph>, twin: HostEdgeList): Promise<DeviceGraph> {
  const graph = await made;
  const { csr } = hostCsrFromEdgeList(twin);
  expect(graph.vertexCount).toBe(csr.vertexCount);
  expect(graph.edgeCount).toBe(csr.edgeCount);
  expect(graph.directed).toBe(false);
  const back = await graph.toHost();
  expectArrayEqual(back.offsets, csr.offsets, 'offsets');
  expectArrayEqual(back.targets, csr.targets, 'targets');
  if (csr.weights === undefined) expect(back.weights).toBeUndefined();
  else expectArrayEqual(back.weights!, csr.weights, 'weights');
  return graph;
}

const kron = (device: WeftDevice, o: KroneckerOnDeviceOptions) =>
  expectSameCsr(kroneckerOnDevice(device, o), philoxKronecker(o)).then((g) => g.destroy());
const uniform = (device: WeftDevice, o: UniformOnDeviceOptions) =>
  expectSameCsr(uniformOnDevice(device, o), philoxUniform(o)).then((g) => g.destroy());

describe('philoxKronecker (host twin)', () => {
  it('relabels with a bijection at every scale', () => {
    for (let scale = 0; scale <= 12; scale++) {
      const s = kroneckerParameters({ scale, seed: 77 + scale }).scramble!;
      const seen = new Uint8Array(2 ** scale);
      for (let v = 0; v < 2 ** scale; v++) seen[scramble(v, s)]! += 1;
      expect(seen.every((c) => c === 1)).toBe(true);
    }
    const big = kroneckerParameters({ scale: 31, edgeFactor: 1, seed: 5 }).scramble!;
    for (const v of [0, 1, 2 ** 30, 2 ** 31 - 1]) expect(scramble(v, big)).toBeLessThan(2 ** 31);
  });

  it('is deterministic, differs across seeds, and checks its options', () => {
    const a = philoxKronecker({ scale: 8, seed: 3, weights: true });
    const b = philoxKronecker({ scale: 8, seed: 3 });
    expectArrayEqual(a.src, b.src, 'src');
    expectArrayEqual(a.dst, b.dst, 'dst');
    expect(a.src.some((x, i) => x !== philoxKronecker({ scale: 8, seed: 4 }).src[i])).toBe(true);
    const w = a.weights as Uint32Array;
    expect(Math.min(...w)).toBe(1);
    expect(Math.max(...w)).toBe(255);
    expect([...philoxKronecker({ scale: 0, edgeFactor: 3, seed: 1 }).src]).toEqual([0, 0, 0]);
    // a = 1: every level picks quadrant a, so every edge is the loop (0, 0) before relabelling.
    const loops = philoxKronecker({ scale: 5, edgeFactor: 2, seed: 1, a: 1, b: 0, c: 0, permute: false });
    expect(loops.src.every((x) => x === 0) && loops.dst.every((x) => x === 0)).toBe(true);
    expect(() => philoxKronecker({ scale: 32, seed: 1 })).toThrow(InputError);
    expect(() => philoxKronecker({ scale: 4, seed: 0.5 })).toThrow(/seed/);
    expect(() => philoxKronecker({ scale: 4, seed: 1, a: 0.9, b: 0.2 })).toThrow(/a \+ b \+ c <= 1/);
    expect(() => philoxUniform({ scale: 4, seed: 1, weights: [3, 2] })).toThrow(/weights/);
  });
});

describe('kroneckerOnDevice', () => {
  it('equals the host twin at tiny scales and around workgroup multiples', async () => {
    await gpuTest(async (device) => {
      for (const [scale, edgeFactor] of [
        [0, 0],
        [0, 257],
        [1, 1],
        [1, 127],
        [1, 129],
        [2, 16],
        [3, 8],
        [3, 32],
        [5, 31],
        [5, 33],
        [8, 4],
      ] as const) {
        await kron(device, { scale, edgeFactor, seed: 11 * scale + edgeFactor });
      }
    });
  });

  it('equals the host twin with weights, custom initiators, no relabelling and the in-edge view', async () => {
    await gpuTest(async (device) => {
      await kron(device, { scale: 6, edgeFactor: 8, seed: 1, weights: true });
      await kron(device, { scale: 7, edgeFactor: 5, seed: 2, weights: [0, 2 ** 32 - 1] });
      await kron(device, { scale: 6, edgeFactor: 8, seed: 3, permute: false });
      await kron(device, { scale: 5, edgeFactor: 8, seed: 4, a: 0.25, b: 0.25, c: 0.25 });
      await kron(device, { scale: 5, edgeFactor: 8, seed: 5, a: 1, b: 0, c: 0 });
      await kron(device, { scale: 5, edgeFactor: 8, seed: -6, a: 0, b: 0.5, c: 0.5 });
      const o = { scale: 6, edgeFactor: 4, seed: 7 };
      const g = await expectSameCsr(kroneckerOnDevice(device, { ...o, csc: true }), philoxKronecker(o));
      expect(g.inOffsets).toBeDefined();
      g.destroy();
    });
  });

  it('has a skewed degree distribution at scale 12, as the twin', async () => {
    await gpuTest(async (device) => {
      const o = { scale: 12, seed: 9 };
      const g = await expectSameCsr(kroneckerOnDevice(device, o), philoxKronecker(o));
      const degrees = outDegrees(await g.toHost());
      g.destroy();
      // The same shape as the host generator's graph: hub size and share of isolated vertices.
      const stats = (d: Uint32Array) => {
        const avg = d.reduce((s, x) => s + x, 0) / d.length;
        return { avg, hub: Math.max(...d) / avg, isolated: d.filter((x) => x === 0).length / d.length };
      };
      const got = stats(degrees);
      const want = stats(outDegrees(hostCsrFromEdgeList(kronecker(o)).csr));
      expect(got.avg).toBeGreaterThan(10);
      expect(Math.abs(got.avg - want.avg)).toBeLessThan(0.05 * want.avg);
      expect(got.hub).toBeGreaterThan(40);
      expect(Math.abs(got.hub - want.hub)).toBeLessThan(0.2 * want.hub);
      expect(Math.abs(got.isolated - want.isolated)).toBeLessThan(0.03);
      // The relabelling hides the hub: unrelabelled, vertex 0 has the largest degree.
      const plain = outDegrees(hostCsrFromEdgeList(philoxKronecker({ ...o, permute: false })).csr);
      expect(plain[0]).toBe(Math.max(...plain));
      expectArrayEqual(plain.slice().sort(), degrees.slice().sort(), 'degree sequence');
    });
  });

  it('rejects a build beyond one binding with a one-line DeviceLimitError, and bad outputs', async () => {
    await gpuTest(async (device) => {
      const err = await kroneckerOnDevice(device, { scale: 26, seed: 1 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DeviceLimitError);
      expect((err as Error).message).toMatch(/kroneckerOnDevice: graph build keys \(u32 x 2147483648\)/);
      expect((err as Error).message).not.toMatch(/\n/);
      const src = device.array('u32', 10);
      const rec = device.recorder();
      await expect(recordKroneckerEdges(rec, { src, dst: src }, { scale: 2, seed: 1 })).rejects.toThrow(
        /edges.src has 10 entries, the generator makes 64/,
      );
      await expect(
        recordKroneckerEdges(rec, { src, dst: src }, { scale: 1, edgeFactor: 5, seed: 1, weights: true }),
      ).rejects.toThrow(/weights/);
      src.destroy();
    });
  });
});

describe('uniformOnDevice', () => {
  it('equals the host twin at several sizes, weighted and not', async () => {
    await gpuTest(async (device) => {
      for (const [scale, edgeFactor] of [
        [0, 5],
        [1, 3],
        [3, 8],
        [4, 16],
        [6, 15],
        [6, 17],
        [10, 16],
      ] as const) {
        await uniform(device, { scale, edgeFactor, seed: scale + 100 * edgeFactor });
      }
      await uniform(device, { scale: 5, edgeFactor: 8, seed: 2, weights: [10, 12] });
      const degrees = outDegrees(hostCsrFromEdgeList(philoxUniform({ scale: 12, seed: 3 })).csr);
      const avg = degrees.reduce((s, x) => s + x, 0) / degrees.length;
      expect(avg).toBeGreaterThan(31);
      expect(Math.max(...degrees)).toBeLessThan(avg + 8 * Math.sqrt(avg));
    });
  });
});
