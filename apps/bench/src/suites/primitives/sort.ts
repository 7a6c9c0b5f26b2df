import { sortKeys, sortPairs } from '@weft/sort';
import { randomU32 } from '../../random.ts';
import type { BenchCase } from '../../types.ts';
import { firstMismatch } from '../../validate.ts';

// Bytes: the traffic the sort's passes really make (not the 8n / 16n a single pass would need).
// Each of the 4 digit passes reads the keys twice (upsweep count, downsweep) and writes them once: 12n
// for keys, plus 4n read + 4n written for values (the tile histograms, n / 16 words per pass, are left out).
const KEY_BYTES_PER_ITEM = 4 * 12;
const PAIR_BYTES_PER_ITEM = 4 * 20;

const maxItems = (device: { limits: GPUSupportedLimits }) =>
  Math.floor(device.limits.maxStorageBufferBindingSize / 4);

/** 32-bit u32 keys, 4 passes of 8 bits, from an input array into an output array (the input stays). */
export const sortKeysCase: BenchCase = {
  name: 'sort keys u32',
  family: 'sort',
  maxItems,
  async setup(device, n, seed) {
    const host = randomU32(n, seed);
    const keys = device.upload(host, { label: 'sort keys' });
    const output = device.array('u32', n, { label: 'sorted keys' });
    return {
      items: n,
      bytes: KEY_BYTES_PER_ITEM * n,
      run: (rec) => sortKeys(rec, keys, { output }),
      validate: async () => firstMismatch(await output.download(), host.slice().sort()),
      destroy: () => {
        keys.destroy();
        output.destroy();
      },
    };
  },
};

/** u32 keys with u32 values (the input index, so the check also proves stability). */
export const sortPairsCase: BenchCase = {
  name: 'sort pairs u32/u32',
  family: 'sort',
  maxItems,
  async setup(device, n, seed) {
    const host = randomU32(n, seed);
    const keys = device.upload(host, { label: 'sort keys' });
    const values = device.upload(
      Uint32Array.from({ length: n }, (_, i) => i),
      { label: 'sort values' },
    );
    const outKeys = device.array('u32', n, { label: 'sorted keys' });
    const outValues = device.array('u32', n, { label: 'sorted values' });
    return {
      items: n,
      bytes: PAIR_BYTES_PER_ITEM * n,
      run: (rec) => sortPairs(rec, keys, values, { outputKeys: outKeys, outputValues: outValues }),
      validate: async () => {
        const gotKeys = await outKeys.download();
        const keyError = firstMismatch(gotKeys, host.slice().sort());
        if (keyError) return `keys: ${keyError}`;
        return checkStablePermutation(host, gotKeys, await outValues.download());
      },
      destroy: () => {
        for (const a of [keys, values, outKeys, outValues]) a.destroy();
      },
    };
  },
};

/** `values` must be a permutation of input indices that carries each key and keeps equal keys in order. */
function checkStablePermutation(input: Uint32Array, sorted: Uint32Array, values: Uint32Array): string | null {
  const seen = new Uint8Array(input.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v >= input.length || seen[v]) return `values: element ${i} (${v}) is not a fresh input index`;
    seen[v] = 1;
    if (input[v] !== sorted[i]) return `values: element ${i} points at key ${input[v]}, not ${sorted[i]}`;
    if (i > 0 && sorted[i - 1] === sorted[i] && values[i - 1]! > v) {
      return `values: equal keys out of input order at ${i} (unstable)`;
    }
  }
  return null;
}

export const cases: BenchCase[] = [sortKeysCase, sortPairsCase];
