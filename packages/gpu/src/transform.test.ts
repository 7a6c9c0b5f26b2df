import { adversarialSizes, expectArrayEqual, gpuTest, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  atomic,
  copy,
  f32,
  InputError,
  map,
  rw,
  transform,
  transformItemsPerWorkgroup,
  u32,
  unrolled,
  wgsl,
  writeDispatchArgs,
} from './index.ts';

describe('transform', () => {
  it('calls the functor once per index, across workgroup boundaries', async () => {
    await gpuTest(async (device) => {
      for (const n of adversarialSizes([256], [65_535 * 256 + 300])) {
        const input = randomU32(n, n + 1);
        const a = device.upload(input);
        const out = device.array('u32', n);
        await transform(device, n, wgsl`(i: u32) { ${rw(out)}[i] = ${a}[i] * 3u + ${u32(7)}; }`);
        const got = await out.download();
        const want = input.map((x) => (Math.imul(x, 3) + 7) >>> 0);
        expectArrayEqual(got, want, `n=${n}`);
        a.destroy();
        out.destroy();
      }
    });
  });

  it('reads n from the GPU', async () => {
    await gpuTest(async (device) => {
      const out = device.array('f32', 1000);
      await out.fill(-1);
      const count = device.upload(new Uint32Array([0, 777]));
      await transform(
        device,
        { array: count, index: 1 },
        wgsl`(i: u32) { ${rw(out)}[i] = f32(i) * ${f32(0.5)}; }`,
      );
      const got = await out.download();
      for (let i = 0; i < 1000; i++) expect(got[i]).toBe(i < 777 ? i * 0.5 : -1);
    });
  });
});

describe('functors with subgroup built-ins', () => {
  it('compile without the kernel asking, and act on the active lanes under its bounds check', async (context) => {
    await gpuTest(
      async (device) => {
        expect(device.hasSubgroups).toBe(true);
        for (const n of adversarialSizes([256], [100_003])) {
          const count = device.array('u32', 2);
          await count.fill(0);
          const out = device.array('u32', Math.max(1, n));
          // Only odd indices append: each subgroup's odd lanes reserve their slots with one atomicAdd.
          await transform(
            device,
            n,
            wgsl`(i: u32) {
  if ((i & 1u) == 0u) { return; }
  let lanes = subgroupAdd(1u);
  let rank = subgroupExclusiveAdd(1u);
  var first = 0u;
  if (rank == 0u) { first = atomicAdd(&${atomic(count)}[0], lanes); atomicAdd(&${atomic(count)}[1], 1u); }
  ${rw(out)}[subgroupBroadcastFirst(first) + rank] = i;
}`,
          );
          const [total, atomics] = await count.download();
          const odd = Math.floor(n / 2);
          expect(total, `n=${n}`).toBe(odd);
          if (odd > 1) expect(atomics!, `n=${n}: fewer atomics than appends`).toBeLessThan(odd);
          const got = Array.from((await out.download()).subarray(0, odd)).sort((a, b) => a - b);
          expectArrayEqual(
            Uint32Array.from(got),
            Uint32Array.from({ length: odd }, (_, k) => 2 * k + 1),
            `n=${n}`,
          );
          count.destroy();
          out.destroy();
        }
      },
      { subgroups: true, context },
    );
  });
});

describe('WGSL as Dawn compiles it', () => {
  it('a loop-body var with an explicit initializer starts fresh every iteration', async () => {
    // Without an initializer, Dawn (webgpu 0.6.2) on lavapipe zero-initializes such a var once and keeps
    // its values across iterations (0, 1, 2, 3 here), where WGSL re-initializes it every iteration: Weft's
    // kernels give every loop-body var an initializer (OneSweep's look-back once returned wrong sorts for
    // lack of one).
    await gpuTest(async (device) => {
      const out = device.array('u32', 16);
      await transform(
        device,
        2,
        wgsl`(i: u32) {
  for (var k = 0u; k < 4u; k++) {
    var a = array<u32, 2>();
    var b = 0u;
    ${rw(out)}[i * 8u + k] = a[1];
    ${rw(out)}[i * 8u + 4u + k] = b;
    a[1] = k + 1u;
    b = k + 10u;
  }
}`,
      );
      expectArrayEqual(await out.download(), new Uint32Array(16), 'fresh each iteration');
      out.destroy();
    });
  });
});

describe('transform beyond 65,535 workgroups', () => {
  it('splits a GPU-resident count into a 2-D indirect dispatch and covers every index', async () => {
    await gpuTest(async (device) => {
      // 4 items per thread x 256 threads: 70M items need 68,360 workgroups, more than one dimension holds.
      const n = 70_000_000;
      const count = device.upload(new Uint32Array([n]));
      const hits = device.array('u32', 2);
      await hits.fill(0);
      await transform(
        device,
        { array: count, index: 0 },
        wgsl`(i: u32) {
          if ((i & 0xffffu) == 0u) { atomicAdd(&${atomic(hits)}[0], 1u); }
          if (i == ${u32(n - 1)}) { atomicAdd(&${atomic(hits)}[1], 1u); }
        }`,
      );
      expect([...(await hits.download())]).toEqual([Math.ceil(n / 65536), 1]);
    });
  });
});

describe('copy', () => {
  it('copies every element, including tails not a multiple of 4', async () => {
    await gpuTest(async (device) => {
      for (const n of adversarialSizes([4, 1024], [2 ** 20 + 3])) {
        const input = randomU32(n, 99 + n);
        const src = device.upload(input);
        const dst = device.array('u32', n);
        await copy(device, src, dst);
        expectArrayEqual(await dst.download(), input, `n=${n}`);
        src.destroy();
        dst.destroy();
      }
    });
  });

  it('copies an array of exactly the binding limit and rejects one element more', async () => {
    await gpuTest(async (device) => {
      const max = Math.min(device.limits.maxStorageBufferBindingSize / 4, 2 ** 25);
      const input = randomU32(max, 5);
      const src = device.upload(input);
      const dst = device.array('u32', max);
      await copy(device, src, dst);
      const got = await dst.download();
      expect(got[0]).toBe(input[0]);
      expect(got[max - 1]).toBe(input[max - 1]);
      expectArrayEqual(got, input);
      src.destroy();
      dst.destroy();
      if (max === device.limits.maxStorageBufferBindingSize / 4) {
        expect(() => device.array('u32', max + 1, { label: 'too big' })).toThrow(
          /too big.*maxStorageBufferBindingSize/,
        );
      }
    });
  });
});

describe('map', () => {
  it('writes f(i) for every index, for sizes around the tile, host and GPU counts', async () => {
    await gpuTest(async (device) => {
      for (const n of adversarialSizes([256 * 4], [70_000])) {
        const input = device.upload(randomU32(Math.max(n, 1), n));
        const out = device.array('u32', Math.max(n, 1));
        await out.fill(7);
        await map(device, n, wgsl`(i: u32) -> u32 { return ${input}[i] * 3u + 1u; }`, out);
        const host = await input.download();
        const want = host.map((x, i) => (i < n ? (Math.imul(x, 3) + 1) >>> 0 : 7));
        expectArrayEqual(await out.download(), want, `map n=${n}`);
        // A GPU count past the output's length is clamped to it.
        const count = device.upload(new Uint32Array([n + 1000]));
        await out.fill(0);
        await map(device, { array: count, index: 0 }, wgsl`(i: u32) -> u32 { return i; }`, out);
        expectArrayEqual(
          await out.download(),
          Uint32Array.from({ length: out.length }, (_, i) => i),
          `gpu n=${n}`,
        );
        for (const a of [input, out, count]) a.destroy();
      }
    });
  });

  it('maps to f32 and i32 outputs, and rejects a count beyond the output', async () => {
    await gpuTest(async (device) => {
      const f = device.array('f32', 1000);
      await map(device, 1000, wgsl`(i: u32) -> f32 { return f32(i) * 0.5; }`, f);
      expect((await f.download())[999]).toBe(499.5);
      const s = device.array('i32', 10);
      await map(device, 10, wgsl`(i: u32) -> i32 { return -i32(i); }`, s);
      expect([...(await s.download())].slice(0, 3)).toEqual([0, -1, -2]);
      await expect(map(device, 11, wgsl`(i: u32) -> i32 { return 0; }`, s)).rejects.toThrow(InputError);
      f.destroy();
      s.destroy();
    });
  });
});

describe('unrolled', () => {
  it('emits one block per index, with the index as a literal', () => {
    expect(unrolled(3, (k) => ` a[${k}] = ${k};`)).toBe(
      '  { a[0u] = 0u;\n  }\n  { a[1u] = 1u;\n  }\n  { a[2u] = 2u;\n  }',
    );
    expect(unrolled(0, () => 'x')).toBe('');
  });
});

describe('transform over a GPU count with ready dispatch arguments', () => {
  it('uses arguments written beside the count (no sizing kernel) and covers exactly n items', async () => {
    await gpuTest(async (device) => {
      for (const n of [0, 1, 255, 256, 257, 4097, 100_003]) {
        const words = device.array('u32', 4, { label: 'count and args', indirect: true });
        const hits = device.array('u32', 100_004, { label: 'hits' });
        for (const [itemsPerThread, sized] of [
          [1, true],
          [4, true],
          [1, false],
        ] as const) {
          const options = { itemsPerThread };
          // Sized for another item count, the arguments must be ignored (and derived by a kernel).
          const per = transformItemsPerWorkgroup(n, { itemsPerThread: sized ? itemsPerThread : 2 });
          const { write, args } = writeDispatchArgs(words, 1, per);
          const rec = device.recorder();
          rec.clear(hits);
          await transform(rec, 1, wgsl`(i: u32) { ${rw(words)}[0] = ${u32(n)}; ${write}(${u32(n)}); }`);
          await transform(
            rec,
            { array: words, index: 0, args },
            wgsl`(i: u32) { atomicAdd(&${atomic(hits)}[i], 1u); }`,
            options,
          );
          const { dispatches } = await rec.submit();
          expect(dispatches, `n ${n}, ${itemsPerThread} a thread, sized ${sized}`).toBe(sized ? 2 : 3);
          const got = await hits.download();
          const want = new Uint32Array(hits.length);
          want.fill(1, 0, n);
          expectArrayEqual(got, want, `n ${n}`);
        }
        words.destroy();
        hits.destroy();
      }
    });
  });
});
