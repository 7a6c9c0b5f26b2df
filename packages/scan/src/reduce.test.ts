import { bitOr, max, min, monoid, plus, wgsl } from '@weft/gpu';
import {
  adversarialSizes,
  expectArrayEqual,
  gpuTest,
  randomF32,
  randomI32,
  randomU32,
  ulpTolerance,
} from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { hostMonoids, hostReduce, reduce } from './index.ts';

// Default reduce tile: 256 invocations x 8 vec4.
const TILE = 256 * 8 * 4;
const F32_MAX = Math.fround(3.40282347e38);

describe('reduce', () => {
  it('u32 plus (one atomic per workgroup) at every tile boundary, values >= 2^30', async () => {
    await gpuTest(async (device) => {
      const result = device.array('u32', 3);
      for (const n of adversarialSizes([TILE, 4], [1 << 20, (1 << 20) + 3])) {
        const host = randomU32(n, n + 1);
        const input = device.upload(host);
        await result.fill(5);
        await reduce(device, input, { array: result, index: 1 });
        expectArrayEqual(
          await result.download(),
          [5, hostReduce(host, hostMonoids.plus('u32'), 0), 5],
          `n=${n}`,
        );
        input.destroy();
      }
    });
  });

  it('every built-in monoid on u32 and i32, and a user monoid (two-pass partials)', async () => {
    await gpuTest(async (device) => {
      const times = monoid({
        type: 'u32',
        identity: '1u',
        combine: wgsl`(a: u32, b: u32) -> u32 { return a * b; }`,
      });
      for (const n of [0, 1, 5, TILE - 1, TILE + 1, 3 * TILE, 100_001]) {
        const u = randomU32(n, n + 2);
        const s = randomI32(n, n + 3);
        const cases = [
          { host: u, m: plus('u32'), want: hostReduce(u, hostMonoids.plus('u32'), 0) },
          { host: u, m: min('u32'), want: hostReduce(u, Math.min, 0xffffffff) },
          { host: u, m: max('u32'), want: hostReduce(u, Math.max, 0) },
          { host: u, m: bitOr('u32'), want: hostReduce(u, hostMonoids.bitOr('u32'), 0) },
          { host: s, m: plus('i32'), want: hostReduce(s, hostMonoids.plus('i32'), 0) },
          { host: s, m: min('i32'), want: hostReduce(s, Math.min, 2 ** 31 - 1) },
          { host: s, m: max('i32'), want: hostReduce(s, Math.max, -(2 ** 31)) },
          { host: s, m: bitOr('i32'), want: hostReduce(s, hostMonoids.bitOr('i32'), 0) },
          {
            host: u.map((x) => x | 1),
            m: times,
            want: hostReduce(
              u.map((x) => x | 1),
              (a, b) => Math.imul(a, b) >>> 0,
              1,
            ),
          },
        ] as const;
        for (const c of cases) {
          const input = device.upload(c.host);
          const result = device.array(c.m.type, 1);
          await reduce(device, input as never, result as never, { monoid: c.m as never });
          expect((await result.download())[0], `${c.m.type} ${c.m.subgroup?.reduce ?? 'user'} n=${n}`).toBe(
            c.want,
          );
          input.destroy();
          result.destroy();
        }
      }
    });
  });

  it('f32 plus within the summation bound, f32 min and max exactly', async () => {
    await gpuTest(async (device) => {
      const result = device.array('f32', 1);
      for (const n of [0, 1, 7, TILE + 3, 250_000]) {
        const host = randomF32(n, n + 4, -10, 10);
        const input = device.upload(host);
        await reduce(device, input, result);
        let sum = 0;
        let mag = 0;
        for (const x of host) {
          sum += x;
          mag += Math.abs(x);
        }
        expect(Math.abs((await result.download())[0]! - sum)).toBeLessThanOrEqual(ulpTolerance(n, mag));
        await reduce(device, input, result, { monoid: min('f32') });
        expect((await result.download())[0]).toBe(hostReduce(host, Math.min, F32_MAX));
        await reduce(device, input, result, { monoid: max('f32') });
        expect((await result.download())[0]).toBe(hostReduce(host, Math.max, -F32_MAX));
        input.destroy();
      }
    });
  });

  it('reads the count from the GPU and runs twice with different data', async () => {
    await gpuTest(async (device) => {
      const len = 5 * TILE + 9;
      const input = device.array('u32', len);
      const sums = device.array('u32', 2);
      const maxes = device.array('f32', 1);
      const f = device.array('f32', len);
      for (const [seed, count] of [
        [1, 0],
        [2, 3 * TILE + 1],
        [3, len],
      ] as const) {
        const host = randomU32(len, seed, 2 ** 31);
        input.upload(host);
        const fh = randomF32(len, seed);
        f.upload(fh);
        const counts = device.upload(new Uint32Array([count]));
        const rec = device.recorder();
        await reduce(rec, input, { array: sums, index: 1 }, { count: { array: counts, index: 0 } });
        await reduce(rec, f, maxes, { count: { array: counts, index: 0 }, monoid: max('f32') });
        await rec.submit();
        expect((await sums.download())[1]).toBe(
          hostReduce(host.subarray(0, count), hostMonoids.plus('u32'), 0),
        );
        expect((await maxes.download())[0]).toBe(hostReduce(fh.subarray(0, count), Math.max, -F32_MAX));
        counts.destroy();
      }
    });
  });

  it('rejects a result of another type and a result that is the input', async () => {
    await gpuTest(async (device) => {
      const a = device.array('u32', 10);
      const f = device.array('f32', 1);
      await expect(reduce(device, a, f as never)).rejects.toThrow(/must hold the monoid's type u32/);
      await expect(reduce(device, a, { array: a, index: 0 })).rejects.toThrow(/same array/);
      await expect(reduce(device, a, a, { count: 11 })).rejects.toThrow(/count must be/);
    });
  });
});
