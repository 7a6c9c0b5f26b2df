export { orderKeyOf } from './order-key.ts';
export {
  type SortKeysOptions,
  type SortOptions,
  type SortPairsOptions,
  sortKeys,
  sortPairs,
} from './radix-sort.ts';
export type { SortTuning } from './sort-passes.ts';
export {
  type IntersectCountOptions,
  intersectCount,
  type SortedSearchOptions,
  sortedSearch,
} from './sorted-search.ts';
export { radixTileConfig } from './tile-config.ts';
