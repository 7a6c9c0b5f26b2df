import { type DeviceArray, DeviceLimitError, type ElementType, InputError, type WeftDevice } from '@weft/gpu';
import {
  adversarialSizes,
  expectArrayEqual,
  gpuTest,
  mulberry32,
  randomF32,
  randomI32,
  randomU32,
} from '@weft/testing';
import { describe, expect, it, vi } from 'vitest';
import {
  AUTO_TOP_DIGIT_FIRST_FROM,
  radixTileConfig,
  type SortOptions,
  sortAlgorithmFor,
  sortKeys,
  sortPairs,
  topDigitFirstFor,
} from './index.ts';
import { orderKeyOf, padKeyOf } from './order-key.ts';
import { tileSize, unorderedFirstPass } from './radix-wgsl.ts';
import { permute, referencePermutation } from './reference.ts';
import { defaultTilesPerWorkgroup } from './sort-passes.ts';

function bitsOf(a: Uint32Array | Int32Array | Float32Array): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

async function download(a: DeviceArray, n = a.length): Promise<Uint32Array> {
  return bitsOf(await a.download(0, n));
}

function uploadAs(device: WeftDevice, type: ElementType, raw: Uint32Array): DeviceArray {
  const copy = raw.slice();
  if (type === 'u32') return device.upload(copy);
  if (type === 'i32') return device.upload(new Int32Array(copy.buffer));
  return device.upload(new Float32Array(copy.buffer));
}

/** Sorts `raw` as pairs (values = input indices) and as keys, in place, and checks both. */
async function checkSort(
  device: WeftDevice,
  type: ElementType,
  raw: Uint32Array,
  what: string,
  options: SortOptions = {},
) {
  const perm = referencePermutation(type, raw, options.descending, options.bits);
  const keys = uploadAs(device, type, raw);
  const values = device.upload(Uint32Array.from(perm.keys()));
  await sortPairs(device, keys, values, options);
  expectArrayEqual(await download(keys), permute(raw, perm), `${what}: pair keys`);
  expectArrayEqual(await download(values), Uint32Array.from(perm), `${what}: pair values (stability)`);
  keys.destroy();
  const again = uploadAs(device, type, raw);
  await sortKeys(device, again, options);
  expectArrayEqual(await download(again), permute(raw, perm), `${what}: keys`);
  again.destroy();
  values.destroy();
}

const F32_SPECIALS = [
  -0,
  0,
  Number.NEGATIVE_INFINITY,
  Number.POSITIVE_INFINITY,
  1.4e-45, // the smallest denormal
  -1.4e-45,
  1e-40,
  -1e-40,
  3.4028234663852886e38,
  -3.4028234663852886e38,
  1,
  -1,
];
const NAN_BITS = [0x7fc00000, 0xffc00000, 0x7f800001, 0xff812345, 0x7fffffff];

describe('sortKeys / sortPairs', () => {
  it('sorts u32 keys of every tile-boundary size (full range, values >= 2^31)', async () => {
    await gpuTest(async (device) => {
      const tile = tileSize(radixTileConfig(device));
      for (const n of adversarialSizes([256, tile], [5 * tile + 77])) {
        await checkSort(device, 'u32', randomU32(n, n + 11), `u32 n=${n}`);
      }
    });
  });

  it('sorts adversarial patterns: all equal, sorted, reversed, few distinct, extremes', async () => {
    await gpuTest(async (device) => {
      const n = 3 * tileSize(radixTileConfig(device)) + 123;
      const r = mulberry32(5);
      const few = [0, 7, 2 ** 31, 2 ** 32 - 1, 2 ** 30 + 3];
      const patterns: Record<string, Uint32Array> = {
        'all equal': new Uint32Array(n).fill(0xdeadbeef),
        'all zero': new Uint32Array(n),
        sorted: Uint32Array.from({ length: n }, (_, i) => i * 97),
        reversed: Uint32Array.from({ length: n }, (_, i) => 2 ** 32 - 1 - i),
        'few distinct': Uint32Array.from({ length: n }, () => few[Math.floor(r() * few.length)]!),
        'one digit differs': Uint32Array.from({ length: n }, () => 0x12345600 + Math.floor(r() * 256)),
      };
      for (const [name, raw] of Object.entries(patterns)) {
        await checkSort(device, 'u32', raw, name);
        await checkSort(device, 'u32', raw, `${name} descending`, { descending: true });
      }
      // The last tile's padding keys take the largest first digit: real keys with that digit (low byte 0xff
      // ascending, 0x00 descending) must still come first, on both algorithms.
      for (const low of [0xff, 0x00]) {
        const raw = Uint32Array.from({ length: n }, () => ((Math.floor(r() * 2 ** 24) << 8) | low) >>> 0);
        for (const algorithm of ['onesweep', 'reduce-then-scan'] as const) {
          for (const descending of [false, true]) {
            await checkSort(device, 'u32', raw, `low byte ${low} ${algorithm} descending=${descending}`, {
              algorithm,
              descending,
            });
          }
        }
      }
    });
  });

  it('sorts i32 keys, negatives first', async () => {
    await gpuTest(async (device) => {
      const n = 2 * tileSize(radixTileConfig(device)) + 5;
      const raw = bitsOf(randomI32(n, 3));
      for (const [i, v] of [-(2 ** 31), -1, 0, 2 ** 31 - 1, 1].entries()) raw[i * 7] = v >>> 0;
      await checkSort(device, 'i32', raw, 'i32');
      await checkSort(device, 'i32', raw, 'i32 descending', { descending: true });
      await checkSort(device, 'i32', bitsOf(randomI32(n, 4, -3, 3)), 'i32 few distinct');
    });
  });

  it('sorts f32 keys with -0 < +0, infinities, denormals and NaNs last', async () => {
    await gpuTest(async (device) => {
      const n = 2 * tileSize(radixTileConfig(device)) + 300;
      const f = randomF32(n, 8, -1e3, 1e3);
      const r = mulberry32(9);
      for (let i = 0; i < n; i += 5) f[i] = F32_SPECIALS[Math.floor(r() * F32_SPECIALS.length)]!;
      const raw = bitsOf(f);
      for (let i = 3; i < n; i += 41) raw[i] = NAN_BITS[Math.floor(r() * NAN_BITS.length)]!;
      await checkSort(device, 'f32', raw, 'f32');
      await checkSort(device, 'f32', raw, 'f32 descending', { descending: true });
      const sorted = bitsOf(await sortedF32(device, f));
      const nanCount = raw.filter((b) => (b & 0x7fffffff) >>> 0 > 0x7f800000).length;
      for (let i = n - nanCount; i < n; i++)
        expect(Number.isNaN(new Float32Array(sorted.buffer)[i])).toBe(true);
    });
  });

  it('reuses arrays and pooled scratch with different data (no stale state)', async () => {
    await gpuTest(async (device) => {
      const n = 2 * tileSize(radixTileConfig(device)) + 1;
      const keys = device.array('u32', n);
      const values = device.array('u32', n);
      for (const [seed, max] of [
        [1, 2 ** 32],
        [2, 4],
        [3, 2 ** 32],
      ] as const) {
        const raw = randomU32(n, seed, max);
        const perm = referencePermutation('u32', raw);
        keys.upload(raw);
        values.upload(Uint32Array.from(perm.keys()));
        await sortPairs(device, keys, values);
        expectArrayEqual(await download(values), Uint32Array.from(perm), `run with seed ${seed}`);
      }
      keys.destroy();
      values.destroy();
    });
  });

  it('sorts only the low bits with `bits` (fewer passes, odd and even counts)', async () => {
    await gpuTest(async (device) => {
      const n = 2 * tileSize(radixTileConfig(device)) + 99;
      for (const bits of [1, 5, 8, 12, 16, 17, 24]) {
        await checkSort(device, 'u32', randomU32(n, bits, 2 ** bits), `bits=${bits}`, { bits });
      }
      // Bits above `bits` are ignored (and carried along): keys compare by their low bits only.
      for (const bits of [3, 12, 16, 21]) {
        await checkSort(device, 'u32', randomU32(n, 77 + bits), `high bits ignored, bits=${bits}`, { bits });
      }
      await checkSort(device, 'i32', bitsOf(randomI32(n, 6, 0, 2 ** 20)), 'i32 bits=20', { bits: 20 });
      await checkSort(device, 'u32', randomU32(n, 7, 2 ** 12), 'bits=12 descending', {
        bits: 12,
        descending: true,
      });
    });
  });

  it('writes into given outputs and leaves the inputs untouched', async () => {
    await gpuTest(async (device) => {
      const n = tileSize(radixTileConfig(device)) + 17;
      for (const bits of [32, 24, 8]) {
        const raw = randomU32(n, bits, 2 ** bits);
        const perm = referencePermutation('u32', raw);
        const keys = device.upload(raw);
        const values = device.upload(Uint32Array.from(perm.keys()));
        const outKeys = device.array('u32', n + 5);
        const outValues = device.array('u32', n);
        await sortPairs(device, keys, values, { bits, outputKeys: outKeys, outputValues: outValues });
        expectArrayEqual(await download(outKeys, n), permute(raw, perm), `bits=${bits} out keys`);
        expectArrayEqual(await download(outValues), Uint32Array.from(perm), `bits=${bits} out values`);
        expectArrayEqual(await download(keys), raw, `bits=${bits} input keys`);
        const keysOnly = device.array('u32', n);
        await sortKeys(device, keys, { bits, output: keysOnly });
        expectArrayEqual(await download(keysOnly), permute(raw, perm), `bits=${bits} sortKeys output`);
        expectArrayEqual(await download(keys), raw, `bits=${bits} sortKeys input`);
        for (const a of [keys, values, outKeys, outValues, keysOnly]) a.destroy();
      }
    });
  });

  it('sorts a prefix given by a host count or a GPU count, leaving the rest untouched', async () => {
    await gpuTest(async (device) => {
      const tile = tileSize(radixTileConfig(device));
      const capacity = 3 * tile + 10;
      const raw = randomU32(capacity, 21);
      for (const m of [0, 1, tile, 2 * tile + 3, capacity]) {
        for (const bits of [32, 8]) {
          const perm = referencePermutation('u32', raw.subarray(0, m), false, bits);
          const want = raw.slice();
          want.set(permute(raw, perm));
          const countArray = device.upload(new Uint32Array([123, m]));
          for (const count of [m, { array: countArray, index: 1 }]) {
            const keys = device.upload(raw);
            const values = device.upload(Uint32Array.from({ length: capacity }, (_, i) => i));
            await sortPairs(device, keys, values, { count, bits });
            const where = `m=${m} bits=${bits} ${typeof count === 'number' ? 'host' : 'GPU'} count`;
            expectArrayEqual(await download(keys), want, `${where} keys`);
            const wantValues = Uint32Array.from({ length: capacity }, (_, i) => (i < m ? perm[i]! : i));
            expectArrayEqual(await download(values), wantValues, `${where} values`);
            keys.destroy();
            values.destroy();
          }
          countArray.destroy();
        }
      }
    });
  });

  it('records into a caller recorder: two sorts in one submit', async () => {
    await gpuTest(async (device) => {
      const n = 5000;
      const a = randomU32(n, 31);
      const b = bitsOf(randomF32(n, 32));
      const ka = device.upload(a);
      const kb = device.upload(new Float32Array(b.buffer));
      const rec = device.recorder({ label: 'two sorts' });
      await sortKeys(rec, ka);
      await sortKeys(rec, kb, { descending: true });
      await rec.submit();
      expectArrayEqual(await download(ka), permute(a, referencePermutation('u32', a)), 'first');
      expectArrayEqual(await download(kb), permute(b, referencePermutation('f32', b, true)), 'second');
      ka.destroy();
      kb.destroy();
    });
  });

  it("reuses one sort's scratch for the next in one recorder: k batched sorts hold one sort's memory", async () => {
    await gpuTest(async (device) => {
      for (const options of [
        { algorithm: 'onesweep' },
        { algorithm: 'reduce-then-scan' },
        { algorithm: 'reduce-then-scan', tuning: { topDigitFirst: true } },
      ] satisfies SortOptions[]) {
        const n = 9000;
        const inputs = [41, 42, 43].map((seed) => randomU32(n, seed));
        const keys = inputs.map((a) => device.upload(a));
        const rec = device.recorder({ label: 'three sorts' });
        await sortKeys(rec, keys[0]!, options);
        const afterOne = device.pool.stats.liveBytes;
        await sortKeys(rec, keys[1]!, options);
        await sortKeys(rec, keys[2]!, options);
        expect(device.pool.stats.liveBytes, options.algorithm).toBe(afterOne);
        await rec.submit();
        for (const [i, a] of inputs.entries()) {
          expectArrayEqual(await download(keys[i]!), permute(a, referencePermutation('u32', a)), `sort ${i}`);
          keys[i]!.destroy();
        }
      }
    });
  });

  it('sorts by (source, target) with two stable passes', async () => {
    await gpuTest(async (device) => {
      const n = 20_000;
      const src = randomU32(n, 41, 300);
      const dst = randomU32(n, 42, 300);
      const s = device.upload(src);
      const t = device.upload(dst);
      // Sort by target, then stably by source, carrying the other endpoint along as the value.
      await sortPairs(device, t, s, { bits: 9 });
      await sortPairs(device, s, t, { bits: 9 });
      const want = Array.from({ length: n }, (_, i) => [src[i]!, dst[i]!] as const).sort(
        (x, y) => x[0] - y[0] || x[1] - y[1],
      );
      expectArrayEqual(
        await download(s),
        Uint32Array.from(want, (e) => e[0]),
        'sources',
      );
      expectArrayEqual(
        await download(t),
        Uint32Array.from(want, (e) => e[1]),
        'targets',
      );
      s.destroy();
      t.destroy();
    });
  });

  it('sorts a million pairs and four million keys', async () => {
    await gpuTest(async (device) => {
      await checkSort(device, 'u32', randomU32(2 ** 20 + 3, 55), 'n=2^20+3');
      const raw = randomU32(2 ** 22 + 1, 56);
      const keys = device.upload(raw);
      await sortKeys(device, keys);
      expectArrayEqual(await keys.download(), raw.slice().sort(), 'n=2^22+1 keys');
      keys.destroy();
    });
  });

  it('copies a one-pass in-place result back over more than 65,535 workgroups (GPU count)', async () => {
    await gpuTest(async (device) => {
      const n = 65_535 * 256 + 300;
      const raw = randomU32(n, 57, 256);
      const keys = device.upload(raw);
      const count = { array: device.upload(new Uint32Array([n - 1])), index: 0 };
      await sortKeys(device, keys, { bits: 8, count });
      const want = raw.slice(0, n - 1).sort();
      const got = await keys.download();
      expectArrayEqual(got.subarray(0, n - 1), want, 'sorted prefix');
      expect(got[n - 1]).toBe(raw[n - 1]);
      keys.destroy();
      count.array.destroy();
    });
  });

  // Every path must give the reference's results: reduce-then-scan, forced look-back fallbacks, tile shapes.
  const variants: [string, SortOptions][] = [
    ['reduce-then-scan', { algorithm: 'reduce-then-scan' }],
    // Upsweep chunks of several tiles (the last one short; 1 is one tile a chunk).
    ['reduce-then-scan, 3 tiles a chunk', { algorithm: 'reduce-then-scan', tuning: { tilesPerChunk: 3 } }],
    [
      'reduce-then-scan, 4 tiles a chunk, wide masks',
      { algorithm: 'reduce-then-scan', tuning: { tilesPerChunk: 4, wideMasks: true } },
    ],
    [
      'reduce-then-scan, 2 tiles a chunk, 128-thread workgroups',
      { algorithm: 'reduce-then-scan', tuning: { tilesPerChunk: 2, workgroupSize: 128 } },
    ],
    // Downsweep workgroups that rank several tiles in turn (the last with fewer), loading each next tile early.
    [
      'reduce-then-scan, 3 tiles a workgroup, 2 a chunk',
      { algorithm: 'reduce-then-scan', tuning: { tilesPerWorkgroup: 3, tilesPerChunk: 2 } },
    ],
    [
      'reduce-then-scan, 2 tiles a workgroup, stable first pass, wide masks',
      {
        algorithm: 'reduce-then-scan',
        tuning: { tilesPerWorkgroup: 2, stableFirstPass: true, wideMasks: true },
      },
    ],
    // More tiles a workgroup than MAX_CONSTANT_TRIPS: the tile loop in its plain form.
    [
      'reduce-then-scan, 9 tiles a workgroup',
      { algorithm: 'reduce-then-scan', tuning: { tilesPerWorkgroup: 9 } },
    ],
    // The top-digit-first sort (keys-only u32 passes; the others here take the plain path).
    [
      'top digit first, 3 tiles a workgroup, 2 a chunk',
      {
        algorithm: 'reduce-then-scan',
        tuning: { topDigitFirst: true, tilesPerWorkgroup: 3, tilesPerChunk: 2 },
      },
    ],
    [
      'top digit first, 64-thread workgroups, 1 tile a chunk',
      { algorithm: 'reduce-then-scan', tuning: { topDigitFirst: true, workgroupSize: 64, tilesPerChunk: 1 } },
    ],
    // A keys-only u32 / i32 sort's first pass ranks unstably by default; this is its ballot ranking.
    ['stable first pass', { tuning: { stableFirstPass: true } }],
    [
      'reduce-then-scan, stable first pass',
      { algorithm: 'reduce-then-scan', tuning: { stableFirstPass: true } },
    ],
    ['fallback on odd tiles', { tuning: { distrustOddTiles: true } }],
    ['fallback always', { tuning: { maxSpin: 0 } }],
    ['7 keys per thread', { tuning: { keysPerThread: 7 } }],
    // The 128-lane ballot masks of adapters with wide subgroups (here one-word masks are the default).
    ['wide masks, fallback on odd tiles', { tuning: { wideMasks: true, distrustOddTiles: true } }],
    // Smaller workgroups, as adapters with 4-lane subgroups get (SwiftShader): 4 and 2 digits per thread.
    [
      '64-thread workgroups, fallback on odd tiles',
      { tuning: { workgroupSize: 64, distrustOddTiles: true } },
    ],
    ['128-thread workgroups, fallback always', { tuning: { workgroupSize: 128, maxSpin: 0 } }],
    [
      '64-thread workgroups, reduce-then-scan',
      { algorithm: 'reduce-then-scan', tuning: { workgroupSize: 64 } },
    ],
  ];
  it.each(variants)('gives the reference results on the path: %s', async (name, options) => {
    await gpuTest(async (device) => {
      const tile = tileSize(radixTileConfig(device));
      const f = randomF32(7 * tile + 1, 12, -10, 10);
      for (let i = 0; i < f.length; i += 3) f[i] = F32_SPECIALS[i % F32_SPECIALS.length]!;
      const small = tileSize(radixTileConfig(device, options.tuning));
      for (const n of [1, small - 1, small, 2 * small + 1, 9 * tile + 77]) {
        await checkSort(device, 'u32', randomU32(n, n + 3), `${name} n=${n}`, options);
      }
      await checkSort(device, 'u32', randomU32(6 * tile, 4, 3), `${name} few distinct`, options);
      await checkSort(device, 'f32', bitsOf(f), `${name} f32 descending`, { ...options, descending: true });
      await checkSort(device, 'i32', bitsOf(randomI32(3 * tile, 5)), `${name} i32 bits=24`, {
        ...options,
        bits: 24,
      });
      const m = 4 * tile + 5;
      const raw = randomU32(5 * tile, 6);
      const keys = device.upload(raw);
      const count = { array: device.upload(new Uint32Array([m])), index: 0 };
      await sortKeys(device, keys, { ...options, count });
      const want = raw.slice();
      want.set(permute(raw, referencePermutation('u32', raw.subarray(0, m))));
      expectArrayEqual(await download(keys), want, `${name} GPU count`);
      keys.destroy();
      count.array.destroy();
    });
  });

  it('sorts by the top digit first into tile-aligned buckets where asked (keys-only u32 / i32 over 32 bits)', async () => {
    await gpuTest(async (device) => {
      const tile = tileSize(radixTileConfig(device));
      const options: SortOptions = { algorithm: 'reduce-then-scan', tuning: { topDigitFirst: true } };
      const spy = vi.spyOn(device, 'kernel');
      const check = async (type: 'u32' | 'i32', raw: Uint32Array, what: string, descending = false) => {
        const want = permute(raw, referencePermutation(type, raw, descending));
        const keys = uploadAs(device, type, raw);
        await sortKeys(device, keys, { ...options, descending });
        expectArrayEqual(await download(keys), want, `${what} in place`);
        const out = uploadAs(device, type, new Uint32Array(raw.length + 7).fill(0xdeadbeef));
        const input = uploadAs(device, type, raw);
        await sortKeys(device, input, { ...options, descending, output: out });
        const got = await download(out);
        expectArrayEqual(got.subarray(0, raw.length), want, `${what} into an output`);
        expectArrayEqual(
          got.subarray(raw.length),
          new Uint32Array(7).fill(0xdeadbeef),
          `${what}: past the end`,
        );
        expectArrayEqual(await download(input), raw, `${what}: input untouched`);
        for (const a of [keys, out, input]) a.destroy();
      };
      for (const n of [1, 2, tile - 1, tile, tile + 1, 3 * tile + 17, 9 * tile + 77]) {
        await check('u32', randomU32(n, n), `random n=${n}`);
      }
      const n = 5 * tile + 3;
      await check('u32', new Uint32Array(n).fill(0x12345678), 'all equal');
      await check(
        'u32',
        Uint32Array.from({ length: n }, (_, i) => i * 977),
        'sorted',
      );
      await check(
        'u32',
        Uint32Array.from({ length: n }, (_, i) => (n - i) * 4099),
        'reversed',
      );
      // One bucket holds nearly everything; the rest is spread (skewed bucket sizes, most of them empty).
      const skewed = randomU32(n, 3).map((v, i) => (i % 97 === 0 ? v : (v & 0x00ffffff) | 0x7f000000));
      await check('u32', skewed, 'skewed top digit');
      // Keys equal to a bucket's padding (top digit over 24 one bits) next to it.
      const padLike = randomU32(n, 4).map((v, i) => (i % 3 === 0 ? (v | 0x00ffffff) >>> 0 : v));
      await check('u32', padLike, 'keys equal to the padding');
      await check('u32', randomU32(n, 5), 'descending', true);
      await check('i32', bitsOf(randomI32(n, 6)), 'i32');
      await check('i32', bitsOf(randomI32(n, 7)), 'i32 descending', true);
      // A GPU-resident count: only the prefix is sorted, the rest left as it was.
      const raw = randomU32(4 * tile + 9, 8);
      const m = 2 * tile + 5;
      const keys = device.upload(raw);
      const count = { array: device.upload(new Uint32Array([m])), index: 0 };
      await sortKeys(device, keys, { ...options, count });
      const want = raw.slice();
      want.set(permute(raw, referencePermutation('u32', raw.subarray(0, m))));
      expectArrayEqual(await download(keys), want, 'GPU count');
      // A GPU count of zero: every bucket empty, nothing written.
      count.array.upload([0]);
      await sortKeys(device, keys, { ...options, count });
      expectArrayEqual(await download(keys), want, 'GPU count 0');
      keys.destroy();
      count.array.destroy();
      const labels = spy.mock.calls.map(([spec]) => spec.label ?? '');
      spy.mockRestore();
      expect(labels).toContain('radix downsweep top unstable');
      expect(labels).toContain('radix downsweep last');
    });
  });

  it('ranks the first pass unstably only where no caller can tell: keys-only u32 / i32 over 32 bits', async () => {
    expect(unorderedFirstPass({ type: 'u32', descending: false }, false, 32)).toBe(true);
    expect(unorderedFirstPass({ type: 'i32', descending: true }, false, 32)).toBe(true);
    expect(unorderedFirstPass({ type: 'u32', descending: false }, true, 32)).toBe(false); // pairs
    expect(unorderedFirstPass({ type: 'u32', descending: false }, false, 31)).toBe(false); // high bits carried
    expect(unorderedFirstPass({ type: 'f32', descending: false }, false, 32)).toBe(false); // NaNs tie
    await gpuTest(async (device) => {
      // Which downsweeps each sort compiles: the unstable one for pass 0 of keys-only u32 only.
      const labels = async (run: () => Promise<void>) => {
        const spy = vi.spyOn(device, 'kernel');
        await run();
        const got = spy.mock.calls.map(([spec]) => spec.label ?? '').filter((l) => /downsweep|pass/.test(l));
        spy.mockRestore();
        return got;
      };
      const raw = randomU32(3000, 8);
      const keys = device.upload(raw);
      const values = device.upload(raw);
      for (const algorithm of ['onesweep', 'reduce-then-scan'] as const) {
        const unstable = algorithm === 'onesweep' ? 'onesweep pass unstable' : 'radix downsweep unstable';
        expect(await labels(() => sortKeys(device, keys, { algorithm }))).toContain(unstable);
        const stableOnly = [
          () => sortPairs(device, keys, values, { algorithm }),
          () => sortKeys(device, keys, { algorithm, bits: 31 }),
          () => sortKeys(device, keys, { algorithm, tuning: { stableFirstPass: true } }),
        ];
        for (const run of stableOnly) {
          expect((await labels(run)).some((l) => l.includes('unstable'))).toBe(false);
        }
        // f32: every NaN maps to one order key, so every pass keeps input order.
        const f = device.upload(randomF32(3000, 9, -1, 1));
        expect(
          (await labels(() => sortKeys(device, f, { algorithm }))).some((l) => l.includes('unstable')),
        ).toBe(false);
        f.destroy();
      }
      keys.destroy();
      values.destroy();
    });
  });

  it('takes up to 4 tiles a downsweep workgroup for keys while 2048 workgroups remain, one for pairs', () => {
    expect(
      [1, 2047, 4096, 6144, 8192, 32768, 1 << 20].map((t) => defaultTilesPerWorkgroup(t, false)),
    ).toEqual([1, 1, 2, 3, 4, 4, 4]);
    expect(defaultTilesPerWorkgroup(32768, true)).toBe(1);
  });

  it('resolves auto by size: OneSweep below 2^24 keys, reduce-then-scan from there; explicit choices kept', () => {
    expect(sortAlgorithmFor(2 ** 24 - 1)).toBe('onesweep');
    expect(sortAlgorithmFor(2 ** 24)).toBe('reduce-then-scan');
    expect(sortAlgorithmFor(2 ** 27, 'onesweep')).toBe('onesweep');
    expect(sortAlgorithmFor(10, 'reduce-then-scan')).toBe('reduce-then-scan');
  });

  it('sorts top digit first from 2^26 keys only where it may: keys-only u32 / i32 over 32 bits that fit a binding', () => {
    const u32 = { type: 'u32', descending: false } as const;
    const big = AUTO_TOP_DIGIT_FIRST_FROM;
    const fits = [4 * big, 2 ** 31] as const;
    const rts = 'reduce-then-scan';
    expect(topDigitFirstFor(big, rts, u32, false, 32, ...fits, {})).toBe(true);
    expect(topDigitFirstFor(big, rts, { type: 'i32', descending: true }, false, 32, ...fits, {})).toBe(true);
    expect(topDigitFirstFor(big - 1, rts, u32, false, 32, ...fits, {})).toBe(false);
    expect(topDigitFirstFor(10, rts, u32, false, 32, ...fits, { topDigitFirst: true })).toBe(true);
    expect(topDigitFirstFor(big, rts, u32, false, 32, ...fits, { topDigitFirst: false })).toBe(false);
    expect(topDigitFirstFor(big, rts, u32, false, 32, ...fits, { stableFirstPass: true })).toBe(false);
    // Never where it would be wrong or cannot run, whatever the tuning says.
    const asked = { topDigitFirst: true };
    expect(topDigitFirstFor(big, 'onesweep', u32, false, 32, ...fits, asked)).toBe(false);
    expect(topDigitFirstFor(big, rts, u32, true, 32, ...fits, asked)).toBe(false);
    expect(topDigitFirstFor(big, rts, u32, false, 24, ...fits, asked)).toBe(false);
    expect(topDigitFirstFor(big, rts, { type: 'f32', descending: false }, false, 32, ...fits, asked)).toBe(
      false,
    );
    expect(topDigitFirstFor(big, rts, u32, false, 32, 2 ** 31 + 4, 2 ** 31, asked)).toBe(false);
  });

  it('rejects bad arguments with InputError', async () => {
    await gpuTest(async (device) => {
      const keys = device.upload(new Uint32Array(10));
      const f = device.upload(new Float32Array(10));
      const small = device.array('u32', 5);
      await expect(sortKeys(device, keys, { bits: 0 })).rejects.toThrow(/bits/);
      await expect(sortKeys(device, keys, { bits: 33 })).rejects.toThrow(InputError);
      await expect(sortKeys(device, f, { bits: 16 })).rejects.toThrow(/f32/);
      await expect(sortKeys(device, keys, { count: 11 })).rejects.toThrow(/count/);
      await expect(sortKeys(device, keys, { output: small })).rejects.toThrow(/at least 10/);
      await expect(sortKeys(device, keys, { output: f })).rejects.toThrow(/f32/);
      await expect(sortPairs(device, keys, small)).rejects.toThrow(/values/);
      await expect(sortPairs(device, keys, keys)).rejects.toThrow(/different/);
      await expect(sortPairs(device, keys, f, { outputKeys: small })).rejects.toThrow(/both/);
      await expect(sortKeys(device, keys, { count: { array: keys, index: 0 } })).rejects.toThrow(/own array/);
      await expect(sortKeys(device, keys, { algorithm: 'quick' as 'onesweep' })).rejects.toThrow(/algorithm/);
      await expect(sortKeys(device, keys, { tuning: { workgroupSize: 96 } })).rejects.toThrow(
        /workgroupSize/,
      );
      // Checked whichever algorithm runs (each knob belongs to one of them).
      for (const algorithm of ['onesweep', 'reduce-then-scan'] as const) {
        await expect(sortKeys(device, keys, { algorithm, tuning: { tilesPerWorkgroup: 0 } })).rejects.toThrow(
          /tilesPerWorkgroup/,
        );
        await expect(sortKeys(device, keys, { algorithm, tuning: { tilesPerChunk: 1.5 } })).rejects.toThrow(
          /tilesPerChunk/,
        );
        await expect(sortKeys(device, keys, { algorithm, tuning: { maxSpin: -1 } })).rejects.toThrow(
          /maxSpin/,
        );
      }
      for (const a of [keys, f, small]) a.destroy();
    });
  });
});

describe('padKeyOf', () => {
  it('gives a key that orders last in every pass, or none where no key does (descending f32)', () => {
    for (const type of ['u32', 'i32', 'f32'] as const) {
      for (const descending of [false, true]) {
        const pad = padKeyOf({ type, descending });
        if (type === 'f32' && descending) expect(pad).toBeUndefined();
        else expect(orderKeyOf(type, pad!, descending)).toBe(0xffffffff);
      }
    }
  });
});

describe('radixTileConfig', () => {
  // Only the fields radixTileConfig reads.
  function fakeDevice(subgroupSize: number, workgroupStorage: number): WeftDevice {
    return {
      hasSubgroups: true,
      adapter: { subgroupMinSize: subgroupSize, subgroupMaxSize: subgroupSize },
      limits: { maxComputeWorkgroupStorageSize: workgroupStorage },
    } as unknown as WeftDevice;
  }

  it('keeps 256 threads x 16 keys for 32-lane subgroups in 32 KB, 12 keys for 8-lane ones', () => {
    const c = radixTileConfig(fakeDevice(32, 32768));
    expect([c.threads, c.keysPerThread, c.maxSubgroups]).toEqual([256, 16, 8]);
    // 32 subgroups' histograms (16 KB) beside a 16-key tile (16 KB) do not fit with the rest.
    const d = radixTileConfig(fakeDevice(8, 32768));
    expect([d.threads, d.keysPerThread, d.maxSubgroups]).toEqual([256, 12, 32]);
  });

  it('takes 128-thread workgroups for 4-lane subgroups in 32 KB (SwiftShader), 64 in 16 KB', () => {
    const c = radixTileConfig(fakeDevice(4, 32768));
    expect([c.threads, c.keysPerThread, c.maxSubgroups]).toEqual([128, 16, 32]);
    const d = radixTileConfig(fakeDevice(4, 16384));
    expect([d.threads, d.keysPerThread, d.maxSubgroups]).toEqual([64, 16, 16]);
  });

  it('throws DeviceLimitError when nothing fits, InputError for a workgroup below the subgroup size', () => {
    expect(() => radixTileConfig(fakeDevice(4, 4096))).toThrow(DeviceLimitError);
    expect(() => radixTileConfig(fakeDevice(128, 65536), { workgroupSize: 64 })).toThrow(InputError);
    expect(radixTileConfig(fakeDevice(128, 65536)).threads).toBe(256);
  });

  it('takes virtual 32-lane subgroups without the feature: 256 x 8 in 32 KB, 256 x 4 in 12 KB, 128 x 4 in 8 KB', () => {
    const without = (workgroupStorage: number) =>
      ({
        hasSubgroups: false,
        adapter: {},
        limits: { maxComputeWorkgroupStorageSize: workgroupStorage },
      }) as unknown as WeftDevice;
    const c = radixTileConfig(without(32768));
    expect([c.threads, c.keysPerThread, c.maxSubgroups, c.maskWords, c.subgroups]).toEqual([
      256,
      8,
      8,
      1,
      false,
    ]);
    const d = radixTileConfig(without(12288));
    expect([d.threads, d.keysPerThread]).toEqual([256, 4]);
    const e = radixTileConfig(without(8192));
    expect([e.threads, e.keysPerThread, e.maxSubgroups]).toEqual([128, 4, 4]);
  });

  it('ranks with one-word ballots up to 32 lanes, four words beyond or when told', () => {
    expect(radixTileConfig(fakeDevice(32, 32768)).maskWords).toBe(1);
    expect(radixTileConfig(fakeDevice(8, 32768)).maskWords).toBe(1);
    expect(radixTileConfig(fakeDevice(64, 32768)).maskWords).toBe(4);
    expect(radixTileConfig(fakeDevice(32, 32768), { wideMasks: true }).maskWords).toBe(4);
  });
});

async function sortedF32(device: WeftDevice, f: Float32Array): Promise<Float32Array> {
  const a = device.upload(f.slice());
  await sortKeys(device, a);
  const out = await a.download();
  a.destroy();
  return out;
}
