import {
  type ElementType,
  InputError,
  type Monoid,
  max,
  min,
  plus,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import {
  adversarialSizes,
  expectArrayEqual,
  expectClose,
  gpuTest,
  mulberry32,
  randomF32,
  randomI32,
  randomU32,
  skewedLengths,
  ulpTolerance,
} from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { segmentedReduce, TILE, type TilePathOption } from './index.ts';
import { type HostMonoid, hostMonoids, offsetsOf, segreduceReference } from './reference.ts';

const hostArrays = { u32: Uint32Array, i32: Int32Array, f32: Float32Array } as const;

function randomValues(type: ElementType, n: number, seed: number): Uint32Array | Int32Array | Float32Array {
  if (type === 'u32') return randomU32(n, seed);
  if (type === 'i32') return randomI32(n, seed);
  return randomF32(n, seed, -100, 100);
}

/** Runs segmentedReduce over `lengths` and compares with the reference (f32 sums with a tolerance). */
async function check(
  device: WeftDevice,
  lengths: Uint32Array,
  monoid: Monoid,
  host: HostMonoid,
  what: string,
  seed = 1,
  path: TilePathOption = {},
  source: 'array' | 'functor' = 'array',
): Promise<void> {
  const { offsets, count } = offsetsOf(lengths);
  const values = randomValues(monoid.type, count, seed);
  const v = device.upload(count > 0 ? values : new hostArrays[monoid.type](1));
  const off = device.upload(offsets.length > 0 ? offsets : new Uint32Array(1));
  const out = device.array(monoid.type, Math.max(1, lengths.length));
  await out.fill(77);
  // As a functor of the index: the values reversed, so an item given another's index shows.
  const last = Math.max(0, count - 1);
  const stored = source === 'functor' ? values.slice().reverse() : values;
  if (source === 'functor') v.upload(stored.length > 0 ? stored : new hostArrays[monoid.type](1));
  const input =
    source === 'functor' ? wgsl`(index: u32) -> ${monoid.type} { return ${v}[${u32(last)} - index]; }` : v;
  await segmentedReduce(device, input, off, lengths.length, out, {
    monoid,
    count,
    ...path,
  });
  const got = await out.download(0, lengths.length);
  const want = segreduceReference(count, offsets, lengths.length, (i) => values[i]!, host);
  if (monoid.type === 'f32' && host === hostMonoids['plus f32']) {
    const magnitude = segreduceReference(count, offsets, lengths.length, (i) => Math.abs(values[i]!), host);
    expectClose(got, want, (s) => ulpTolerance(lengths[s]!, magnitude[s]!));
  } else {
    expectArrayEqual(got, new hostArrays[monoid.type](want), what);
  }
  if (lengths.length === 0) expect((await out.download())[0]).toBe(77);
  v.destroy();
  off.destroy();
  out.destroy();
}

const sumU32 = [plus('u32'), hostMonoids['plus u32']] as const;

describe('segmentedReduce', () => {
  it('sums u32 (wrapping, values up to 2^32) for counts around tile boundaries', async () => {
    await gpuTest(async (device) => {
      for (const count of adversarialSizes([TILE, TILE / 8], [5 * TILE + 17])) {
        const segments = Math.max(1, Math.floor(count / 5));
        const lengths = new Uint32Array(segments).fill(5);
        lengths[segments - 1] = count - 5 * (segments - 1);
        await check(device, lengths, ...sumU32, `count=${count}`, count);
      }
    });
  });

  it('handles merge lengths of exactly k tiles +-1 with one-item segments', async () => {
    await gpuTest(async (device) => {
      for (const merge of adversarialSizes([TILE])) {
        if (merge < 2) continue;
        const segments = Math.floor(merge / 2);
        const lengths = new Uint32Array(segments).fill(1);
        lengths[segments - 1] = 1 + (merge % 2);
        await check(device, lengths, ...sumU32, `merge=${merge}`);
      }
    });
  });

  it('handles uniform, power-law, one huge and 10^6 empty segments', async () => {
    await gpuTest(async (device) => {
      const r = mulberry32(3);
      const uniform = new Uint32Array(60_000).map(() => Math.floor(r() * 33));
      await check(device, uniform, ...sumU32, 'uniform mean 16');
      await check(device, skewedLengths(60_000, 1_000_000, 3), ...sumU32, 'skewed');
      await check(device, skewedLengths(3_000, 2_000_000, 4), ...sumU32, 'very skewed');
      await check(device, new Uint32Array([1_500_000]), ...sumU32, 'one huge segment');
      await check(device, new Uint32Array(1_000_000), ...sumU32, '10^6 empty segments');
      const sparse = new Uint32Array(1_000_000);
      sparse[0] = 3;
      sparse[1] = 40 * TILE;
      sparse[500_000] = 7 * TILE + 1;
      sparse[999_999] = 5;
      await check(device, sparse, ...sumU32, '10^6 segments, four non-empty');
      await check(device, new Uint32Array(0), ...sumU32, 'zero segments');
      await check(device, new Uint32Array([0]), ...sumU32, 'one empty segment');
      await check(device, new Uint32Array([0, 0, 1, 0]), ...sumU32, 'one item among empties');
    });
  });

  it('gives the same answers with the workgroup-memory scan (adapters without subgroups)', async (context) => {
    await gpuTest(
      async (device) => {
        expect(device.hasSubgroups).toBe(true); // so the default runs above took the subgroup scan
        for (const count of adversarialSizes([TILE], [3 * TILE + 5])) {
          const lengths = new Uint32Array(Math.max(1, Math.ceil(count / 3))).fill(3);
          lengths[lengths.length - 1] = count - 3 * (lengths.length - 1);
          await check(device, lengths, ...sumU32, `no subgroups count=${count}`, count, { subgroups: false });
        }
        await check(device, skewedLengths(20_000, 400_000, 5), ...sumU32, 'no subgroups skewed', 1, {
          subgroups: false,
        });
        const sparse = new Uint32Array(200_000);
        sparse[3] = 9 * TILE;
        await check(device, sparse, ...sumU32, 'no subgroups sparse', 1, { subgroups: false });
        for (const type of ['i32', 'f32'] as const) {
          const key = `max ${type}` as const;
          await check(device, skewedLengths(5_000, 80_000, 6), max(type), hostMonoids[key], key, 2, {
            subgroups: false,
          });
        }
      },
      { subgroups: true, context },
    );
  });

  it('sums integers the same on the serial-walk path as by prefix differences (the default)', async () => {
    await gpuTest(async (device) => {
      const walk = { prefixSums: false };
      for (const count of adversarialSizes([TILE], [3 * TILE + 2])) {
        const lengths = new Uint32Array(Math.max(1, Math.ceil(count / 6))).fill(6);
        lengths[lengths.length - 1] = count - 6 * (lengths.length - 1);
        await check(device, lengths, ...sumU32, `walk count=${count}`, count, walk);
      }
      await check(device, skewedLengths(30_000, 500_000, 13), ...sumU32, 'walk skewed', 1, walk);
      await check(device, new Uint32Array([700_000]), ...sumU32, 'walk one huge segment', 1, walk);
      await check(device, new Uint32Array(400_000), ...sumU32, 'walk empty segments', 1, walk);
      const sparse = new Uint32Array(300_000);
      sparse[0] = 2;
      sparse[150_000] = 6 * TILE + 3;
      for (const type of ['u32', 'i32'] as const) {
        const key = `plus ${type}` as const;
        await check(device, sparse, plus(type), hostMonoids[key], `walk sparse ${type}`, 4, walk);
        await check(device, sparse, plus(type), hostMonoids[key], `prefix sparse ${type}`, 4);
      }
    });
  });

  it('takes a functor of the index as its values (an input iterator) on every path', async () => {
    await gpuTest(async (device) => {
      const f = 'functor' as const;
      for (const count of adversarialSizes([TILE], [3 * TILE + 5])) {
        const segments = Math.max(1, Math.floor(count / 3));
        const lengths = new Uint32Array(segments).fill(3);
        lengths[segments - 1] = count - 3 * (segments - 1);
        await check(device, lengths, ...sumU32, `functor count=${count}`, count, {}, f);
      }
      const skewed = skewedLengths(20_000, 300_000, 31);
      skewed[3] = 0;
      skewed[50] = 4 * TILE;
      await check(device, skewed, plus('f32'), hostMonoids['plus f32'], 'functor f32', 5, {}, f);
      await check(device, skewed, min('i32'), hostMonoids['min i32'], 'functor min i32', 6, {}, f);
      await check(device, new Uint32Array([700_000]), plus('f32'), hostMonoids['plus f32'], 'huge', 7, {}, f);
      const scan = { subgroups: false, prefixSums: false };
      await check(device, skewed, ...sumU32, 'functor, no subgroups', 8, scan, f);
      await check(device, new Uint32Array(0), ...sumU32, 'functor, no segments', 9, {}, f);
      const off = device.upload(new Uint32Array([0, 2]));
      const out = device.array('u32', 2);
      await expect(
        segmentedReduce(device, wgsl`(index: u32) -> u32 { return index; }`, off, 2, out),
      ).rejects.toThrow(/count is needed/);
      off.destroy();
      out.destroy();
    });
  });

  it('leaves items before the first segment start out, on both paths', async () => {
    await gpuTest(async (device) => {
      const count = 4 * TILE + 9;
      const offsets = Uint32Array.from([TILE + 3, TILE + 3, 2 * TILE, 2 * TILE + 1]);
      const values = randomU32(count, 21);
      const v = device.upload(values);
      const off = device.upload(offsets);
      const out = device.array('u32', offsets.length);
      const want = segreduceReference(count, offsets, offsets.length, (i) => values[i]!, sumU32[1]);
      for (const prefixSums of [true, false]) {
        await segmentedReduce(device, v, off, offsets.length, out, { prefixSums });
        expectArrayEqual(await out.download(), want, `prefixSums ${prefixSums}`);
      }
      for (const a of [v, off, out]) a.destroy();
    });
  });

  it('reduces with plus, min and max on u32, i32 and f32', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(20_000, 300_000, 9);
      lengths[7] = 0;
      lengths[100] = 5 * TILE; // a segment across several tiles
      for (const [name, make] of [
        ['plus', plus],
        ['min', min],
        ['max', max],
      ] as const) {
        for (const type of ['u32', 'i32', 'f32'] as const) {
          const key = `${name} ${type}` as keyof typeof hostMonoids;
          await check(device, lengths, make(type), hostMonoids[key], key, 17);
        }
      }
    });
  });

  it('sums f32 over one huge segment (compare-exchange fix-up across many tiles)', async () => {
    await gpuTest(async (device) => {
      await check(device, new Uint32Array([1_000_000]), plus('f32'), hostMonoids['plus f32'], 'huge f32');
      await check(device, new Uint32Array([5, 900_000, 0, 3]), min('f32'), hostMonoids['min f32'], 'min f32');
    });
  });

  it('folds a custom monoid without an atomic (xor) through compare-exchange across tiles', async () => {
    await gpuTest(async (device) => {
      const xor: Monoid<'u32'> = {
        type: 'u32',
        identity: '0u',
        combine: wgsl`(a: u32, b: u32) -> u32 { return a ^ b; }`,
      };
      const lengths = new Uint32Array([3, 20 * TILE + 5, 0, 2 * TILE, 1]);
      await check(device, lengths, xor, { identity: 0, combine: (a, b) => (a ^ b) >>> 0 }, 'xor', 9);
    });
  });

  it('gives the same answers on a second run with other data (no stale scratch)', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(10_000, 200_000, 5);
      const { offsets, count } = offsetsOf(lengths);
      const off = device.upload(offsets);
      const v = device.array('u32', count);
      const out = device.array('u32', lengths.length);
      for (const seed of [1, 2]) {
        const values = randomU32(count, seed, 2 ** 31);
        v.upload(values);
        await segmentedReduce(device, v, off, lengths.length, out);
        const want = segreduceReference(count, offsets, lengths.length, (i) => values[i]!, sumU32[1]);
        expectArrayEqual(await out.download(), want, `seed ${seed}`);
      }
      off.destroy();
      v.destroy();
      out.destroy();
    });
  });

  it('reads item and segment counts from the GPU', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(20_000, 250_000, 12);
      const { offsets, count } = offsetsOf(lengths);
      const values = randomU32(count + 100, 6);
      const v = device.upload(values);
      const off = device.upload(offsets);
      const counts = device.upload(new Uint32Array([count, lengths.length]));
      const want = segreduceReference(count, offsets, lengths.length, (i) => values[i]!, sumU32[1]);
      const out = device.array('u32', lengths.length + 4);
      await out.fill(3);
      await segmentedReduce(device, v, off, { array: counts, index: 1 }, out, {
        count: { array: counts, index: 0 },
      });
      const got = await out.download();
      expectArrayEqual(got.subarray(0, lengths.length), want, 'gpu counts');
      expectArrayEqual(got.subarray(lengths.length), [3, 3, 3, 3], 'past numSegments');
      for (const a of [v, off, counts, out]) a.destroy();
    });
  });

  it('rejects bad arguments', async () => {
    await gpuTest(async (device) => {
      const v = device.upload(new Uint32Array(8));
      const f = device.upload(new Float32Array(8));
      const off = device.upload(new Uint32Array([0, 4]));
      const out = device.array('u32', 1);
      await expect(segmentedReduce(device, v, off, 2, out)).rejects.toThrow(
        /1 elements but numSegments is 2/,
      );
      await expect(segmentedReduce(device, v, off, 3, out)).rejects.toThrow(/only 2 entries/);
      await expect(segmentedReduce(device, f, off, 1, out as never)).rejects.toThrow(/differ in type/);
      await expect(segmentedReduce(device, v, off, 1, out, { monoid: plus('i32') as never })).rejects.toThrow(
        /monoid works on i32/,
      );
      await expect(segmentedReduce(device, v, off, 0, out)).rejects.toThrow(InputError);
      await expect(segmentedReduce(device, v, off, 1, out, { count: 9 })).rejects.toThrow(/count is 9/);
      for (const a of [v, f, off, out]) a.destroy();
    });
  });
});
