import { type SortOptions, sortAlgorithmFor, sortKeys, sortPairs } from '@weft/sort';
import { randomU32 } from '@weft/testing/random';
import type { BenchCase } from '../../types.ts';
import { firstMismatch } from '../../validate.ts';

// Bytes: the traffic the sort's passes really make (not the 8n / 16n one pass would need), for 32-bit keys
// (4 digit passes). OneSweep: one histogram read of the keys (4n), then per pass one read and one write
// of the keys (8n) and, for pairs, of the values (8n). Reduce-then-scan reads the keys once more per pass.
// The look-back status / tile histograms (about n / 16 words per pass) are left out.
function sortBytes(n: number, pairs: boolean, asked: SortOptions['algorithm']): number {
  const algorithm = sortAlgorithmFor(n, asked);
  const perPass = 8 + (pairs ? 8 : 0) + (algorithm === 'reduce-then-scan' ? 4 : 0);
  const histogram = algorithm === 'reduce-then-scan' ? 0 : 4;
  return (histogram + 4 * perPass) * n;
}

const maxItems = (device: { limits: GPUSupportedLimits }) =>
  Math.floor(device.limits.maxStorageBufferBindingSize / 4);

/** u32 keys from an input array into an output array (the input stays, so every repetition is equal). */
export function sortKeysVariant(name: string, options: SortOptions = {}): BenchCase {
  return {
    name,
    family: 'sort',
    maxItems,
    async setup(device, n, seed) {
      const host = randomU32(n, seed);
      const keys = device.upload(host, { label: 'sort keys' });
      const output = device.array('u32', n, { label: 'sorted keys' });
      return {
        items: n,
        bytes: sortBytes(n, false, options.algorithm),
        run: (rec) => sortKeys(rec, keys, { ...options, output }),
        validate: async () => firstMismatch(await output.download(), sortedByLowBits(host, options.bits)),
        destroy: () => {
          keys.destroy();
          output.destroy();
        },
      };
    },
  };
}

/** u32 keys with u32 values (the input index, so the check also proves stability). */
export function sortPairsVariant(name: string, options: SortOptions = {}): BenchCase {
  return {
    name,
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
        bytes: sortBytes(n, true, options.algorithm),
        run: (rec) =>
          sortPairs(rec, keys, values, { ...options, outputKeys: outKeys, outputValues: outValues }),
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
}

/** The stable order of `keys` by their low `bits` bits (all 32 by default). */
function sortedByLowBits(keys: Uint32Array, bits = 32): Uint32Array {
  if (bits >= 32) return keys.slice().sort();
  if (bits > 16) throw new Error(`bench sort variants use bits <= 16 or 32, got ${bits}`);
  // A stable counting sort on the low bits (the key range of a bench variant is at most 2^16).
  const mask = 2 ** bits - 1;
  const starts = new Uint32Array(mask + 2);
  for (const k of keys) starts[(k & mask) + 1]!++;
  for (let d = 1; d <= mask + 1; d++) starts[d]! += starts[d - 1]!;
  const out = new Uint32Array(keys.length);
  for (const k of keys) out[starts[k & mask]!++] = k;
  return out;
}

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

export const cases: BenchCase[] = [
  sortKeysVariant('sort keys u32'),
  sortPairsVariant('sort pairs u32/u32'),
  sortKeysVariant('sort keys u32 (onesweep)', { algorithm: 'onesweep' }),
  sortKeysVariant('sort keys u32 (reduce-then-scan)', { algorithm: 'reduce-then-scan' }),
];

/** Diagnostic variants (not in the default run): one digit pass, tile shapes, look-back spin budgets. */
export const tuneCases: BenchCase[] = [
  // The first pass ranked with ballots like the others (by default a keys-only u32 sort ranks it unstably).
  sortKeysVariant('sort keys u32 stable first', { tuning: { stableFirstPass: true } }),
  sortKeysVariant('sort keys u32 stable first (onesweep)', {
    algorithm: 'onesweep',
    tuning: { stableFirstPass: true },
  }),
  sortKeysVariant('sort keys u32 stable first (reduce-then-scan)', {
    algorithm: 'reduce-then-scan',
    tuning: { stableFirstPass: true },
  }),
  sortKeysVariant('sort keys u32 bits 8', { bits: 8 }),
  sortKeysVariant('sort keys u32 bits 8 (reduce-then-scan)', { bits: 8, algorithm: 'reduce-then-scan' }),
  sortKeysVariant('sort keys u32 kpt 8', { tuning: { keysPerThread: 8 } }),
  sortKeysVariant('sort keys u32 kpt 12', { tuning: { keysPerThread: 12 } }),
  sortKeysVariant('sort keys u32 kpt 20', { tuning: { keysPerThread: 20 } }),
  sortKeysVariant('sort keys u32 kpt 24', { tuning: { keysPerThread: 24 } }),
  sortKeysVariant('sort keys u32 kpt 24 (onesweep)', {
    algorithm: 'onesweep',
    tuning: { keysPerThread: 24 },
  }),
  sortKeysVariant('sort keys u32 wg 128', { tuning: { workgroupSize: 128 } }),
  sortKeysVariant('sort keys u32 wg 128 kpt 32', { tuning: { workgroupSize: 128, keysPerThread: 32 } }),
  sortKeysVariant('sort keys u32 wg 128 kpt 48', { tuning: { workgroupSize: 128, keysPerThread: 48 } }),
  sortPairsVariant('sort pairs u32/u32 kpt 8', { tuning: { keysPerThread: 8 } }),
  sortPairsVariant('sort pairs u32/u32 kpt 12', { tuning: { keysPerThread: 12 } }),
  sortPairsVariant('sort pairs u32/u32 kpt 24', { tuning: { keysPerThread: 24 } }),
  sortPairsVariant('sort pairs u32/u32 wg 128', { tuning: { workgroupSize: 128 } }),
  sortPairsVariant('sort pairs u32/u32 (onesweep)', { algorithm: 'onesweep' }),
  // Reduce-then-scan downsweep workgroups ranking several tiles in turn, each next tile's keys loaded early.
  sortKeysVariant('sort keys u32 tpw 1', { tuning: { tilesPerWorkgroup: 1 } }),
  sortKeysVariant('sort keys u32 tpw 2', { tuning: { tilesPerWorkgroup: 2 } }),
  sortKeysVariant('sort keys u32 tpw 4', { tuning: { tilesPerWorkgroup: 4 } }),
  sortKeysVariant('sort keys u32 tpw 8', { tuning: { tilesPerWorkgroup: 8 } }),
  sortKeysVariant('sort keys u32 tpw 16', { tuning: { tilesPerWorkgroup: 16 } }),
  sortKeysVariant('sort keys u32 stable first tpw 4', {
    tuning: { stableFirstPass: true, tilesPerWorkgroup: 4 },
  }),
  sortPairsVariant('sort pairs u32/u32 tpw 2', { tuning: { tilesPerWorkgroup: 2 } }),
  // The top digit first into tile-aligned buckets, then the low digits inside them (the default from 2^26
  // keys), against the plain LSD passes (the default below).
  sortKeysVariant('sort keys u32 lsd', { algorithm: 'reduce-then-scan', tuning: { topDigitFirst: false } }),
  sortKeysVariant('sort keys u32 top digit first', {
    algorithm: 'reduce-then-scan',
    tuning: { topDigitFirst: true },
  }),
  sortKeysVariant('sort keys u32 top digit first tpw 8', {
    algorithm: 'reduce-then-scan',
    tuning: { topDigitFirst: true, tilesPerWorkgroup: 8 },
  }),
  sortKeysVariant('sort keys u32 top digit first chunk 16', {
    algorithm: 'reduce-then-scan',
    tuning: { topDigitFirst: true, tilesPerChunk: 16 },
  }),
  // Reduce-then-scan: the upsweep's chunk lengths (2^27 keys default to 8 tiles a chunk).
  sortKeysVariant('sort keys u32 chunk 1', { tuning: { tilesPerChunk: 1 } }),
  sortKeysVariant('sort keys u32 chunk 4', { tuning: { tilesPerChunk: 4 } }),
  sortKeysVariant('sort keys u32 chunk 16', { tuning: { tilesPerChunk: 16 } }),
  sortKeysVariant('sort keys u32 chunk 32', { tuning: { tilesPerChunk: 32 } }),
  sortPairsVariant('sort pairs u32/u32 chunk 1', { tuning: { tilesPerChunk: 1 } }),
  sortKeysVariant('sort keys u32 spin 8', { tuning: { maxSpin: 8 } }),
  sortKeysVariant('sort keys u32 spin 4096', { tuning: { maxSpin: 4096 } }),
];
