/**
 * Load-balanced search on WebGPU: `transformLbs` calls a functor per work item with its index, segment and
 * rank, merge-path balanced.
 *
 * @module @weft/lbs
 */
export { intervalExpand, loadBalancedSearch } from './load-balanced-search.ts';
export { type TransformLbsOptions, transformLbs } from './transform-lbs.ts';
