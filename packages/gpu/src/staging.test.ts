import { describe, expect, it } from 'vitest';
import { InputError, requestDevices, StagingBuffer } from './index.ts';

describe('StagingBuffer', () => {
  it('carries slices between two devices through mapped memory, step after step', async () => {
    const [a, b] = await requestDevices({ count: 2, shareAdapter: true, label: 'staging' });
    try {
      const n = 1000;
      const source = a!.array('u32', n);
      const target = b!.array('u32', n + 7);
      target.upload(new Uint32Array(n + 7).fill(9));
      const out = new StagingBuffer(a!, n, 'read', 'out');
      const inbox = new StagingBuffer(b!, n, 'write', 'in');
      for (let step = 0; step < 3; step++) {
        source.upload(Uint32Array.from({ length: n }, (_, k) => k * 3 + step));
        const rec = a!.recorder();
        rec.copy(source, out, n - 10, 10, 0);
        await rec.submit();
        await Promise.all([out.map(), inbox.map()]);
        inbox.words.set(out.words.subarray(0, n - 10));
        out.unmap();
        inbox.unmap();
        const put = b!.recorder();
        put.copy(inbox, target, n - 10, 0, 5);
        await put.submit();
        const got = await target.download();
        const want = new Uint32Array(n + 7).fill(9);
        for (let k = 10; k < n; k++) want[k - 5] = k * 3 + step;
        expect(got).toEqual(want);
      }
      out.destroy();
      inbox.destroy();
    } finally {
      a!.destroy();
      b!.destroy();
    }
  });

  it('refuses a submit while mapped and a view while unmapped, in one line each', async () => {
    const [d] = await requestDevices({ count: 1, shareAdapter: true });
    try {
      const inbox = new StagingBuffer(d!, 4, 'write', 'inbox');
      expect(inbox.mapped).toBe(true);
      const rec = d!.recorder();
      rec.copy(inbox, d!.array('u32', 4));
      await expect(rec.submit()).rejects.toThrow(/staging buffer is mapped at submit/);
      inbox.unmap();
      expect(() => inbox.words).toThrow(InputError);
      expect(() => new StagingBuffer(d!, -1, 'read')).toThrow(InputError);
      expect(() => new StagingBuffer(d!, 1, 'both' as 'read')).toThrow(/mode must be/);
      inbox.destroy();
    } finally {
      d!.destroy();
    }
  });
});
