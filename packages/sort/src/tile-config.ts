import { DeviceLimitError, InputError, type WeftDevice, WeftError } from '@weft/gpu';
import { type RadixTileConfig, THREADS } from './radix-wgsl.ts';

/** Keys per thread tried in order when the caller does not choose: 16 (4096-key tiles) fits 32 KB. */
const PREFERRED_KEYS_PER_THREAD = [16, 12, 8];

function sharedBytes(keysPerThread: number, maxSubgroups: number): number {
  const sharedWords = Math.max(THREADS * keysPerThread, maxSubgroups * 128);
  // shared_words + local_start, global_base, fallback_hist + sg_totals + flags and counters (+ slack)
  return 4 * sharedWords + 12 * THREADS + 8 * maxSubgroups + 96;
}

/**
 * Tile shape for this device: the largest tile whose workgroup memory fits for the adapter's smallest
 * subgroups (each subgroup keeps its own 256-digit histogram, so small subgroups need more memory).
 */
export function radixTileConfig(device: WeftDevice, keysPerThread?: number): RadixTileConfig {
  if (!device.hasSubgroups) {
    throw new WeftError(
      "@weft/sort needs the WebGPU 'subgroups' feature, which this adapter does not offer; use an adapter with subgroups",
    );
  }
  if (
    keysPerThread !== undefined &&
    (!Number.isInteger(keysPerThread) || keysPerThread < 1 || keysPerThread > 64)
  ) {
    throw new InputError(`keysPerThread must be an integer in [1, 64], got ${keysPerThread}`, 'sort tuning');
  }
  const minSubgroup = device.adapter.subgroupMinSize ?? 4;
  const maxSubgroups = Math.max(1, Math.floor(THREADS / minSubgroup));
  const limit = device.limits.maxComputeWorkgroupStorageSize;
  const candidates = keysPerThread === undefined ? PREFERRED_KEYS_PER_THREAD : [keysPerThread];
  for (const kpt of candidates) {
    if (sharedBytes(kpt, maxSubgroups) <= limit) {
      return { keysPerThread: kpt, maxSubgroups, sharedWords: Math.max(THREADS * kpt, maxSubgroups * 128) };
    }
  }
  const smallest = candidates[candidates.length - 1]!;
  throw new DeviceLimitError(
    `radix sort workgroup memory (${smallest} keys per thread, subgroups of ${minSubgroup} lanes)`,
    sharedBytes(smallest, maxSubgroups),
    'maxComputeWorkgroupStorageSize',
    limit,
  );
}
