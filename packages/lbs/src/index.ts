export { intervalExpand, loadBalancedSearch } from './load-balanced-search.ts';
// Merge-path building blocks, for primitives that partition work the same way (@weft/segreduce).
export {
  ASSIGN_SEGMENTS_WGSL,
  type CountSource,
  checkSegments,
  countSource,
  ITEMS_PER_THREAD,
  type MergePathPlan,
  mergePathSearch,
  planMergePath,
  TILE,
  tileRangeWgsl,
  WORKGROUP,
} from './merge-path.ts';
export { type TransformLbsOptions, transformLbs } from './transform-lbs.ts';
