import { checkOptionsObject, DeviceLimitError, InputError, type WeftDevice } from '@weft/gpu';
import { histWords, RADIX, type RadixTileConfig } from './radix-wgsl.ts';
import { VIRTUAL_SUBGROUP, virtualSubgroupBytes } from './virtual-subgroups.ts';

/**
 * Keys per thread tried in order when the caller does not choose: 16 (4096-key tiles) fits 32 KB beside
 * the histograms of 32-lane subgroups; 8-lane subgroups (lavapipe) have four times the histograms and take 12.
 */
const PREFERRED_KEYS_PER_THREAD = [16, 12, 8];
/**
 * Without subgroups: 8 keys per thread (2048-key tiles), else 4. Mesa's software drivers compile the
 * unrolled per-key code of larger tiles several times slower.
 */
const PREFERRED_KEYS_PER_THREAD_WITHOUT_SUBGROUPS = [8, 4];
/**
 * Workgroup sizes tried in order: 256 wherever it fits. Each subgroup keeps its own 256-digit histogram
 * (128 words), so 256 threads in 4-lane subgroups (SwiftShader) need 64 x 512 bytes, all of a 32 KB limit;
 * 128 threads halve that. Every size is a multiple of 64 so a thread owns a whole number of digits.
 */
const WORKGROUP_SIZES = [256, 128, 64];

export interface TileTuning {
  keysPerThread?: number;
  workgroupSize?: number;
  /** Rank with 128-lane (vec4) ballot masks even where subgroups have at most 32 lanes (tests). */
  wideMasks?: boolean;
}

function sharedWords(threads: number, keysPerThread: number): number {
  return threads * keysPerThread;
}

function sharedBytes(
  threads: number,
  keysPerThread: number,
  maxSubgroups: number,
  subgroups: boolean,
): number {
  // staged + hist + local_start, global_base, fallback_hist + sg_totals + flags and counters (+ slack)
  return (
    4 * (sharedWords(threads, keysPerThread) + (subgroups ? histWords(maxSubgroups) : RADIX)) +
    12 * RADIX +
    8 * maxSubgroups +
    96 +
    (subgroups ? 0 : virtualSubgroupBytes(threads))
  );
}

/**
 * Tile shape for this device: the largest workgroup, then the largest tile, whose workgroup memory fits
 * for the adapter's smallest subgroups (small subgroups mean many histograms, so more memory).
 */
export function radixTileConfig(device: WeftDevice, tuning: TileTuning = {}): RadixTileConfig {
  checkOptionsObject('radixTileConfig', tuning);
  const subgroups = device.hasSubgroups;
  const { keysPerThread, workgroupSize } = tuning;
  // One-word ballots need every lane below 32 (virtual subgroups have 32); an adapter that does not say gets
  // the 128-lane masks.
  const maskWords: 1 | 4 =
    !subgroups ||
    (!tuning.wideMasks &&
      device.adapter.subgroupMaxSize !== undefined &&
      device.adapter.subgroupMaxSize <= 32)
      ? 1
      : 4;
  if (
    keysPerThread !== undefined &&
    (!Number.isInteger(keysPerThread) || keysPerThread < 1 || keysPerThread > 64)
  ) {
    throw new InputError(`keysPerThread must be an integer in [1, 64], got ${keysPerThread}`, 'sort tuning');
  }
  // Without subgroups the tile kernels run on virtual subgroups of a fixed size.
  const minSubgroup = subgroups ? (device.adapter.subgroupMinSize ?? 4) : VIRTUAL_SUBGROUP;
  // Subgroups must be full: a workgroup smaller than the largest subgroup would leave lanes missing.
  const maxSubgroupSize = subgroups ? (device.adapter.subgroupMaxSize ?? 0) : VIRTUAL_SUBGROUP;
  if (workgroupSize !== undefined) {
    if (!WORKGROUP_SIZES.includes(workgroupSize)) {
      throw new InputError(
        `workgroupSize must be one of ${WORKGROUP_SIZES.join(', ')}, got ${workgroupSize}`,
        'sort tuning',
      );
    }
    if (workgroupSize < maxSubgroupSize) {
      throw new InputError(
        `workgroupSize ${workgroupSize} is below this adapter's subgroup size ${maxSubgroupSize}`,
        'sort tuning',
      );
    }
  }
  const sizes =
    workgroupSize !== undefined ? [workgroupSize] : WORKGROUP_SIZES.filter((t) => t >= maxSubgroupSize);
  const limit = device.limits.maxComputeWorkgroupStorageSize;
  const candidates =
    keysPerThread !== undefined
      ? [keysPerThread]
      : subgroups
        ? PREFERRED_KEYS_PER_THREAD
        : PREFERRED_KEYS_PER_THREAD_WITHOUT_SUBGROUPS;
  let smallest = { threads: 0, kpt: 0, maxSubgroups: 0 };
  for (const threads of sizes) {
    const maxSubgroups = Math.max(1, Math.floor(threads / minSubgroup));
    for (const kpt of candidates) {
      smallest = { threads, kpt, maxSubgroups };
      if (sharedBytes(threads, kpt, maxSubgroups, subgroups) <= limit) {
        return {
          threads,
          keysPerThread: kpt,
          maxSubgroups,
          sharedWords: sharedWords(threads, kpt),
          maskWords,
          subgroups,
        };
      }
    }
  }
  throw new DeviceLimitError(
    `radix sort workgroup memory (${smallest.threads} threads, ${smallest.kpt} keys per thread, ${subgroups ? '' : 'virtual '}subgroups of ${minSubgroup} lanes)`,
    sharedBytes(smallest.threads, smallest.kpt, smallest.maxSubgroups, subgroups),
    'maxComputeWorkgroupStorageSize',
    limit,
  );
}
