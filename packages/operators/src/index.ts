export {
  type AdvanceOptions,
  type AdvancePullOptions,
  AdvanceWorkspace,
  advancePull,
  advancePush,
} from './advance.ts';
export {
  advanceDirectionOptimized,
  type DirectionFunctors,
  type DirectionOptions,
} from './advance-optimized.ts';
export { compute } from './compute.ts';
export {
  type EnactorLoop,
  type EnactorOptions,
  type EnactorProgress,
  type EnactorResult,
  enact,
} from './enactor.ts';
export { type FilterOptions, filter, splitFrontier } from './filter.ts';
export { type IntersectionOptions, intersectionCount } from './intersection.ts';
export { type NeighborhoodReduceOptions, neighborhoodReduce } from './neighborhood.ts';
export { IterationLog, type IterationTrace } from './trace.ts';
