import { InputError } from '@weft/gpu';
import { adversarialSizes, expectArrayEqual, gpuTest, randomI32, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { intersectCount, sortedSearch } from './index.ts';
import { referenceBound, referenceIntersectCount } from './reference.ts';

function sortedU32(n: number, seed: number, max = 2 ** 32): Uint32Array {
  return randomU32(n, seed, max).sort();
}

describe('sortedSearch', () => {
  it('finds lower and upper bounds, duplicates, values beyond both ends and >= 2^31', async () => {
    await gpuTest(async (device) => {
      for (const n of adversarialSizes([256], [70_000])) {
        for (const m of [0, 1, 300, 5000]) {
          const hay = sortedU32(m, m + 1, 1000).map((x) => (x % 3 === 0 ? x + 2 ** 31 : x));
          hay.sort();
          const needles = randomU32(n, n + 7, 1200).map((x) => (x % 3 === 0 ? x + 2 ** 31 : x));
          if (n > 2) needles.set([0, 2 ** 32 - 1], 0);
          const dn = device.upload(needles);
          const dh = device.upload(hay);
          const out = device.array('u32', n);
          for (const bound of ['lower', 'upper'] as const) {
            await sortedSearch(device, dn, dh, out, { bound });
            const want = Uint32Array.from(needles, (x) => referenceBound(hay, x, bound === 'upper'));
            expectArrayEqual(await out.download(), want, `n=${n} m=${m} ${bound}`);
          }
          for (const a of [dn, dh, out]) a.destroy();
        }
      }
    });
  });

  it('gives the same bounds with merge path for sorted needles, across tile sizes', async () => {
    await gpuTest(async (device) => {
      const sizes = adversarialSizes([1024], [100_000]);
      for (const [n, m] of [
        ...sizes.map((n) => [n, 1500] as const),
        ...sizes.map((m) => [777, m] as const),
        [50_000, 50_000],
        [3000, 0],
      ] as const) {
        if (n === 0) continue;
        const needles = sortedU32(n, n + 2 * m, 3000)
          .map((x) => (x % 2 === 0 ? x + 2 ** 31 : x))
          .sort();
        const hay = sortedU32(m, m + 5, 3000)
          .map((x) => (x % 2 === 0 ? x + 2 ** 31 : x))
          .sort();
        const dn = device.upload(needles);
        const dh = device.upload(hay);
        const out = device.array('u32', n);
        for (const bound of ['lower', 'upper'] as const) {
          await sortedSearch(device, dn, dh, out, { bound, needlesSorted: true });
          const want = Uint32Array.from(needles, (x) => referenceBound(hay, x, bound === 'upper'));
          expectArrayEqual(await out.download(), want, `merge path n=${n} m=${m} ${bound}`);
        }
        for (const a of [dn, dh, out]) a.destroy();
      }
      const f = new Float32Array([-2, -0.5, 0, 1.5, 1.5, 9]);
      const fh = new Float32Array([-1, 0, 1.5, 2]);
      const out = device.array('u32', f.length);
      await sortedSearch(device, device.upload(f), device.upload(fh), out, { needlesSorted: true });
      expect([...(await out.download())]).toEqual([0, 1, 1, 2, 2, 4]);
    });
  });

  it('searches more needles than 65,535 workgroups hold', async () => {
    await gpuTest(async (device) => {
      const n = 65_535 * 256 + 300;
      const hay = sortedU32(100, 3, 5000);
      const needles = randomU32(n, 4, 5100);
      const out = device.array('u32', n);
      await sortedSearch(device, device.upload(needles), device.upload(hay), out);
      expectArrayEqual(
        await out.download(),
        Uint32Array.from(needles, (x) => referenceBound(hay, x, false)),
        'lower bounds',
      );
    });
  });

  it('compares i32 as signed', async () => {
    await gpuTest(async (device) => {
      const hay = randomI32(1000, 1, -50, 50).sort();
      const needles = randomI32(777, 2, -60, 60);
      const out = device.array('u32', 777);
      await sortedSearch(device, device.upload(needles), device.upload(hay), out, { bound: 'upper' });
      expectArrayEqual(
        await out.download(),
        Uint32Array.from(needles, (x) => referenceBound(hay, x, true)),
        'i32',
      );
    });
  });

  it('rejects mismatched types and short outputs', async () => {
    await gpuTest(async (device) => {
      const u = device.upload(new Uint32Array(4));
      const i = device.upload(new Int32Array(4));
      await expect(sortedSearch(device, u, i, device.array('u32', 4))).rejects.toThrow(InputError);
      await expect(sortedSearch(device, u, u, device.array('u32', 3))).rejects.toThrow(/output/);
    });
  });
});

describe('intersectCount', () => {
  it('counts common elements as a multiset, across sizes and both argument orders', async () => {
    await gpuTest(async (device) => {
      const cases: [Uint32Array, Uint32Array][] = [
        [new Uint32Array(0), sortedU32(10, 1)],
        [new Uint32Array([5]), new Uint32Array([5])],
        [new Uint32Array([1, 2, 2, 2, 3]), new Uint32Array([2, 2, 3, 3, 4])],
        [new Uint32Array(600).fill(9), new Uint32Array(1000).fill(9)],
        [sortedU32(1000, 3, 2000), sortedU32(257, 4, 2000)],
        [
          sortedU32(70_000, 5, 100_000).map((x) => x + 2 ** 31),
          sortedU32(30_000, 6, 100_000).map((x) => x + 2 ** 31),
        ],
      ];
      for (const [i, [a, b]] of cases.entries()) {
        a.sort();
        b.sort();
        const da = device.upload(a);
        const db = device.upload(b);
        const want = referenceIntersectCount(a, b);
        const got = await intersectCount(device, da, db);
        expect((await got.array.download())[0], `case ${i}`).toBe(want);
        // Into a caller's slot, the other way round, twice (the slot is overwritten, not accumulated).
        const slots = device.upload(new Uint32Array([7, 7, 7]));
        await intersectCount(device, db, da, { output: { array: slots, index: 1 } });
        await intersectCount(device, db, da, { output: { array: slots, index: 1 } });
        expect([...(await slots.download())], `case ${i} reversed`).toEqual([7, want, 7]);
        for (const x of [da, db, slots, got.array]) x.destroy();
      }
    });
  });
});
