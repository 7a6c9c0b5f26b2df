import { bitOr, InputError, max, min, monoid, plus, rw, wgsl } from '@weft/gpu';
import {
  adversarialSizes,
  expectArrayEqual,
  expectClose,
  gpuTest,
  randomF32,
  randomI32,
  randomU32,
  ulpTolerance,
} from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  exclusiveScan,
  hostMonoids,
  hostScan,
  inclusiveScan,
  transformScan,
  transformScanTo,
} from './index.ts';

const TILE = 256 * 4 * 4;
const F32_MAX = Math.fround(3.40282347e38);

/** f32 prefix sums: the GPU adds in another order, so allow the summation error bound of each prefix. */
function expectF32Scan(got: Float32Array, input: Float32Array, inclusive: boolean) {
  const want = new Float64Array(input.length);
  const mag = new Float64Array(input.length);
  let s = 0;
  let m = 0;
  for (let i = 0; i < input.length; i++) {
    if (inclusive) {
      s += input[i]!;
      m += Math.abs(input[i]!);
    }
    want[i] = s;
    mag[i] = m;
    if (!inclusive) {
      s += input[i]!;
      m += Math.abs(input[i]!);
    }
  }
  expectClose(got, want, (i) => ulpTolerance(i + 1, mag[i]!));
}

describe('exclusiveScan / inclusiveScan (u32 plus)', () => {
  it('matches the reference at every tile boundary, with values >= 2^30 that wrap', async () => {
    await gpuTest(async (device) => {
      for (const n of adversarialSizes([TILE, 4], [5 * TILE + 3, 1 << 20, (1 << 20) + 7])) {
        const host = randomU32(n, n + 11);
        const input = device.upload(host);
        const out = device.array('u32', n);
        await exclusiveScan(device, input, out);
        expectArrayEqual(
          await out.download(),
          hostScan(host, hostMonoids.plus('u32'), 0, false),
          `ex n=${n}`,
        );
        await inclusiveScan(device, input, out);
        expectArrayEqual(await out.download(), hostScan(host, hostMonoids.plus('u32'), 0, true), `in n=${n}`);
        input.destroy();
        out.destroy();
      }
    });
  });

  it('runs past 65,535 workgroups (small tiles, 2-D grid)', async () => {
    await gpuTest(async (device) => {
      const tuning = { workgroupSize: 32, vectorsPerThread: 1 };
      const n = 65_536 * 128 + 77;
      const host = randomU32(n, 3);
      const input = device.upload(host);
      const out = device.array('u32', n);
      await inclusiveScan(device, input, out, { tuning });
      expectArrayEqual(await out.download(), hostScan(host, hostMonoids.plus('u32'), 0, true));
      input.destroy();
      out.destroy();
    });
  });

  it('gives the same result when every look-back falls back', async () => {
    await gpuTest(async (device) => {
      for (const tuning of [
        { forceFallback: true },
        { forceFallback: true, spinLimit: 0, workgroupSize: 64, vectorsPerThread: 1 },
      ]) {
        for (const n of [1, TILE + 1, 37 * TILE - 5, 300_001]) {
          const host = randomU32(n, n);
          const input = device.upload(host);
          const out = device.array('u32', n);
          await exclusiveScan(device, input, out, { tuning });
          expectArrayEqual(await out.download(), hostScan(host, hostMonoids.plus('u32'), 0, false), `n=${n}`);
          const f = device.upload(randomF32(n, n, -1, 1));
          const fo = device.array('f32', n);
          await inclusiveScan(device, f, fo, { tuning });
          expectF32Scan(await fo.download(), await f.download(), true);
          for (const a of [input, out, f, fo]) a.destroy();
        }
      }
    });
  });

  it('reuses arrays across runs with different data (no stale tile states)', async () => {
    await gpuTest(async (device) => {
      const n = 10 * TILE + 123;
      const input = device.array('u32', n);
      const out = device.array('u32', n);
      for (const seed of [1, 2, 3]) {
        const host = randomU32(n, seed);
        input.upload(host);
        const rec = device.recorder();
        await exclusiveScan(rec, input, out);
        await rec.submit();
        expectArrayEqual(
          await out.download(),
          hostScan(host, hostMonoids.plus('u32'), 0, false),
          `seed ${seed}`,
        );
      }
    });
  });

  it('all-equal, sorted and reversed inputs', async () => {
    await gpuTest(async (device) => {
      const n = 3 * TILE + 1;
      const cases = {
        equal: new Uint32Array(n).fill(0x40000001),
        sorted: Uint32Array.from({ length: n }, (_, i) => i),
        reversed: Uint32Array.from({ length: n }, (_, i) => n - i),
      };
      for (const [name, host] of Object.entries(cases)) {
        const input = device.upload(host);
        const out = device.array('u32', n);
        await inclusiveScan(device, input, out, { monoid: max('u32') });
        expectArrayEqual(await out.download(), hostScan(host, Math.max, 0, true), `${name} max`);
        await exclusiveScan(device, input, out);
        expectArrayEqual(
          await out.download(),
          hostScan(host, hostMonoids.plus('u32'), 0, false),
          `${name} plus`,
        );
        input.destroy();
        out.destroy();
      }
    });
  });
});

describe('monoids and types', () => {
  const sizes = [0, 1, 33, TILE - 1, TILE, 2 * TILE + 5, 50_003];
  // Monoid coverage on 1024-item tiles: the code is the same, and each pipeline compiles for seconds on lavapipe.
  const small = { vectorsPerThread: 1 };
  const smallSizes = [0, 1, 33, 1023, 1024, 2 * 1024 + 5, 50_003];

  it('plus, min, max, bitOr on u32 and i32 (subgroup built-ins and shuffle scans)', async () => {
    await gpuTest(async (device) => {
      for (const n of smallSizes) {
        const u = randomU32(n, n + 1);
        const s = randomI32(n, n + 2);
        const cases = [
          { host: u, m: plus('u32'), f: hostMonoids.plus('u32'), id: 0 },
          { host: u, m: min('u32'), f: hostMonoids.min(), id: 0xffffffff },
          { host: u, m: max('u32'), f: hostMonoids.max(), id: 0 },
          { host: u, m: bitOr('u32'), f: hostMonoids.bitOr('u32'), id: 0 },
          { host: s, m: plus('i32'), f: hostMonoids.plus('i32'), id: 0 },
          { host: s, m: min('i32'), f: hostMonoids.min(), id: 2 ** 31 - 1 },
          { host: s, m: max('i32'), f: hostMonoids.max(), id: -(2 ** 31) },
          { host: s, m: bitOr('i32'), f: hostMonoids.bitOr('i32'), id: 0 },
        ] as const;
        for (const c of cases) {
          const input = device.upload(c.host);
          const out = device.array(c.m.type, n);
          // Exclusive for u32, inclusive for i32: each pipeline compiles for seconds on lavapipe.
          const inclusive = c.m.type === 'i32';
          const scan = inclusive ? inclusiveScan : exclusiveScan;
          await scan(device, input as never, out as never, { monoid: c.m as never, tuning: small });
          const want = hostScan(c.host as Uint32Array, c.f, c.id, inclusive);
          expectArrayEqual(await out.download(), want, `${c.m.type} ${c.m.subgroup?.reduce} n=${n}`);
          input.destroy();
          out.destroy();
        }
      }
    });
  });

  it('f32 plus (within the summation error bound), min and max (exact)', async () => {
    await gpuTest(async (device) => {
      for (const n of sizes) {
        const host = randomF32(n, n + 5, -1000, 1000);
        const input = device.upload(host);
        const out = device.array('f32', n);
        await exclusiveScan(device, input, out);
        expectF32Scan(await out.download(), host, false);
        await inclusiveScan(device, input, out);
        expectF32Scan(await out.download(), host, true);
        await exclusiveScan(device, input, out, { monoid: min('f32') });
        expectArrayEqual(await out.download(), hostScan(host, Math.min, F32_MAX, false), `f32 min n=${n}`);
        await inclusiveScan(device, input, out, { monoid: max('f32') });
        expectArrayEqual(await out.download(), hostScan(host, Math.max, -F32_MAX, true), `f32 max n=${n}`);
        input.destroy();
        out.destroy();
      }
    });
  });

  it('a user monoid (u32 product mod 2^32) through the generic shuffle paths', async () => {
    await gpuTest(async (device) => {
      const times = monoid({
        type: 'u32',
        identity: '1u',
        combine: wgsl`(a: u32, b: u32) -> u32 { return a * b; }`,
      });
      for (const n of smallSizes) {
        // Odd factors keep the products from collapsing to zero.
        const host = randomU32(n, n + 9).map((x) => x | 1);
        const input = device.upload(host);
        const out = device.array('u32', n);
        await inclusiveScan(device, input, out, { monoid: times, tuning: small });
        expectArrayEqual(
          await out.download(),
          hostScan(host, (a, b) => Math.imul(a, b) >>> 0, 1, true),
          `n=${n}`,
        );
        await exclusiveScan(device, input, out, { monoid: times, tuning: { ...small, forceFallback: true } });
        expectArrayEqual(
          await out.download(),
          hostScan(host, (a, b) => Math.imul(a, b) >>> 0, 1, false),
          `n=${n}`,
        );
        input.destroy();
        out.destroy();
      }
    });
  });
});

describe('counts and totals on the GPU', () => {
  it('reads the count from the GPU, leaves the rest of the output alone, writes the total', async () => {
    await gpuTest(async (device) => {
      const len = 4 * TILE + 10;
      const host = randomU32(len, 77);
      const input = device.upload(host);
      const out = device.array('u32', len);
      const totals = device.array('u32', 4);
      for (const count of [0, 1, 2, 3, 5, TILE, 3 * TILE + 7, len]) {
        await out.fill(0xdeadbeef);
        await totals.fill(7);
        const counts = device.upload(new Uint32Array([99, count]));
        await exclusiveScan(device, input, out, {
          count: { array: counts, index: 1 },
          total: { array: totals, index: 2 },
        });
        const want = hostScan(host.subarray(0, count), hostMonoids.plus('u32'), 0, false);
        const got = await out.download();
        expectArrayEqual(got.subarray(0, count), want, `count=${count}`);
        expect(got.subarray(count).every((x) => x === 0xdeadbeef)).toBe(true);
        let sum = 0;
        for (let i = 0; i < count; i++) sum = (sum + host[i]!) >>> 0;
        expectArrayEqual(await totals.download(), [7, 7, sum, 7], `totals count=${count}`);
        counts.destroy();
      }
    });
  });

  it('clamps a GPU count larger than the arrays to their length', async () => {
    await gpuTest(async (device) => {
      const n = 2 * TILE + 3;
      const host = randomU32(n, 5);
      const input = device.upload(host);
      const out = device.array('u32', n);
      const total = device.array('u32', 1);
      const counts = device.upload(new Uint32Array([n + 100_000]));
      await inclusiveScan(device, input, out, {
        count: { array: counts, index: 0 },
        total: { array: total, index: 0 },
      });
      const want = hostScan(host, hostMonoids.plus('u32'), 0, true);
      expectArrayEqual(await out.download(), want);
      expect((await total.download())[0]).toBe(want[n - 1]);
    });
  });

  it('takes a host count smaller than the arrays and writes an f32 total', async () => {
    await gpuTest(async (device) => {
      const host = randomF32(50_000, 4, 0, 1);
      const input = device.upload(host);
      const out = device.array('f32', 60_000);
      const total = device.array('f32', 1);
      await inclusiveScan(device, input, out, { count: 40_001, total: { array: total, index: 0 } });
      const got = await out.download();
      expectF32Scan(got.subarray(0, 40_001), host.subarray(0, 40_001), true);
      const t = (await total.download())[0]!;
      expect(Math.abs(t - got[40_000]!)).toBeLessThanOrEqual(ulpTolerance(40_001, 40_001));
    });
  });
});

describe('transformScan', () => {
  it('scans a functor that reads a captured array, with the total and a GPU count', async () => {
    await gpuTest(async (device) => {
      for (const n of [0, 1, 2, 3, 5, TILE - 1, TILE, TILE + 1, 3 * TILE + 1, 100_000]) {
        const lengths = randomU32(n, n + 3, 50);
        const arr = device.upload(lengths.length ? lengths : new Uint32Array(1));
        const out = device.array('u32', Math.max(n, 1));
        const total = device.array('u32', 2);
        const f = wgsl`(i: u32) -> u32 { return ${arr}[i] * 3u; }`;
        await transformScan(device, n, f, out, { total: { array: total, index: 1 } });
        const tripled = lengths.map((x) => x * 3);
        const want = hostScan(tripled, hostMonoids.plus('u32'), 0, false);
        expectArrayEqual((await out.download()).subarray(0, n), want, `n=${n}`);
        expect((await total.download())[1]).toBe(tripled.reduce((a, b) => a + b, 0));

        const counts = device.upload(new Uint32Array([n]));
        await transformScan(device, { array: counts, index: 0 }, f, out, { inclusive: true });
        expectArrayEqual(
          (await out.download()).subarray(0, n),
          hostScan(tripled, hostMonoids.plus('u32'), 0, true),
          `inclusive n=${n}`,
        );
        for (const a of [arr, out, total, counts]) a.destroy();
      }
    });
  });

  it('works with a functor that writes through a read_write capture elsewhere', async () => {
    await gpuTest(async (device) => {
      const n = 5000;
      const src = device.upload(randomU32(n, 8, 10));
      const out = device.array('u32', n);
      const f = wgsl`(i: u32) -> u32 { return ${rw(src)}[i] + 1u; }`;
      await transformScan(device, n, f, out, { tuning: { forceFallback: true } });
      const want = hostScan(
        (await src.download()).map((x) => x + 1),
        hostMonoids.plus('u32'),
        0,
        false,
      );
      expectArrayEqual(await out.download(), want);
    });
  });
});

describe('transformScanTo', () => {
  it('hands every item its scan value and its own value, once, with host and GPU counts', async () => {
    await gpuTest(async (device) => {
      for (const n of [0, 1, 7, TILE - 1, TILE + 1, 3 * TILE + 2, 70_001]) {
        const host = randomU32(n, n + 21, 1000);
        const src = device.upload(host.length ? host : new Uint32Array(1));
        const scanned = device.array('u32', Math.max(n, 1));
        const values = device.array('u32', Math.max(n, 1));
        const total = device.array('u32', 1);
        const f = wgsl`(i: u32) -> u32 { return ${src}[i]; }`;
        const emit = wgsl`(i: u32, s: u32, v: u32) { ${rw(scanned)}[i] = s; ${rw(values)}[i] += v + 1u; }`;
        for (const gpu of [false, true]) {
          await values.fill(0);
          const counts = device.upload(new Uint32Array([n]));
          const count = gpu ? { array: counts, index: 0 } : n;
          await transformScanTo(device, count, f, emit, {
            monoid: plus('u32'),
            total: { array: total, index: 0 },
            maxCount: n,
            tuning: { forceFallback: gpu },
          });
          const want = hostScan(host, hostMonoids.plus('u32'), 0, false);
          expectArrayEqual((await scanned.download()).subarray(0, n), want, `scanned n=${n}`);
          expectArrayEqual(
            (await values.download()).subarray(0, n),
            host.map((x) => x + 1),
            `values n=${n}`,
          );
          expect((await total.download())[0]).toBe(host.reduce((a, b) => a + b, 0));
          counts.destroy();
        }
        for (const a of [src, scanned, values, total]) a.destroy();
      }
    });
  });
});

describe('argument errors', () => {
  it('rejects aliasing, type mismatches and counts beyond the arrays', async () => {
    await gpuTest(async (device) => {
      const a = device.array('u32', 100);
      const b = device.array('u32', 50);
      const f = device.array('f32', 100);
      await expect(exclusiveScan(device, a, a)).rejects.toThrow(/aliases input/);
      await expect(exclusiveScan(device, a, b)).rejects.toThrow(InputError);
      await expect(exclusiveScan(device, a, b, { count: 51 })).rejects.toThrow(/count must be/);
      await expect(exclusiveScan(device, a, f as never)).rejects.toThrow(/input is u32 but output is f32/);
      await expect(exclusiveScan(device, a, b, { count: 10, monoid: plus('i32') as never })).rejects.toThrow(
        /monoid combines i32/,
      );
      await expect(
        exclusiveScan(device, a, f as never, { count: 10, total: { array: f, index: 0 } as never }),
      ).rejects.toThrow(InputError);
      await expect(exclusiveScan(device, a, b, { count: 10, total: { array: b, index: 0 } })).rejects.toThrow(
        /same array/,
      );
      await expect(exclusiveScan(device, a, b, { count: 10, tuning: { workgroupSize: 4 } })).rejects.toThrow(
        /workgroupSize/,
      );
    });
  });
});
