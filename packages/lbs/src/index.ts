export { intervalExpand, loadBalancedSearch } from './load-balanced-search.ts';
export { type TransformLbsOptions, transformLbs } from './transform-lbs.ts';
