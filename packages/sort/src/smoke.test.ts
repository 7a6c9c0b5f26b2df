import { expectArrayEqual, gpuTest, randomU32 } from '@weft/testing';
import { it } from 'vitest';
import { sortKeys, sortPairs } from './index.ts';

it('smoke', async () => {
  await gpuTest(async (device) => {
    for (const n of [1, 5, 4095, 4096, 4097, 100000]) {
      const host = randomU32(n, n);
      const k = device.upload(host);
      await sortKeys(device, k);
      expectArrayEqual(await k.download(), host.slice().sort(), `n=${n}`);
      const v = device.upload(new Uint32Array(n).map((_, i) => i));
      const k2Host = randomU32(n, 3, 16);
      const k2 = device.upload(k2Host);
      const want = [...Array(n).keys()].sort((a, b) => k2Host[a]! - k2Host[b]! || a - b);
      await sortPairs(device, k2, v);
      expectArrayEqual(await v.download(), want, `pairs n=${n}`);
    }
  });
});
