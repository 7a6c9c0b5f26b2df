/**
 * Dynamic graphs on WebGPU: per-vertex slab hash tables with batched edge and vertex insertion and deletion,
 * and algorithms that update incrementally.
 *
 * @module @weft/dynamic
 */
export {
  type ComponentsUpdateOptions,
  DynamicComponents,
  type DynamicComponentsOptions,
  dynamicConnectedComponents,
} from './components.ts';
export {
  type BatchOptions,
  type BulkBuild,
  DynamicGraph,
  type DynamicGraphOptions,
  type EdgeQueryResult,
  hostValues,
  type IdArray,
  type Probing,
  type RehashOptions,
  type RehashResult,
  type ValueArray,
  type ValueType,
} from './dynamic-graph.ts';
export type { InsertionOrder } from './edge-kernels.ts';
export type { TableSnapshot } from './export.ts';
export { forEachEdge } from './for-each-edge.ts';
export { EMPTY, KEY_SLOTS, SLAB_WORDS, TOMBSTONE } from './layout.ts';
export { NOT_FOUND } from './neighbors.ts';
export {
  DynamicPageRank,
  type DynamicPageRankOptions,
  type DynamicPageRankRun,
  dynamicPageRank,
} from './pagerank.ts';
export { HostDynamicGraph } from './reference.ts';
export { DynamicSssp, type DynamicSsspOptions, type DynamicSsspRun, dynamicSssp } from './sssp.ts';
export { dynamicTriangleCount } from './triangle-count.ts';
