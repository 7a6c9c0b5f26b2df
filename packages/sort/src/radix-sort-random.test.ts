import type { DeviceArray, ElementType, WeftDevice } from '@weft/gpu';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { it } from 'vitest';
import { type SortOptions, sortKeys, sortPairs } from './index.ts';
import { permute, referencePermutation } from './reference.ts';

function uploadBits(device: WeftDevice, type: ElementType, raw: Uint32Array): DeviceArray {
  const copy = raw.slice();
  if (type === 'u32') return device.upload(copy);
  if (type === 'i32') return device.upload(new Int32Array(copy.buffer));
  return device.upload(new Float32Array(copy.buffer));
}

// Seeded random combinations of every option, each checked against the TypeScript reference; the case is
// printed in the failure message so it can be replayed.
it('sorts random combinations of type, direction, bits, count, outputs, algorithm and tile', async () => {
  await gpuTest(async (device) => {
    const r = mulberry32(12_345);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
    for (let iter = 0; iter < 20; iter++) {
      const n = Math.floor(r() ** 2 * 40_000);
      const type = pick(['u32', 'i32', 'f32'] as const);
      const bits = type === 'f32' || r() < 0.5 ? 32 : 1 + Math.floor(r() * 31);
      const distinct = r() < 0.3 ? 1 + Math.floor(r() * 10) : 0;
      const palette = Array.from({ length: distinct }, () => Math.floor(r() * 2 ** 32));
      const raw = Uint32Array.from({ length: n }, () =>
        distinct ? pick(palette) : Math.floor(r() * 2 ** 32),
      );
      const m = r() < 0.3 ? Math.floor(r() * n) : n;
      const gpuCount = r() < 0.5;
      const pairs = r() < 0.5;
      const outOfPlace = r() < 0.5;
      const options: SortOptions = {
        descending: r() < 0.5,
        bits,
        algorithm: r() < 0.3 ? 'reduce-then-scan' : 'onesweep',
        tuning: {
          maxSpin: pick([0, 2, 64]),
          ...(r() < 0.5 ? { keysPerThread: 7 } : {}),
          ...(r() < 0.4 ? { workgroupSize: pick([64, 128]) } : {}),
          // Reduce-then-scan only (OneSweep ignores it).
          ...(r() < 0.5 ? { tilesPerChunk: pick([2, 3, 5]) } : {}),
        },
      };
      const what = JSON.stringify({ iter, n, m, type, distinct, gpuCount, pairs, outOfPlace, ...options });

      const perm = referencePermutation(type, raw.subarray(0, m), options.descending, bits);
      const want = raw.slice();
      want.set(permute(raw, perm));
      const indices = Uint32Array.from({ length: n }, (_, i) => i);
      const keys = uploadBits(device, type, raw);
      const values = device.upload(indices);
      const outKeys = uploadBits(device, type, raw);
      const outValues = device.upload(indices);
      const countArray = device.upload(new Uint32Array([5, m]));
      const count = gpuCount ? { array: countArray, index: 1 } : m;
      if (pairs) {
        const outputs = outOfPlace ? { outputKeys: outKeys, outputValues: outValues } : {};
        await sortPairs(device, keys, values, { ...options, count, ...outputs });
      } else {
        await sortKeys(device, keys, { ...options, count, ...(outOfPlace ? { output: outKeys } : {}) });
      }
      const gotKeys = await (outOfPlace ? outKeys : keys).download();
      expectArrayEqual(new Uint32Array(gotKeys.buffer), want, `${what} keys`);
      if (pairs) {
        const wantValues = Uint32Array.from({ length: n }, (_, i) => (i < m ? perm[i]! : i));
        expectArrayEqual(await (outOfPlace ? outValues : values).download(), wantValues, `${what} values`);
      }
      for (const a of [keys, values, outKeys, outValues, countArray]) a.destroy();
    }
  });
});
