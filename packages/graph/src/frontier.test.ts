import { rw, wgsl } from '@weft/gpu';
import { expectArrayEqual, gpuTest, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { bitmapToQueue, FrontierBitmap, FrontierQueue, queueToBitmap } from './frontier.ts';

const sorted = (a: Uint32Array) => Uint32Array.from(a).sort();

describe('FrontierQueue', () => {
  it('sets, swaps and reads back; the length lives on the GPU', () =>
    gpuTest(async (device) => {
      const q = new FrontierQueue(device, 10, { sizeMultiplier: 1.5 });
      expect(q.capacity).toBe(15);
      q.set([3, 1, 4]);
      expectArrayEqual(await q.toArray(), [3, 1, 4], 'current');
      q.swap();
      expect(await q.readLength()).toBe(0);
      q.set([9]);
      q.swap();
      expectArrayEqual(await q.toArray(), [3, 1, 4], 'after two swaps');
      await q.recordSingle(device, 7);
      expectArrayEqual(await q.toArray(), [7], 'single');
      await q.recordAll(device);
      expectArrayEqual(await q.toArray(), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'all');
      expect(() => q.set([10])).toThrow(/not a vertex id/);
      expect(() => new FrontierQueue(device, 4, { sizeMultiplier: 0 })).toThrow(/sizeMultiplier/);
      q.destroy();
    }));

  it('an empty graph still gets a usable queue', () =>
    gpuTest(async (device) => {
      const q = new FrontierQueue(device, 0);
      expect(q.capacity).toBe(1);
      await q.recordAll(device);
      expect(await q.readLength()).toBe(0);
      q.destroy();
    }));
});

describe('queue <-> bitmap', () => {
  for (const n of [1, 31, 32, 33, 1000, 70_001]) {
    it(`round trip, ${n} vertices`, () =>
      gpuTest(async (device) => {
        const picks = randomU32(Math.ceil(n / 3), n, n);
        const q = new FrontierQueue(device, n, { sizeMultiplier: 2 });
        q.set(picks);
        const bitmap = new FrontierBitmap(device, n);
        // Stale bits from an earlier use must not survive.
        bitmap.words.upload(new Uint32Array(bitmap.words.length).fill(0xffffffff));
        await queueToBitmap(device, q.current, bitmap);
        const want = Uint32Array.from(new Set(picks)).sort();
        expectArrayEqual(await bitmap.toArray(), want, 'bitmap');
        // Stale count in the sink: zeroed unless appending.
        q.next.count.upload([5]);
        await bitmapToQueue(device, bitmap, q.next);
        q.swap();
        expectArrayEqual(sorted(await q.toArray()), want, 'queue');
        // Bits past vertexCount are ignored.
        bitmap.words.upload(new Uint32Array(bitmap.words.length).fill(0xffffffff));
        await bitmapToQueue(device, bitmap, q.next);
        q.swap();
        expectArrayEqual(
          sorted(await q.toArray()),
          Uint32Array.from({ length: n }, (_, i) => i),
          'full',
        );
        q.destroy();
        bitmap.destroy();
      }));
  }

  it('bitmap to queue: only vertices outside `except`, each visited, skipped when `when` is false', () =>
    gpuTest(async (device) => {
      const n = 1000;
      const bitmap = new FrontierBitmap(device, n);
      const except = new FrontierBitmap(device, n);
      const q = new FrontierQueue(device, n);
      const inBitmap = randomU32(400, n, 7);
      const inExcept = randomU32(300, n, 8);
      const b = new FrontierQueue(device, n);
      b.set(inBitmap);
      await queueToBitmap(device, b.current, bitmap);
      b.set(inExcept);
      await queueToBitmap(device, b.current, except);
      const marks = device.array('u32', n);
      const gate = device.upload(Uint32Array.of(1));
      const options = {
        except,
        visit: wgsl`(v: u32) { ${rw(marks)}[v] = 7u; }`,
        when: wgsl`() -> bool { return ${gate}[0] != 0u; }`,
      };
      await bitmapToQueue(device, bitmap, q.next, options);
      q.swap();
      const skip = new Set(inExcept);
      const want = Uint32Array.from(new Set([...inBitmap].filter((v) => !skip.has(v)))).sort();
      expectArrayEqual(sorted(await q.toArray()), want, 'queue');
      const got = await marks.download();
      expectArrayEqual(
        Uint32Array.from(got.keys()).filter((v) => got[v] === 7),
        want,
        'visited',
      );
      // A false `when` leaves an appending sink as it was.
      gate.upload([0]);
      q.next.count.upload([3]);
      await bitmapToQueue(device, bitmap, q.next, { ...options, append: true });
      expect((await q.next.count.download())[0]).toBe(3);
      for (const a of [bitmap, except, q, b, marks, gate]) a.destroy();
    }));

  it('bitmap to queue refuses an `except` of another vertex count', () =>
    gpuTest(async (device) => {
      const bitmap = new FrontierBitmap(device, 64);
      const other = new FrontierBitmap(device, 65);
      const q = new FrontierQueue(device, 64);
      await expect(bitmapToQueue(device, bitmap, q.next, { except: other })).rejects.toThrow(
        /except has 65 vertices, the bitmap 64/,
      );
      for (const a of [bitmap, other, q]) a.destroy();
    }));
});
