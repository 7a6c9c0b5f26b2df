import { InputError, max, min, plus, rw, wgsl } from '@weft/gpu';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { computeReduce } from './compute-reduce.ts';

const F32_MAX = 3.4028234663852886e38;

describe('computeReduce', () => {
  it('runs f on every vertex and folds its two terms, at sizes around the workgroup and tile', () =>
    gpuTest(async (device) => {
      const monoids = [
        ['plus', plus('f32'), (a: number, b: number) => a + b, 0],
        ['max', max('f32'), Math.max, -F32_MAX],
        ['min', min('f32'), Math.min, F32_MAX],
      ] as const;
      const random = mulberry32(7);
      for (const n of [0, 1, 2, 255, 256, 257, 1023, 1024, 1025, 4097, 100_003]) {
        for (const [i, [first, a, foldA, idA]] of monoids.entries()) {
          const [second, b, foldB, idB] = monoids[(i + 1) % monoids.length]!;
          const x = Float32Array.from({ length: Math.max(1, n) }, () => Math.fround(random() * 4 - 1));
          const y = Float32Array.from({ length: Math.max(1, n) }, () => Math.fround(random() * 100));
          const xs = device.upload(x);
          const ys = device.upload(y);
          const doubled = device.array('f32', Math.max(1, n));
          const totals = device.array('f32', 2);
          await computeReduce(
            device,
            n,
            wgsl`(v: u32) -> vec2<f32> {
  ${rw(doubled)}[v] = 2.0 * ${xs}[v];
  return vec2<f32>(${xs}[v], ${ys}[v]);
}`,
            [a, b],
            wgsl`(p: f32, q: f32) { ${rw(totals)}[0] = p; ${rw(totals)}[1] = q; }`,
          );
          const what = `n ${n} ${first}/${second}`;
          const [gotTotals, gotDoubled] = await Promise.all([totals.download(), doubled.download()]);
          let wantA: number = idA;
          let wantB: number = idB;
          for (let v = 0; v < n; v++) {
            wantA = foldA(wantA, x[v]!);
            wantB = foldB(wantB, y[v]!);
          }
          const close = (got: number, want: number, sums: boolean, label: string) =>
            sums
              ? expect(Math.abs(got - want), label).toBeLessThanOrEqual(1e-4 * Math.max(1, n))
              : expect(got, label).toBe(Math.fround(want));
          close(gotTotals[0]!, wantA, first === 'plus', `${what} first`);
          close(gotTotals[1]!, wantB, second === 'plus', `${what} second`);
          expectArrayEqual(
            gotDoubled.subarray(0, n),
            x.subarray(0, n).map((t) => 2 * t),
            `${what} writes`,
          );
          for (const arr of [xs, ys, doubled, totals]) arr.destroy();
        }
      }
    }));

  it('refuses bad sizes and monoids that are not f32', () =>
    gpuTest(async (device) => {
      const f = wgsl`(v: u32) -> vec2<f32> { return vec2<f32>(0.0, 0.0); }`;
      const finish = wgsl`(p: f32, q: f32) {}`;
      await expect(computeReduce(device, -1, f, [plus('f32'), plus('f32')], finish)).rejects.toThrow(
        InputError,
      );
      await expect(computeReduce(device, 1.5, f, [plus('f32'), plus('f32')], finish)).rejects.toThrow(
        /n must be an integer/,
      );
      await expect(computeReduce(device, 4, f, [plus('u32') as never, plus('f32')], finish)).rejects.toThrow(
        /monoids must be f32, got u32/,
      );
    }));
});
