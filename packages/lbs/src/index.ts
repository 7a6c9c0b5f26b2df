export { intervalExpand, loadBalancedSearch } from './load-balanced-search.ts';
export { ITEMS_PER_THREAD, TILE, WORKGROUP } from './merge-path.ts';
export { type TransformLbsOptions, transformLbs } from './transform-lbs.ts';
