/**
 * graphology interop: graphology graphs to GPU graphs and back, and graphology-shaped algorithms that run on
 * the GPU.
 *
 * @module @weft/graphology
 */
export {
  type BetweennessCentralityAssignOptions,
  type BetweennessCentralityOptions,
  betweennessCentrality,
  connectedComponents,
  type DeviceOption,
  type DijkstraOptions,
  dijkstra,
  dijkstraSingleSourceLength,
  type PagerankAssignOptions,
  type PagerankOptions,
  pagerank,
  singleSourceLength,
} from './algorithms.ts';
export {
  type EdgeWeightGetter,
  type FromGraphologyOptions,
  fromGraphology,
  type GraphologyCsr,
  type GraphologyDeviceGraph,
  type ToDeviceOptions,
  toDevice,
} from './from-graphology.ts';
export { assignAttributes, toKeyed } from './results.ts';
