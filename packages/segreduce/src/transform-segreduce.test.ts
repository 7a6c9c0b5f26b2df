import { f32, max, u32, wgsl } from '@weft/gpu';
import {
  adversarialSizes,
  expectArrayEqual,
  expectClose,
  gpuTest,
  randomF32,
  randomU32,
  skewedLengths,
  ulpTolerance,
} from '@weft/testing';
import { describe, it } from 'vitest';
import { TILE, transformSegreduce } from './index.ts';
import { hostMonoids, offsetsOf, segreduceReference } from './reference.ts';

describe('transformSegreduce', () => {
  it('sums a CSR gather f(index, seg, rank) = values[index] * weights[seg] + rank', async () => {
    await gpuTest(async (device) => {
      for (const segments of adversarialSizes([TILE / 16], [30_000])) {
        const lengths = skewedLengths(segments, segments * 16, segments + 1);
        const { offsets, count } = offsetsOf(lengths);
        const values = randomU32(count, 2);
        const weights = randomU32(segments, 3);
        const off = device.upload(offsets.length > 0 ? offsets : new Uint32Array(1));
        const v = device.upload(count > 0 ? values : new Uint32Array(1));
        const w = device.upload(segments > 0 ? weights : new Uint32Array(1));
        const out = device.array('u32', Math.max(1, segments));
        await transformSegreduce(
          device,
          count,
          off,
          segments,
          wgsl`(index: u32, seg: u32, rank: u32) -> u32 { return ${v}[index] * ${w}[seg] + rank; }`,
          out,
        );
        const want = segreduceReference(
          count,
          offsets,
          segments,
          (i, s, r) => (Math.imul(values[i]!, weights[s]!) + r) >>> 0,
          hostMonoids['plus u32'],
        );
        if (segments > 0) expectArrayEqual(await out.download(0, segments), want, `segments=${segments}`);
        for (const a of [off, v, w, out]) a.destroy();
      }
    });
  });

  it('sums f32 products with a captured scalar, and takes a max over ranks', async () => {
    await gpuTest(async (device) => {
      const lengths = skewedLengths(8_000, 400_000, 13);
      lengths[3] = 0;
      const { offsets, count } = offsetsOf(lengths);
      const values = randomF32(count, 4);
      const weights = randomF32(lengths.length, 5);
      const off = device.upload(offsets);
      const v = device.upload(values);
      const w = device.upload(weights);
      const out = device.array('f32', lengths.length);
      await transformSegreduce(
        device,
        count,
        off,
        lengths.length,
        wgsl`(index: u32, seg: u32, rank: u32) -> f32 { return ${v}[index] * ${w}[seg] * ${f32(2)}; }`,
        out,
      );
      const product = (i: number, s: number) => Math.fround(Math.fround(values[i]! * weights[s]!) * 2);
      const want = segreduceReference(count, offsets, lengths.length, product, hostMonoids['plus f32']);
      const magnitude = segreduceReference(
        count,
        offsets,
        lengths.length,
        (i, s) => Math.abs(product(i, s)),
        hostMonoids['plus f32'],
      );
      expectClose(await out.download(), want, (s) => ulpTolerance(lengths[s]!, magnitude[s]!));

      // max over rank + a scalar: each non-empty segment gets its length - 1 + 0x40000000.
      const ranks = device.array('u32', lengths.length);
      await transformSegreduce(
        device,
        count,
        off,
        lengths.length,
        wgsl`(index: u32, seg: u32, rank: u32) -> u32 { return rank + ${u32(0x40000000)}; }`,
        ranks,
        { monoid: max('u32') },
      );
      expectArrayEqual(
        await ranks.download(),
        Array.from(lengths, (n) => (n === 0 ? 0 : n - 1 + 0x40000000)),
        'max rank',
      );
      for (const a of [off, v, w, out, ranks]) a.destroy();
    });
  });
});
