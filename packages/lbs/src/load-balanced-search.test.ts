import { InputError, type WeftDevice } from '@weft/gpu';
import {
  adversarialSizes,
  expectArrayEqual,
  gpuTest,
  mulberry32,
  randomU32,
  skewedLengths,
} from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { intervalExpand, loadBalancedSearch } from './index.ts';
import { TILE } from './merge-path.ts';
import { loadBalancedSearchReference, offsetsOf, uniformLengths } from './reference.ts';

async function checkLbs(device: WeftDevice, lengths: Uint32Array, what: string): Promise<void> {
  const { offsets, count } = offsetsOf(lengths);
  const off = device.upload(offsets.length > 0 ? offsets : new Uint32Array(1));
  const out = device.array('u32', Math.max(count, 1));
  await out.fill(0xdeadbeef);
  await loadBalancedSearch(device, count, off, lengths.length, out);
  const got = count > 0 ? await out.download(0, count) : new Uint32Array(0);
  expectArrayEqual(got, loadBalancedSearchReference(count, offsets, lengths.length), what);
  if (count === 0) expect((await out.download())[0]).toBe(0xdeadbeef);
  off.destroy();
  out.destroy();
}

describe('loadBalancedSearch', () => {
  it('finds each item segment for item counts around tile boundaries', async () => {
    await gpuTest(async (device) => {
      for (const count of adversarialSizes([TILE, TILE / 8], [5 * TILE + 17])) {
        // Segments of length 3 with the last one taking the rest: merge length = count + segments.
        const segments = Math.max(1, Math.floor(count / 3));
        const lengths = new Uint32Array(segments).fill(3);
        lengths[segments - 1] = count - 3 * (segments - 1);
        await checkLbs(device, lengths, `count=${count}`);
      }
    });
  });

  it('handles merge lengths of exactly k tiles +-1', async () => {
    await gpuTest(async (device) => {
      for (const merge of adversarialSizes([TILE])) {
        if (merge < 2) continue;
        // One item per segment: merge length = 2 * segments, plus one longer last segment when odd.
        const segments = Math.floor(merge / 2);
        const lengths = new Uint32Array(segments).fill(1);
        lengths[segments - 1] = 1 + (merge % 2);
        // merge % 2 extra item keeps items + segments == merge.
        await checkLbs(device, lengths, `merge=${merge}`);
      }
    });
  });

  it('handles uniform and power-law lengths', async () => {
    await gpuTest(async (device) => {
      const r = mulberry32(7);
      await checkLbs(device, uniformLengths(50_000, 16, r), 'uniform mean 16');
      await checkLbs(device, skewedLengths(60_000, 1_000_000, 3), 'skewed');
      await checkLbs(device, skewedLengths(5_000, 3_000_000, 4), 'very skewed');
    });
  });

  it('handles one huge segment, empty segments and a huge number of empty segments', async () => {
    await gpuTest(async (device) => {
      await checkLbs(device, new Uint32Array([1_500_000]), 'one huge segment');
      await checkLbs(device, new Uint32Array(1_000_000), '10^6 empty segments, no items');
      const mostlyEmpty = new Uint32Array(1_000_000);
      mostlyEmpty[0] = 5;
      mostlyEmpty[499_999] = 3 * TILE;
      mostlyEmpty[999_999] = 7;
      await checkLbs(device, mostlyEmpty, '10^6 segments, three non-empty');
      const trailingEmpty = new Uint32Array(10_000);
      trailingEmpty[0] = 40_000;
      await checkLbs(device, trailingEmpty, 'one segment then 9999 empty');
      await checkLbs(device, new Uint32Array(0), 'zero segments');
      await checkLbs(device, new Uint32Array([0]), 'one empty segment');
      await checkLbs(device, new Uint32Array([1]), 'one item');
    });
  });

  it('accepts a CSR row-pointer array with numSegments + 1 entries', async () => {
    await gpuTest(async (device) => {
      const rowPtr = new Uint32Array([0, 2, 2, 7, 8]);
      const off = device.upload(rowPtr);
      const out = device.array('u32', 8);
      await loadBalancedSearch(device, 8, off, 4, out);
      expectArrayEqual(await out.download(), [0, 0, 2, 2, 2, 2, 2, 3]);
      off.destroy();
      out.destroy();
    });
  });

  it('reads item and segment counts from the GPU', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(20_000, 200_000, 11);
      const { offsets, count } = offsetsOf(lengths);
      const off = device.upload(offsets);
      const want = loadBalancedSearchReference(count, offsets, lengths.length);
      const counts = device.upload(new Uint32Array([99, count, lengths.length]));
      for (const [c, s] of [
        [{ array: counts, index: 1 }, lengths.length],
        [count, { array: counts, index: 2 }],
        [
          { array: counts, index: 1 },
          { array: counts, index: 2 },
        ],
      ] as const) {
        const out = device.array('u32', count + 10);
        await out.fill(0xffff);
        await loadBalancedSearch(device, c, off, s, out);
        const got = await out.download();
        expectArrayEqual(got.subarray(0, count), want, 'gpu counts');
        expectArrayEqual(got.subarray(count), new Uint32Array(10).fill(0xffff), 'past count');
        out.destroy();
      }
      // A GPU count of zero items and segments launches nothing.
      const zeros = device.upload(new Uint32Array([0, 0]));
      const out = device.array('u32', 4);
      await out.fill(5);
      await loadBalancedSearch(device, { array: zeros, index: 0 }, off, { array: zeros, index: 1 }, out);
      expectArrayEqual(await out.download(), [5, 5, 5, 5]);
      off.destroy();
      counts.destroy();
      zeros.destroy();
      out.destroy();
    });
  });

  it('rejects bad arguments', async () => {
    await gpuTest(async (device) => {
      const off = device.upload(new Uint32Array([0, 4]));
      const out = device.array('u32', 8);
      await expect(loadBalancedSearch(device, 8, off, 3, out)).rejects.toThrow(/numSegments is 3.*only 2/);
      await expect(loadBalancedSearch(device, 9, off, 2, out)).rejects.toThrow(/8 elements but count is 9/);
      await expect(loadBalancedSearch(device, 8, off, 0, out)).rejects.toThrow(InputError);
      await expect(loadBalancedSearch(device, -1, off, 2, out)).rejects.toThrow(/count must be/);
      off.destroy();
      out.destroy();
    });
  });
});

describe('intervalExpand', () => {
  it('copies each segment value into its items, twice on the same arrays with new data', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(30_000, 400_000, 21);
      const { offsets, count } = offsetsOf(lengths);
      const off = device.upload(offsets);
      const values = device.array('u32', lengths.length);
      const out = device.array('u32', count);
      for (const seed of [1, 2]) {
        const host = randomU32(lengths.length, seed);
        values.upload(host);
        await intervalExpand(device, count, off, lengths.length, values, out);
        const segOf = loadBalancedSearchReference(count, offsets, lengths.length);
        expectArrayEqual(
          await out.download(),
          segOf.map((s) => host[s]!),
          `seed ${seed}`,
        );
      }
      off.destroy();
      values.destroy();
      out.destroy();
    });
  });

  it('expands f32 values', async () => {
    await gpuTest(async (device) => {
      const off = device.upload(new Uint32Array([0, 0, 3, 3, 4]));
      const values = device.upload(new Float32Array([1.5, -2.25, 7, 0.125, 9]));
      const out = device.array('f32', 6);
      await intervalExpand(device, 6, off, 5, values, out);
      expectArrayEqual(await out.download(), [-2.25, -2.25, -2.25, 0.125, 9, 9]);
      off.destroy();
      values.destroy();
      out.destroy();
    });
  });
});
