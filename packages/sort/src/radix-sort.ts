import {
  type Count,
  checkOptionsObject,
  type DeviceArray,
  DeviceLimitError,
  InputError,
  isGpuCount,
  onTargetReusingScratch,
  type Recorder,
  type Target,
} from '@weft/gpu';
import { bucketPadding, prepareBucketed } from './bucketed-passes.ts';
import { MAX_ONESWEEP_ITEMS } from './onesweep-wgsl.ts';
import type { KeyOrder } from './order-key.ts';
import { COPY_PREFIX_WGSL, RADIX_BITS, THREADS, tileSize, unorderedFirstPass } from './radix-wgsl.ts';
import {
  checkSortTuning,
  type PassArrays,
  type PassContext,
  prepareOneSweep,
  prepareReduceThenScan,
  type SortTuning,
} from './sort-passes.ts';
import { radixTileConfig } from './tile-config.ts';

/** Keys from which `algorithm: 'auto'` takes reduce-then-scan (docs/decisions/sort-algorithm.md). */
export const AUTO_REDUCE_THEN_SCAN_FROM = 2 ** 24;

/** The algorithm a sort of `keys` keys runs with `algorithm: asked` (resolves `'auto'`). */
export function sortAlgorithmFor(
  keys: number,
  asked: SortOptions['algorithm'] = 'auto',
): 'onesweep' | 'reduce-then-scan' {
  if (asked !== 'auto') return asked;
  return keys < AUTO_REDUCE_THEN_SCAN_FROM ? 'onesweep' : 'reduce-then-scan';
}

/**
 * Keys from which a keys-only u32 / i32 sort over 32 bits runs top digit first unless `tuning.topDigitFirst`
 * says otherwise: below it the padding and bucket kernels cost more than the saved ballots
 * (docs/decisions/sort-algorithm.md).
 */
export const AUTO_TOP_DIGIT_FIRST_FROM = 2 ** 26;

/**
 * Whether a sort runs top digit first (`prepareBucketed`): keys only, u32 / i32 over 32 bits, reduce-then-scan,
 * padded arrays (count + 256 tiles) within a storage binding; then as `tuning.topDigitFirst` says, or by
 * default from {@link AUTO_TOP_DIGIT_FIRST_FROM} keys unless `tuning.stableFirstPass` asks for the LSD passes.
 */
export function topDigitFirstFor(
  keys: number,
  algorithm: 'onesweep' | 'reduce-then-scan',
  order: KeyOrder,
  pairs: boolean,
  bits: number,
  paddedBytes: number,
  maxBindingBytes: number,
  tuning: SortTuning,
): boolean {
  if (algorithm !== 'reduce-then-scan' || !unorderedFirstPass(order, pairs, bits)) return false;
  if (paddedBytes > maxBindingBytes) return false;
  return tuning.topDigitFirst ?? (!tuning.stableFirstPass && keys >= AUTO_TOP_DIGIT_FIRST_FROM);
}

export interface SortOptions {
  /** Sort only the first `count` keys (default: the whole array); may live on the GPU. */
  count?: Count;
  /**
   * Sort by the low `bits` bits of the key only (1..32, default 32): ceil(bits / 8) passes instead of 4
   * (and fewer ballots in a last partial digit). For keys known to be below 2^bits (vertex ids); higher
   * bits are ignored (carried along). u32 and i32 keys (i32 compare as their low bits, unsigned).
   */
  bits?: number;
  /** Largest key first (default false). Still stable: equal keys keep their input order. */
  descending?: boolean;
  /**
   * `onesweep`: one histogram read, then one read + one write of the keys per pass, tiles chained by
   * decoupled look-back with fallback. `reduce-then-scan`: an extra read of the keys per pass, no
   * inter-workgroup communication. `auto` (default): OneSweep below {@link AUTO_REDUCE_THEN_SCAN_FROM}
   * keys, reduce-then-scan from there: on large inputs its extra read costs less than the look-back's
   * latency, on small ones OneSweep's fewer kernels win (docs/decisions/sort-algorithm.md).
   */
  algorithm?: 'auto' | 'onesweep' | 'reduce-then-scan';
  /** Benchmark and test knobs. */
  tuning?: SortTuning;
}

export interface SortKeysOptions extends SortOptions {
  /** Write the sorted keys here (at least `count` long) and leave `keys` untouched; default: in place. */
  output?: DeviceArray;
}

export interface SortPairsOptions extends SortOptions {
  /** Write the sorted keys here; give `outputValues` too. Default: in place. */
  outputKeys?: DeviceArray;
  /** Write the values, permuted like the keys, here; give `outputKeys` too. */
  outputValues?: DeviceArray;
}

/**
 * Sorts `keys` (u32, i32 or f32) ascending, stably, with an LSD radix sort over 8-bit digits.
 * Order: i32 by value; f32 with -Inf < negatives < -0 < +0 < positives < +Inf < NaN (every NaN last).
 *
 * In place by default: the passes ping-pong between `keys` and a scratch array of the same length taken from
 * the device's pool until the submit completes (with an odd number of passes, 1 or 3, i.e. `bits` <= 8 or
 * 17..24, the result is copied back). Scratch per call, all from the pool: `count` u32 for keys (+ `count`
 * for values) when in place or with more than one pass; OneSweep: passes * 256 * tiles u32 of look-back
 * status (about count / 16 words per pass; tile = 4096 keys) + 1028 u32; reduce-then-scan: 256 * (chunks + 1)
 * u32, plus 256 * tiles u32 when a chunk has more than one tile (up to 8; by default from 4096 tiles on).
 */
export async function sortKeys(target: Target, keys: DeviceArray, options: SortKeysOptions = {}) {
  checkOptionsObject('sortKeys', options);
  await radixSort(target, 'sortKeys', keys, undefined, options.output, undefined, options);
}

/**
 * Sorts `keys` and permutes `values` (any 4-byte element type: ids, weights) the same way. Stable: values
 * of equal keys keep their input order, so sorting by (source, target) is two calls, target first.
 */
export async function sortPairs(
  target: Target,
  keys: DeviceArray,
  values: DeviceArray,
  options: SortPairsOptions = {},
) {
  checkOptionsObject('sortPairs', options);
  if ((options.outputKeys === undefined) !== (options.outputValues === undefined)) {
    throw new InputError('give both outputKeys and outputValues, or neither (in place)', 'sortPairs options');
  }
  await radixSort(target, 'sortPairs', keys, values, options.outputKeys, options.outputValues, options);
}

function checkArray(a: DeviceArray, what: string, where: string, min: number) {
  if (a.destroyed) throw new InputError(`${what} '${a.label}' was destroyed`, where);
  if (a.length < min) {
    throw new InputError(`${what} '${a.label}' has ${a.length} elements, needs at least ${min}`, where);
  }
}

async function radixSort(
  target: Target,
  where: string,
  keys: DeviceArray,
  values: DeviceArray | undefined,
  outKeys: DeviceArray | undefined,
  outValues: DeviceArray | undefined,
  options: SortOptions,
) {
  const count = options.count ?? keys.length;
  const bits = options.bits ?? 32;
  const descending = options.descending ?? false;
  if (!Number.isInteger(bits) || bits < 1 || bits > 32) {
    throw new InputError(`bits must be an integer in [1, 32], got ${bits}`, `${where} options.bits`);
  }
  if (bits < 32 && keys.type === 'f32') {
    throw new InputError('bits applies to u32 and i32 keys, not f32', `${where} options.bits`);
  }
  const capacity = isGpuCount(count) ? keys.length : count;
  if (!isGpuCount(count) && (!Number.isInteger(count) || count < 0 || count > keys.length)) {
    throw new InputError(
      `count must be an integer in [0, ${keys.length}], got ${count}`,
      `${where} options.count`,
    );
  }
  if (isGpuCount(count) && (count.index < 0 || count.index >= count.array.length)) {
    throw new InputError(
      `count index ${count.index} is outside '${count.array.label}'`,
      `${where} options.count`,
    );
  }
  checkArray(keys, 'keys', where, capacity);
  if (values) checkArray(values, 'values', where, capacity);
  if (outKeys) {
    checkArray(outKeys, 'output keys', where, capacity);
    if (outKeys.type !== keys.type) {
      throw new InputError(`output keys are ${outKeys.type}, keys are ${keys.type}`, where);
    }
  }
  if (outValues) checkArray(outValues, 'output values', where, capacity);
  if (outKeys && outKeys !== keys && (outKeys === values || outKeys === outValues)) {
    throw new InputError('output keys must not alias values or output values', where);
  }
  if (values && (values === keys || values.buffer === keys.buffer)) {
    throw new InputError('values must be a different array from keys', where);
  }
  if (isGpuCount(count) && [keys, values, outKeys, outValues].includes(count.array)) {
    throw new InputError('the GPU count must live in its own array, not in a sorted one', where);
  }
  if (values && ((outKeys ?? keys) === keys) !== ((outValues ?? values) === values)) {
    throw new InputError('sort keys and values both in place or both into outputs', where);
  }

  checkSortTuning(options.tuning ?? {});

  const asked = options.algorithm ?? 'auto';
  if (asked !== 'auto' && asked !== 'onesweep' && asked !== 'reduce-then-scan') {
    throw new InputError(
      `algorithm must be 'auto', 'onesweep' or 'reduce-then-scan', got '${String(asked)}'`,
      `${where} options.algorithm`,
    );
  }
  const algorithm = sortAlgorithmFor(capacity, asked);
  if (algorithm === 'onesweep' && capacity > MAX_ONESWEEP_ITEMS) {
    throw new DeviceLimitError(
      `${where} of ${capacity} keys`,
      capacity,
      'OneSweep status word (30-bit counts)',
      MAX_ONESWEEP_ITEMS,
      "sort fewer keys or use algorithm: 'reduce-then-scan'",
    );
  }
  if (capacity === 0) return;

  await onTargetReusingScratch(target, where, async (rec) => {
    const config = radixTileConfig(rec.device, options.tuning);
    const passes = Math.ceil(bits / RADIX_BITS);
    const countArray = isGpuCount(count) ? count.array : rec.scratch('u32', 1, 'sort count (unused)');
    const order = { type: keys.type, descending };
    const context: PassContext = {
      rec,
      config,
      passes,
      pairs: values !== undefined,
      numTiles: Math.ceil(capacity / tileSize(config)),
      countArray,
      params: {
        n: capacity,
        gpu_count: isGpuCount(count) ? 1 : 0,
        count_index: isGpuCount(count) ? count.index : 0,
        sort_bits: bits,
      },
      order,
      tuning: options.tuning ?? {},
    };
    const padded = 4 * (capacity + bucketPadding(tileSize(config)));
    const maxBinding = rec.device.limits.maxStorageBufferBindingSize;
    if (
      topDigitFirstFor(
        capacity,
        algorithm,
        order,
        values !== undefined,
        bits,
        padded,
        maxBinding,
        context.tuning,
      )
    ) {
      const recordSort = await prepareBucketed(context);
      recordSort(keys, outKeys ?? keys);
      return;
    }
    const recordPass =
      algorithm === 'onesweep' ? await prepareOneSweep(context, keys) : await prepareReduceThenScan(context);

    const finalKeys = outKeys ?? keys;
    const finalValues = outValues ?? values;
    const inPlace = finalKeys === keys;
    const needsScratch = passes > 1 || inPlace;
    const scratchKeys = needsScratch ? rec.scratch('u32', capacity, 'sort keys scratch') : undefined;
    const scratchValues =
      needsScratch && values ? rec.scratch('u32', capacity, 'sort values scratch') : undefined;

    // Pass p writes to the final array when an even number of passes remains after it, so the last pass
    // lands there; in place, the first pass must not write the array it reads, so it goes to scratch.
    let src: PassArrays = { keys, values };
    for (let p = 0; p < passes; p++) {
      const toFinal = inPlace ? p % 2 === 1 : (passes - 1 - p) % 2 === 0;
      const dst: PassArrays = {
        keys: toFinal ? finalKeys : scratchKeys!,
        values: values ? (toFinal ? finalValues! : scratchValues!) : undefined,
      };
      recordPass(p, src, dst);
      src = dst;
    }
    if (src.keys !== finalKeys) {
      await copyPrefix(rec, src.keys, finalKeys, context);
      if (values) await copyPrefix(rec, src.values!, finalValues!, context);
    }
  });
}

async function copyPrefix(rec: Recorder, src: DeviceArray, dst: DeviceArray, context: PassContext) {
  const kernel = await rec.device.kernel({
    label: 'sort copy prefix',
    bindings: {
      src: { type: 'array<u32>', access: 'read' },
      dst: { type: 'array<u32>', access: 'read_write' },
      count: { type: 'array<u32>', access: 'read' },
    },
    params: { n: 'u32', gpu_count: 'u32', count_index: 'u32' },
    code: COPY_PREFIX_WGSL,
  });
  const { n, gpu_count, count_index } = context.params;
  rec.dispatch(kernel, {
    bindings: { src, dst, count: context.countArray },
    params: { n: n!, gpu_count: gpu_count!, count_index: count_index! },
    workgroups: Math.ceil(n! / THREADS),
  });
}
