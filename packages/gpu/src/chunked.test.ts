import { expectArrayEqual, randomU32, recordShaders } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { linkFunctors } from './functor.ts';
import {
  atomicAt,
  DeviceLimitError,
  functorBindingCount,
  InputError,
  inline,
  load,
  requestDevice,
  rw,
  store,
  transform,
  type WeftDevice,
  wgsl,
} from './index.ts';

// 64 bytes a chunk: 16 u32, so arrays of tens of elements span 2 to 5 chunks.
const BUDGET = 64;
const CHUNK = BUDGET / 4;

let shared: Promise<WeftDevice> | undefined;
const device = () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({ label: 'chunked', bindingBudget: BUDGET });
  return shared;
};
afterAll(async () => (await shared)?.destroy());

const lengths = [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 2 * CHUNK, 3 * CHUNK + 5, 5 * CHUNK];

describe('ChunkedArray', () => {
  it('splits at the budget and round-trips any range', async () => {
    const d = await device();
    expect(d.bindingBudget).toBe(BUDGET);
    for (const n of lengths) {
      const data = randomU32(n, n + 3);
      const a = d.uploadChunked(data, { label: 'x' });
      expect(a.length).toBe(n);
      expect(a.chunks.length).toBe(Math.max(1, Math.ceil(n / CHUNK)));
      expect(a.single !== undefined).toBe(n <= CHUNK);
      expectArrayEqual(await a.download(), data, `n=${n}`);
      for (const [at, count] of [
        [CHUNK - 1, 2],
        [3, 2 * CHUNK],
        [n - 1, 1],
      ] as const) {
        if (at < 0 || at + count > n) continue;
        expectArrayEqual(await a.download(at, count), data.subarray(at, at + count), `n=${n} @${at}`);
      }
      if (n >= CHUNK + 2) {
        a.upload([7, 8, 9], CHUNK - 1);
        data.set([7, 8, 9], CHUNK - 1);
        expectArrayEqual(await a.download(), data, `n=${n} after upload`);
      }
      await a.fill(5);
      expect([...(await a.download())].every((v) => v === 5)).toBe(true);
      await expect(a.download(n, 1)).rejects.toThrow(InputError);
      a.destroy();
      expect(a.destroyed).toBe(true);
    }
    expect(() => d.chunkedArray('u32', 2 ** 32)).toThrow(InputError);
  });

  it('downloadInto fills a host range from any element range, chunk by chunk', async () => {
    const d = await device();
    for (const n of lengths) {
      const data = randomU32(n, n + 11);
      const bits = new Float32Array(data.buffer);
      const u = d.uploadChunked(data, { label: 'u' });
      const f = d.uploadChunked(bits, { label: 'f' });
      const i = d.uploadChunked(new Int32Array(data.buffer), { label: 'i' });
      const mid = Math.floor(n / 2);
      for (const [at, count] of [
        [0, n],
        [0, 0],
        [n, 0],
        [CHUNK - 1, 2],
        [CHUNK, CHUNK],
        [3, 2 * CHUNK],
        [mid, n - mid],
        [n - 1, 1],
      ] as const) {
        if (at < 0 || at + count > n) continue;
        const what = `n=${n} [${at}, +${count})`;
        const target = new Uint32Array(count + 2).fill(9);
        await u.downloadInto(target.subarray(1, 1 + count), at);
        expectArrayEqual(target.subarray(1, 1 + count), data.subarray(at, at + count), `u32 ${what}`);
        expect([target[0], target[count + 1]]).toEqual([9, 9]);
        const floats = new Float32Array(count);
        await f.downloadInto(floats, at);
        expectArrayEqual(new Uint32Array(floats.buffer), data.subarray(at, at + count), `f32 ${what}`);
        const ints = new Int32Array(count);
        await i.downloadInto(ints, at);
        expectArrayEqual(new Uint32Array(ints.buffer), data.subarray(at, at + count), `i32 ${what}`);
      }
      await expect(u.downloadInto(new Uint32Array(n + 1))).rejects.toThrow(/array 'u'.*exceeds length/);
      await expect(u.downloadInto(new Uint32Array(1), n)).rejects.toThrow(InputError);
      await expect(u.downloadInto(new Float32Array(n) as never)).rejects.toThrow(
        /array 'u': downloadInto needs a Uint32Array/,
      );
      await expect(f.downloadInto(new Uint32Array(n) as never)).rejects.toThrow(/array 'f'.*Float32Array/);
      for (const a of [u, f, i]) a.destroy();
      await expect(u.downloadInto(new Uint32Array(0))).rejects.toThrow(/destroyed/);
    }
  });

  it('load, store and atomicAt address every chunk in kernels', async () => {
    const d = await device();
    for (const n of lengths.filter((x) => x > 0)) {
      const data = randomU32(n, n);
      const input = d.uploadChunked(data);
      const out = d.chunkedArray('u32', n);
      const counts = d.chunkedArray('u32', n);
      await counts.fill(0);
      // Each element doubled into `out`; every index i adds 1 to counts[i] and to counts[(i * 7) % n].
      await transform(
        d,
        n,
        wgsl`(i: u32) {
  ${store(out, 'i', inline(wgsl`${load(input, 'i')} * 2u`))};
  ${atomicAt('atomicAdd', counts, 'i', '1u')};
  ${atomicAt('atomicAdd', counts, `(i * 7u) % ${n}u`, '1u')};
}`,
      );
      const want = data.map((x) => (x * 2) >>> 0);
      expectArrayEqual(await out.download(), want, `n=${n} doubled`);
      const wantCounts = new Uint32Array(n);
      for (let i = 0; i < n; i++) {
        wantCounts[i]!++;
        wantCounts[(i * 7) % n]!++;
      }
      expectArrayEqual(await counts.download(), wantCounts, `n=${n} counts`);
      for (const a of [input, out, counts]) a.destroy();
    }
  });

  it('one chunk compiles to the plain index; several count one binding each', async () => {
    const d = await device();
    const one = d.uploadChunked(new Uint32Array(CHUNK));
    const plain = one.single!;
    const viaLoad = linkFunctors({ f: wgsl`(i: u32) -> u32 { return ${load(one, 'i')}; }` });
    const direct = linkFunctors({ f: wgsl`(i: u32) -> u32 { return ${plain}[i]; }` });
    expect(viaLoad.code).toBe(direct.code);
    const viaStore = linkFunctors({ f: wgsl`(i: u32) { ${store(one, 'i', '1u')}; }` });
    expect(viaStore.code).toBe(linkFunctors({ f: wgsl`(i: u32) { ${rw(plain)}[i] = 1u; }` }).code);
    expect(viaStore.bindings[0]!.access).toBe('read_write');

    const five = d.chunkedArray('u32', 5 * CHUNK);
    const f = wgsl`(i: u32) -> u32 { return ${load(five, 'i')} + ${load(five, 'i + 1u')}; }`;
    expect(functorBindingCount(f)).toBe(5);
    // Both reads share one helper.
    expect(linkFunctors({ f }).code.match(/switch/g)?.length).toBe(1);

    // More chunks than storage buffers a stage: refused before WebGPU sees the kernel.
    const limit = d.limits.maxStorageBuffersPerShaderStage;
    const many = d.chunkedArray('u32', (limit + 1) * CHUNK);
    await expect(
      transform(d, 1, wgsl`(i: u32) { ${store(many, 'i', inline(wgsl`${load(many, 'i')} + 1u`))}; }`),
    ).rejects.toThrow(DeviceLimitError);
    for (const a of [one, five, many]) a.destroy();
  });

  // The generated chunk helpers, so a change to them shows in review (lavapipe; `pnpm exec vitest run -u`).
  it('generates the committed WGSL for chunked load, store and atomicAt', async () => {
    const d = await requestDevice({ label: 'chunked snapshot', bindingBudget: BUDGET });
    try {
      const shaders = recordShaders(d);
      const n = 3 * CHUNK;
      const input = d.uploadChunked(Uint32Array.from({ length: n }, (_, i) => i));
      const out = d.chunkedArray('u32', n);
      const counts = d.chunkedArray('i32', n);
      await counts.fill(0);
      await transform(
        d,
        n,
        wgsl`(i: u32) {
  ${store(out, 'i', inline(wgsl`${load(input, 'i')} + 1u`))};
  ${atomicAt('atomicMax', counts, 'i', 'i32(i)')};
}`,
      );
      expectArrayEqual(
        await out.download(),
        Uint32Array.from({ length: n }, (_, i) => i + 1),
      );
      expectArrayEqual(
        await counts.download(),
        Int32Array.from({ length: n }, (_, i) => i),
      );
      await expect(shaders.text()).toMatchFileSnapshot('./__snapshots__/chunked.wgsl');
    } finally {
      d.destroy();
    }
  });
});
