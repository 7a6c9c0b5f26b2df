/**
 * Graph operators on WebGPU in Gunrock's data-centric model: advance (push and pull), filter, neighborhood
 * reduction, compute, segmented intersection and the enactor that runs them to convergence.
 *
 * @module @weft/operators
 */
export {
  type AdvanceOptions,
  type AdvancePullOptions,
  AdvanceWorkspace,
  advancePull,
  advancePush,
  neighborFunctor,
} from './advance.ts';
export {
  advanceDirectionOptimized,
  type DirectionFunctors,
  type DirectionOptions,
} from './advance-optimized.ts';
export { Cascade, type CascadeOptions, queueDrainWgsl } from './cascade.ts';
export { type ComputeOptions, compute } from './compute.ts';
export { computeReduce } from './compute-reduce.ts';
export { DisjointSets, type DisjointSetsOptions, UNION_MAX_RETRIES } from './disjoint-sets.ts';
export {
  type EnactorLoop,
  type EnactorOptions,
  type EnactorProgress,
  type EnactorResult,
  enact,
} from './enactor.ts';
export { type FilterOptions, filter, splitFrontier } from './filter.ts';
export {
  GasLoop,
  type GasOptions,
  type GasProgram,
  type GasResult,
  type GatherEdges,
  gas,
} from './gas.ts';
export { type GatherOrder, gatherOrder, hasGatherOrder } from './gather-order.ts';
export { type IntersectionOptions, intersectionCount } from './intersection.ts';
export {
  checkLoadBalance,
  type LoadBalance,
  resolveLoadBalance,
  THREAD_MAPPED_MAX_DEGREE,
} from './load-balance.ts';
export { type NeighborhoodReduceOptions, neighborhoodReduce } from './neighborhood.ts';
export {
  csrNeighbors,
  isNeighborGraph,
  type NeighborBlocks,
  type NeighborGraph,
  type NeighborParts,
  type NeighborWeights,
} from './neighbors.ts';
export {
  type GatheredNeighbors,
  gatherNeighbors,
  prepareNeighborParts,
  releaseNeighborParts,
} from './part-layout.ts';
export {
  advanceSmallFrontier,
  MAX_LEVELS_PER_DISPATCH,
  SMALL_FRONTIER_EXIT,
  SMALL_FRONTIER_MIN_STORAGE_BUFFERS,
  type SmallFrontierOptions,
  SmallFrontierState,
  type SmallFrontierStateOptions,
  smallFrontierCapacity,
  smallFrontierFits,
  smallFrontierWorkgroupSize,
} from './small-frontier.ts';
export { IterationLog, type IterationTrace } from './trace.ts';
