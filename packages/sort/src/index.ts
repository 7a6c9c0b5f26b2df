/**
 * Radix sort on WebGPU (keys and key-value pairs; u32, i32 and f32) and sorted search.
 *
 * @module @weft/sort
 */
export { type KeyOrder, orderKeyOf } from './order-key.ts';
export {
  AUTO_REDUCE_THEN_SCAN_FROM,
  AUTO_TOP_DIGIT_FIRST_FROM,
  type SortKeysOptions,
  type SortOptions,
  type SortPairsOptions,
  sortAlgorithmFor,
  sortKeys,
  sortPairs,
  topDigitFirstFor,
} from './radix-sort.ts';
export type { RadixTileConfig } from './radix-wgsl.ts';
export type { SortTuning } from './sort-passes.ts';
export {
  type IntersectCountOptions,
  intersectCount,
  type SortedSearchOptions,
  sortedSearch,
} from './sorted-search.ts';
export { radixTileConfig, type TileTuning } from './tile-config.ts';
