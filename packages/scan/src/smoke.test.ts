import { expectArrayEqual, gpuTest, randomU32 } from '@weft/testing';
import { it } from 'vitest';
import { exclusiveScan } from './index.ts';

it('smoke', async () => {
  await gpuTest(async (device) => {
    for (const n of [0, 1, 5, 4096, 4097, 100000]) {
      const host = randomU32(n, n + 1, 100);
      const a = device.upload(host);
      const out = device.array('u32', n);
      await exclusiveScan(device, a, out);
      const want = new Uint32Array(n);
      let s = 0;
      for (let i = 0; i < n; i++) { want[i] = s; s = (s + host[i]!) >>> 0; }
      expectArrayEqual(await out.download(), want, `n=${n}`);
    }
  });
});
