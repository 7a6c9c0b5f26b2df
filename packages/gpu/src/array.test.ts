import { expectArrayEqual, gpuTest, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { type DeviceArray, type ElementType, type HostArray, hostArray, InputError } from './index.ts';

const types: readonly ElementType[] = ['u32', 'i32', 'f32'];

/** `n` random 32-bit patterns as `type`: f32 ones include NaNs, infinities and subnormals, compared as bits. */
function randomHost<T extends ElementType>(type: T, n: number, seed: number): HostArray<T> {
  const host = hostArray(type, n);
  new Uint32Array(host.buffer).set(randomU32(n, seed));
  return host;
}

function bits(a: HostArray<ElementType>): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

/** Element ranges [offset, count) of an array of `n`: whole, empty at either end, first, middle and last. */
function ranges(n: number): [number, number][] {
  const mid = Math.floor(n / 2);
  const out: [number, number][] = [
    [0, n],
    [0, 0],
    [n, 0],
    [mid, 0],
  ];
  if (n > 0) out.push([0, 1], [n - 1, 1], [mid, n - mid], [mid, Math.min(3, n - mid)]);
  if (n > 2) out.push([1, n - 2]);
  return out;
}

const lengths = [0, 1, 2, 3, 4, 5, 63, 64, 65, 1000, 4099];

describe('DeviceArray.read and downloadInto', () => {
  it('hand every element type, range and length the bytes download returns', async () => {
    await gpuTest(async (device) => {
      for (const type of types) {
        for (const n of lengths) {
          const data = randomHost(type, n, n + 7);
          const a = device.array(type, n, { label: 'x' }).upload(data) as DeviceArray<typeof type>;
          for (const [offset, count] of ranges(n)) {
            const what = `${type} n=${n} [${offset}, +${count})`;
            const want = bits(data.subarray(offset, offset + count));
            const seen = await a.read(
              (view) => {
                expect(view).toBeInstanceOf(data.constructor);
                return Uint32Array.from(bits(view));
              },
              offset,
              count,
            );
            expectArrayEqual(seen, want, `read ${what}`);
            const target = hostArray(type, count + 2);
            target.fill(9);
            await a.downloadInto(target.subarray(1, 1 + count) as HostArray<typeof type>, offset);
            expectArrayEqual(bits(target.subarray(1, 1 + count)), want, `downloadInto ${what}`);
            expect([target[0], target[count + 1]]).toEqual([9, 9]);
            expectArrayEqual(bits(await a.download(offset, count)), want, `download ${what}`);
          }
          a.destroy();
        }
      }
    });
  });

  it('defaults to the rest of the array and returns what the callback returns', async () => {
    await gpuTest(async (device) => {
      const a = device.upload(new Int32Array([-3, 4, -5, 6]));
      expect(await a.read((v) => [...v])).toEqual([-3, 4, -5, 6]);
      expect(await a.read((v) => [...v], 2)).toEqual([-5, 6]);
      const sum = await a.read((v) => v.reduce((s, x) => s + x, 0), 1, 2);
      expect(sum).toBe(-1);
      const into = new Int32Array(2);
      await a.downloadInto(into, 2);
      expect([...into]).toEqual([-5, 6]);
      a.destroy();
    });
  });

  it('detaches the view after the callback and reuses the staging buffer', async () => {
    await gpuTest(async (device) => {
      const a = device.upload(new Uint32Array([1, 2, 3, 4, 5]));
      const b = device.upload(new Uint32Array([6, 7, 8, 9, 10]));
      const kept = await a.read((v) => v);
      expect(kept.length).toBe(0);
      expect(await b.read((v) => [...v])).toEqual([6, 7, 8, 9, 10]);
      expect(kept.length).toBe(0);
      const before = device.pool.stats.liveBuffers;
      await a.read((v) => v[0]);
      expect(device.pool.stats.liveBuffers).toBe(before);
      a.destroy();
      b.destroy();
    });
  });

  it('rejects async callbacks, bad ranges and wrong target types, naming the array', async () => {
    await gpuTest(async (device) => {
      const a = device.upload(new Float32Array([1, 2, 3]), { label: 'ranks' });
      let resumed: number | undefined;
      const late = a.read(async (v) => {
        await Promise.resolve();
        resumed = v.length;
      });
      await expect(late).rejects.toThrow(InputError);
      await expect(late).rejects.toThrow(/array 'ranks'.*Promise/);
      expect(resumed).toBe(0);
      const empty = device.array('u32', 0, { label: 'empty' });
      await expect(empty.read(async () => 1)).rejects.toThrow(/array 'empty'.*Promise/);
      const thrown = new Error('from the callback');
      const live = device.pool.stats.liveBuffers;
      await expect(
        a.read(() => {
          throw thrown;
        }),
      ).rejects.toBe(thrown);
      expect(device.pool.stats.liveBuffers).toBe(live);
      expect(await a.read((v) => [...v])).toEqual([1, 2, 3]);
      for (const [offset, count] of [
        [0, 4],
        [3, 1],
        [4, 0],
        [-1, 1],
        [0, -1],
        [0.5, 1],
        [Number.NaN, 1],
      ] as const) {
        await expect(
          a.read(() => 0, offset, count),
          `read ${offset} ${count}`,
        ).rejects.toThrow(/array 'ranks'/);
        await expect(a.download(offset, count), `download ${offset} ${count}`).rejects.toThrow(InputError);
      }
      await expect(a.read(() => 0, 0.5, 1)).rejects.toThrow(
        /at 0.5: offset and count must be non-negative integers/,
      );
      await expect(a.download(0, -1)).rejects.toThrow(/of -1 elements at 0: offset and count must be/);
      await expect(a.downloadInto(new Float32Array(4))).rejects.toThrow(/array 'ranks'.*exceeds length 3/);
      await expect(a.downloadInto(new Float32Array(1), 3)).rejects.toThrow(InputError);
      await expect(a.downloadInto(new Float32Array(1), -1)).rejects.toThrow(InputError);
      await expect(a.downloadInto(new Float32Array(0), 3)).resolves.toBeUndefined();
      const wrong = [new Uint32Array(3), new Int32Array(3), new Float64Array(3), [0, 0, 0], undefined];
      for (const target of wrong) {
        await expect(
          a.downloadInto(target as unknown as Float32Array),
          String(target?.constructor?.name),
        ).rejects.toThrow(/array 'ranks': downloadInto needs a Float32Array for f32 elements/);
      }
      a.destroy();
      await expect(a.read(() => 0)).rejects.toThrow(/destroyed/);
      await expect(a.downloadInto(new Float32Array(1))).rejects.toThrow(/destroyed/);
    });
  });
});
