import { atomic, InputError, rw, u32, wgsl } from '@weft/gpu';
import { adversarialSizes, expectArrayEqual, gpuTest, mulberry32, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { compactArray, compactDownsweep, compactFused, compactUpsweep } from './index.ts';

const TILE = 256 * 32;

/** The kept indices, in order. */
function keptIndices(flags: Uint32Array, n: number): Uint32Array {
  const out: number[] = [];
  for (let i = 0; i < n; i++) if (flags[i]) out.push(i);
  return Uint32Array.from(out);
}

function density(n: number, p: number, seed: number): Uint32Array {
  const r = mulberry32(seed);
  return Uint32Array.from({ length: n }, () => (r() < p ? 1 : 0));
}

describe('compactUpsweep / compactDownsweep', () => {
  it('scatters kept indices in order: none, all, alternating and random densities at tile boundaries', async () => {
    await gpuTest(async (device) => {
      const kept = device.array('u32', 1);
      for (const n of adversarialSizes([TILE, 32, 4096], [300_001])) {
        const patterns = {
          none: new Uint32Array(n),
          all: new Uint32Array(n).fill(1),
          alternating: Uint32Array.from({ length: n }, (_, i) => i & 1),
          sparse: density(n, 0.01, n + 1),
          half: density(n, 0.5, n + 2),
          dense: density(n, 0.97, n + 3),
        };
        for (const [name, flags] of Object.entries(patterns)) {
          const f = device.upload(n > 0 ? flags : new Uint32Array(1));
          const out = device.array('u32', Math.max(n, 1));
          const plan = await compactUpsweep(device, n, wgsl`(i: u32) -> bool { return ${f}[i] != 0u; }`);
          await compactDownsweep(device, plan, wgsl`(dest: u32, source: u32) { ${rw(out)}[dest] = source; }`);
          const want = keptIndices(flags, n);
          expect(await plan.readKeptCount(), `${name} n=${n}`).toBe(want.length);
          expectArrayEqual((await out.download()).subarray(0, want.length), want, `${name} n=${n}`);
          plan.destroy();

          await out.fill(0);
          await compactFused(
            device,
            n,
            wgsl`(i: u32) -> bool { return ${f}[i] != 0u; }`,
            wgsl`(dest: u32, source: u32) { ${rw(out)}[dest] = source; }`,
            { array: kept, index: 0 },
          );
          expect((await kept.download())[0], `fused ${name} n=${n}`).toBe(want.length);
          expectArrayEqual((await out.download()).subarray(0, want.length), want, `fused ${name} n=${n}`);
          f.destroy();
          out.destroy();
        }
      }
    });
  });

  it('reads the count from the GPU, writes the kept count where asked, and chains in one recorder', async () => {
    await gpuTest(async (device) => {
      const cap = 3 * TILE + 100;
      const flags = density(cap, 0.3, 9);
      const f = device.upload(flags);
      const out = device.array('u32', cap);
      const kept = device.array('u32', 3);
      for (const n of [0, 1, TILE, 2 * TILE + 7, cap]) {
        await kept.fill(77);
        const counts = device.upload(new Uint32Array([5, n]));
        const rec = device.recorder();
        const plan = await compactUpsweep(
          rec,
          { array: counts, index: 1 },
          wgsl`(i: u32) -> bool { return ${f}[i] == 1u; }`,
          {
            maxCount: cap,
            keptCount: { array: kept, index: 2 },
          },
        );
        await compactDownsweep(rec, plan, wgsl`(d: u32, s: u32) { ${rw(out)}[d] = s * 2u; }`);
        await rec.submit();
        const want = keptIndices(flags, n);
        expectArrayEqual(await kept.download(), [77, 77, want.length], `kept n=${n}`);
        expectArrayEqual(
          (await out.download()).subarray(0, want.length),
          want.map((x) => x * 2),
          `n=${n}`,
        );
        await kept.fill(77);
        await compactFused(
          device,
          { array: counts, index: 1 },
          wgsl`(i: u32) -> bool { return ${f}[i] == 1u; }`,
          wgsl`(d: u32, s: u32) { ${rw(out)}[d] = s * 3u; }`,
          { array: kept, index: 1 },
          { maxCount: cap },
        );
        expectArrayEqual(await kept.download(), [77, want.length, 77], `fused kept n=${n}`);
        expectArrayEqual(
          (await out.download()).subarray(0, want.length),
          want.map((x) => x * 3),
          `fused n=${n}`,
        );
        plan.destroy();
        counts.destroy();
      }
    });
  });

  it('calls scatter exactly once per kept item (counted with an atomic)', async () => {
    await gpuTest(async (device) => {
      const n = 2 * TILE + 33;
      const hits = device.array('u32', n);
      await hits.fill(0);
      const plan = await compactUpsweep(device, n, wgsl`(i: u32) -> bool { return i % 3u == ${u32(1)}; }`);
      await compactDownsweep(
        device,
        plan,
        wgsl`(d: u32, s: u32) { atomicAdd(&${atomic(hits)}[s], d + 1u); }`,
      );
      const got = await hits.download();
      const want = Uint32Array.from({ length: n }, (_, i) => (i % 3 === 1 ? (i - 1) / 3 + 1 : 0));
      expectArrayEqual(got, want);
      plan.destroy();
    });
  });

  it('rejects a GPU count without maxCount', async () => {
    await gpuTest(async (device) => {
      const c = device.array('u32', 1);
      await expect(
        compactUpsweep(device, { array: c, index: 0 }, wgsl`(i: u32) -> bool { return true; }`),
      ).rejects.toThrow(InputError);
    });
  });
});

describe('compactArray', () => {
  it('keeps values in order, twice with different data', async () => {
    await gpuTest(async (device) => {
      const n = 4 * TILE + 5;
      const input = device.array('u32', n);
      const output = device.array('u32', n);
      const kept = device.array('u32', 1);
      for (const [seed, fused] of [
        [1, false],
        [2, false],
        [3, true],
        [4, true],
      ] as const) {
        const host = randomU32(n, seed);
        input.upload(host);
        // Keep values >= 2^31: about half.
        await compactArray(
          device,
          input,
          output,
          wgsl`(i: u32) -> bool { return ${input}[i] >= 0x80000000u; }`,
          { array: kept, index: 0 },
          { fused },
        );
        const want = host.filter((x) => x >= 0x80000000);
        expect((await kept.download())[0]).toBe(want.length);
        expectArrayEqual((await output.download()).subarray(0, want.length), want, `seed ${seed}`);
      }
    });
  });

  it('compacts f32 with a count smaller than the array', async () => {
    await gpuTest(async (device) => {
      const host = Float32Array.from({ length: 10_000 }, (_, i) => (i % 7) - 3.5);
      const input = device.upload(host);
      const output = device.array('f32', 10_000);
      const kept = device.array('u32', 1);
      await compactArray(
        device,
        input,
        output,
        wgsl`(i: u32) -> bool { return ${input}[i] > 0.0; }`,
        { array: kept, index: 0 },
        {
          count: 6001,
        },
      );
      const want = host.subarray(0, 6001).filter((x) => x > 0);
      expect((await kept.download())[0]).toBe(want.length);
      expectArrayEqual((await output.download()).subarray(0, want.length), want);
    });
  });
});
