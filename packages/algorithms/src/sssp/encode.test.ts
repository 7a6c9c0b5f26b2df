import { gpuTest, mulberry32, randomPermutation } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { SATURATED_F32, SATURATED_U32 } from '../weights.ts';
import { decodeDistances, UNREACHED_F32, UNREACHED_U32 } from './decode.ts';
import { encodesOnDevice, readDistances } from './encode.ts';

const f32Bits = (x: number) => new Uint32Array(Float32Array.of(x).buffer)[0]!;

/** u32 words at the edges of the encoding: powers of two and their neighbours, the largest sums, unreached. */
const U32_EDGES = [
  0,
  1,
  2,
  3,
  2 ** 23 - 1,
  2 ** 23 + 1,
  2 ** 24 - 1,
  2 ** 24 + 1,
  2 ** 31,
  2 ** 31 + 1,
  2 ** 32 - 3,
];
U32_EDGES.push(UNREACHED_U32, 0x12345678, 0xfffff, 0x100000, 0x1fffff);

/** f32 bits at the edges: signed zeros, subnormals, normals, the largest finite below saturation, Inf, NaN. */
const F32_EDGES = [0, 0x80000000, 1, 0x7fffff, 0x800001, 0x400000, f32Bits(1), f32Bits(1.5), f32Bits(0.1)];
F32_EDGES.push(
  0x00800000,
  0x7f7ffffe,
  UNREACHED_F32,
  0xff800000,
  0x7fc00000,
  0x7f800001,
  0xffc00001,
  0x80000001,
);

/** `n` words: random ones (both kinds' full range, some unreached) and the edge words, shuffled in. */
function words(n: number, float: boolean, seed: number): Uint32Array {
  const r = mulberry32(seed);
  const edges = float ? F32_EDGES : U32_EDGES;
  const saturated = float ? SATURATED_F32 : SATURATED_U32;
  return Uint32Array.from({ length: n }, () => {
    const pick = r();
    if (pick < 0.3) return edges[Math.floor(r() * edges.length)]!;
    const w = Math.floor(r() * 2 ** 32) >>> (pick < 0.5 ? Math.floor(r() * 32) : 0);
    return w === saturated ? 0 : w;
  });
}

/** The first index where `got` and `want` differ under `Object.is` (-0 is not +0, NaN is NaN), or -1. */
function firstDifference(got: Float64Array, want: Float64Array): number {
  if (got.length !== want.length) return Math.min(got.length, want.length);
  return got.findIndex((x, i) => !Object.is(x, want[i]));
}

const SIZES = [0, 1, 2, 255, 256, 257, 1023, 1024, 1025, 4096, 5000];

describe('readDistances', () => {
  it('encodes u32 sums and f32 bits as decodeDistances does, value for value', () =>
    gpuTest(async (device) => {
      for (const float of [false, true]) {
        for (const n of SIZES) {
          const raw = words(n, float, n + (float ? 7 : 0));
          // One spare word past n: the encoder must not read it.
          const array = device.upload(Uint32Array.from([...raw, 0]));
          expect(encodesOnDevice(array, n)).toBe(n > 0);
          const got = await readDistances(array, n, float);
          expect(firstDifference(got, decodeDistances(raw, float)), `float ${float}, n ${n}`).toBe(-1);
          array.destroy();
        }
      }
    }));

  it('encodes every edge word exactly', () =>
    gpuTest(async (device) => {
      for (const float of [false, true]) {
        const raw = Uint32Array.from(float ? F32_EDGES : U32_EDGES);
        const array = device.upload(raw);
        const got = await readDistances(array, raw.length, float);
        const want = decodeDistances(raw, float);
        expect(firstDifference(got, want), `float ${float}`).toBe(-1);
        if (!float) expect([...got.subarray(0, 3)]).toEqual([0, 1, 2]);
        if (float) expect(Object.is(got[1], -0) && got[2] === 2 ** -149 && Number.isNaN(got[13])).toBe(true);
        array.destroy();
      }
    }));

  it("reads another unreached word as Infinity (a NeighborGraph's f32 distances), refuses a bad decode", () =>
    gpuTest(async (device) => {
      for (const float of [false, true]) {
        const raw = words(1000, float, 21);
        raw[3] = UNREACHED_U32;
        raw[4] = float ? UNREACHED_F32 : 77;
        const array = device.upload(raw);
        for (const unreached of [UNREACHED_U32, 77, UNREACHED_F32]) {
          const got = await readDistances(array, raw.length, float, { unreached });
          const want = decodeDistances(raw, float, undefined, unreached);
          expect(firstDifference(got, want), `float ${float}, unreached ${unreached}`).toBe(-1);
          expect(got[3] === Number.POSITIVE_INFINITY).toBe(unreached === UNREACHED_U32);
        }
        await expect(readDistances(array, 10, float, { decode: 'gpu' as 'host' })).rejects.toThrow(
          /decode must be 'device' or 'host', got 'gpu'/,
        );
        array.destroy();
      }
    }));

  it('scatters through a device order, word i to vertex order[i]', () =>
    gpuTest(async (device) => {
      for (const float of [false, true]) {
        for (const n of [1, 257, 3000]) {
          const raw = words(n, float, 3 * n);
          const order = randomPermutation(n, n);
          const [array, onDevice] = [device.upload(raw), device.upload(order)];
          const got = await readDistances(array, n, float, { order: onDevice });
          expect(firstDifference(got, decodeDistances(raw, float, order)), `float ${float}, n ${n}`).toBe(-1);
          array.destroy();
          onDevice.destroy();
        }
      }
    }));

  it('names the lowest saturated vertex, as decodeDistances does', () =>
    gpuTest(async (device) => {
      for (const float of [false, true]) {
        const n = 3000;
        const saturated = float ? SATURATED_F32 : SATURATED_U32;
        const raw = words(n, float, 11);
        const order = randomPermutation(n, 5);
        for (const v of [2999, 1234, 517]) raw[v] = saturated;
        const array = device.upload(raw);
        await expect(readDistances(array, n, float)).rejects.toThrow(/distance of vertex 517 reached/);
        // Through the order, the lowest vertex among order[2999], order[1234], order[517].
        const lowest = Math.min(order[2999]!, order[1234]!, order[517]!);
        expect(() => decodeDistances(raw, float, order)).toThrow(`distance of vertex ${lowest} reached`);
        const onDevice = device.upload(order);
        await expect(readDistances(array, n, float, { order: onDevice })).rejects.toThrow(
          `distance of vertex ${lowest} reached`,
        );
        // One saturated word at vertex 0.
        array.upload([saturated]);
        await expect(readDistances(array, 1, float)).rejects.toThrow(/distance of vertex 0 reached/);
        array.destroy();
        onDevice.destroy();
      }
    }));

  it('decodes on the host where the scratch exceeds one binding, or when asked to', () =>
    gpuTest(async (device) => {
      const n = 1000;
      const raw = words(n, false, 2);
      const order = randomPermutation(n, 3);
      const [array, onDevice] = [device.upload(raw), device.upload(order)];
      const want = decodeDistances(raw, false, order);
      expect(
        firstDifference(await readDistances(array, n, false, { order: onDevice, decode: 'host' }), want),
      ).toBe(-1);
      const budget = device.bindingBudget;
      try {
        device.bindingBudget = 8 * n;
        expect(encodesOnDevice(array, n)).toBe(false);
        expect(encodesOnDevice(array, n - 1)).toBe(true);
        expect(firstDifference(await readDistances(array, n, false, { order: onDevice }), want)).toBe(-1);
        raw[7] = SATURATED_U32;
        array.upload(raw);
        await expect(readDistances(array, n, false)).rejects.toThrow(/distance of vertex 7 reached/);
      } finally {
        device.bindingBudget = budget;
      }
      array.destroy();
      onDevice.destroy();
    }));
});
