import { f32, rw, u32, wgsl } from '@weft/gpu';
import {
  adversarialSizes,
  expectArrayEqual,
  expectClose,
  gpuTest,
  randomF32,
  randomU32,
  skewedLengths,
} from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { transformLbs } from './index.ts';
import { TILE } from './merge-path.ts';
import { forEachItem, offsetsOf } from './reference.ts';

describe('transformLbs', () => {
  it('passes (index, seg, rank) to a functor that gathers through captured arrays', async () => {
    await gpuTest(async (device) => {
      for (const segments of adversarialSizes([TILE / 16], [40_000])) {
        const lengths = skewedLengths(segments, segments * 16, segments + 3);
        const { offsets, count } = offsetsOf(lengths);
        const values = randomU32(count, 1);
        const weights = randomU32(segments, 2, 2 ** 31);
        const off = device.upload(offsets.length > 0 ? offsets : new Uint32Array(1));
        const v = device.upload(values.length > 0 ? values : new Uint32Array(1));
        const w = device.upload(weights.length > 0 ? weights : new Uint32Array(1));
        const out = device.array('u32', Math.max(1, count));
        const ranks = device.array('u32', Math.max(1, count));
        await transformLbs(
          device,
          count,
          off,
          segments,
          wgsl`(index: u32, seg: u32, rank: u32) {
            ${rw(out)}[index] = ${v}[index] * ${w}[seg] + ${u32(5)};
            ${rw(ranks)}[index] = rank;
          }`,
        );
        const want = new Uint32Array(count);
        const wantRanks = new Uint32Array(count);
        forEachItem(count, offsets, segments, (i, s, r) => {
          want[i] = (Math.imul(values[i]!, weights[s]!) + 5) >>> 0;
          wantRanks[i] = r;
        });
        if (count > 0) {
          expectArrayEqual(await out.download(0, count), want, `segments=${segments}`);
          expectArrayEqual(await ranks.download(0, count), wantRanks, `ranks, segments=${segments}`);
        }
        for (const a of [off, v, w, out, ranks]) a.destroy();
      }
    });
  });

  it('computes f32 from captured arrays and scalars', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(10_000, 300_000, 8);
      const { offsets, count } = offsetsOf(lengths);
      const values = randomF32(count, 4);
      const weights = randomF32(lengths.length, 5);
      const off = device.upload(offsets);
      const v = device.upload(values);
      const w = device.upload(weights);
      const out = device.array('f32', count);
      await transformLbs(
        device,
        count,
        off,
        lengths.length,
        wgsl`(index: u32, seg: u32, rank: u32) { ${rw(out)}[index] = ${v}[index] * ${w}[seg] + ${f32(0.5)}; }`,
      );
      const want = new Float32Array(count);
      forEachItem(count, offsets, lengths.length, (i, s) => {
        want[i] = Math.fround(values[i]! * weights[s]!) + 0.5;
      });
      expectClose(await out.download(), want, () => 1e-6);
      for (const a of [off, v, w, out]) a.destroy();
    });
  });

  it('bounds a GPU count by maxCount: items up to it are visited, none written out of place', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(3_000, 50_000, 31);
      const { offsets, count } = offsetsOf(lengths);
      const off = device.upload(offsets);
      const gpuCount = device.upload(new Uint32Array([count]));
      const out = device.array('u32', count);
      await out.fill(0xffffffff);
      const maxCount = 20_000;
      await transformLbs(
        device,
        { array: gpuCount, index: 0 },
        off,
        lengths.length,
        wgsl`(index: u32, seg: u32, rank: u32) { ${rw(out)}[index] = seg; }`,
        { maxCount },
      );
      const got = await out.download();
      const want = new Uint32Array(count);
      forEachItem(count, offsets, lengths.length, (i, s) => {
        want[i] = s;
      });
      expectArrayEqual(got.subarray(0, maxCount), want.subarray(0, maxCount), 'items below maxCount');
      for (let i = maxCount; i < count; i++) {
        if (got[i] !== 0xffffffff && got[i] !== want[i]) expect.fail(`item ${i} is ${got[i]}`);
      }
      for (const a of [off, gpuCount, out]) a.destroy();
    });
  });

  it('writes values >= 2^30 and skips items before offsets[0]', async () => {
    await gpuTest(async (device) => {
      // Values >= 2^30 in offsets and in the functor's output.
      const off = device.upload(new Uint32Array([0, 3]));
      const out = device.array('u32', 5);
      await transformLbs(
        device,
        5,
        off,
        2,
        wgsl`(index: u32, seg: u32, rank: u32) { ${rw(out)}[index] = 0xc0000000u + seg * 16u + rank; }`,
      );
      expectArrayEqual(await out.download(), [0xc0000000, 0xc0000001, 0xc0000002, 0xc0000010, 0xc0000011]);
      // Items 0 and 1 come before the first segment: no call, so they keep the fill value.
      const late = device.upload(new Uint32Array([2, 4]));
      await out.fill(7);
      await transformLbs(
        device,
        5,
        late,
        2,
        wgsl`(index: u32, seg: u32, rank: u32) { ${rw(out)}[index] = seg * 16u + rank; }`,
      );
      expectArrayEqual(await out.download(), [7, 7, 0, 1, 16]);
      late.destroy();
      off.destroy();
      out.destroy();
    });
  });
});
