import { readDistances } from '@weft/algorithms';
import type { DeviceArray } from '@weft/gpu';
import { randomU32 } from '@weft/testing/random';
import type { BenchCase } from '../types.ts';
import { firstMismatch } from '../validate.ts';

/*
 * Reading a result of n words back into fresh host memory (`--suite tune --cases read-back`), as algorithms
 * make their results: each "was" case is the way before `read` and `downloadInto`, beside the way now. Fresh
 * host memory is slow to touch on some hosts (page faults), so every run allocates its result anew.
 */

type Result = Uint32Array | Float64Array;

/** u32 words as numbers, all-ones as Infinity: SSSP's distance decode. */
function decode(words: Uint32Array): Float64Array {
  const out = new Float64Array(words.length);
  for (let v = 0; v < words.length; v++)
    out[v] = words[v] === 0xffffffff ? Number.POSITIVE_INFINITY : words[v]!;
  return out;
}

/** Halves of [0, n), as the parts of a graph partitioned in two own them. */
function halves(n: number): [number, number][] {
  const mid = Math.floor(n / 2);
  return [
    [0, mid],
    [mid, n],
  ];
}

const ways: {
  name: string;
  read: (a: DeviceArray<'u32'>) => Promise<Result>;
  want: (h: Uint32Array) => Result;
}[] = [
  { name: 'download u32', read: (a) => a.download(), want: (h) => h },
  { name: 'download + decode f64 (was)', read: async (a) => decode(await a.download()), want: decode },
  { name: 'read + decode f64', read: (a) => a.read(decode), want: decode },
  {
    name: 'f64 words encoded on the device + read',
    read: (a) => readDistances(a, a.length, false),
    want: decode,
  },
  {
    name: 'download parts + copy into result (was)',
    read: async (a) => {
      const out = new Uint32Array(a.length);
      const parts = halves(a.length);
      const slices = await Promise.all(parts.map(([lo, hi]) => a.download(lo, hi - lo)));
      parts.forEach(([lo], i) => {
        out.set(slices[i]!, lo);
      });
      return out;
    },
    want: (h) => h,
  },
  {
    name: 'downloadInto parts of result',
    read: async (a) => {
      const out = new Uint32Array(a.length);
      await Promise.all(halves(a.length).map(([lo, hi]) => a.downloadInto(out.subarray(lo, hi), lo)));
      return out;
    },
    want: (h) => h,
  },
];

export const cases: BenchCase[] = ways.map(({ name, read, want }) => ({
  name: `read-back ${name}`,
  family: 'read-back',
  async setup(device, n, seed) {
    const host = randomU32(n, seed);
    host[0] = 0xffffffff;
    // A saturated SSSP sum (2^32 - 2) is an overflow error to readDistances: none among the random words.
    for (let i = 0; i < n; i++) if (host[i] === 0xfffffffe) host[i] = 0;
    const a = device.upload(host, { label: 'read-back words' });
    let last: Result | undefined;
    return {
      items: n,
      bytes: 4 * n,
      hostTimed: true,
      async run() {
        last = await read(a);
      },
      validate: async () => (last ? firstMismatch(last, want(host)) : 'no run'),
      destroy: () => a.destroy(),
    };
  },
}));
