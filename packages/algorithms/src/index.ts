/**
 * Graph algorithms on WebGPU (BFS, SSSP, PageRank, connected components and more), each with a plain
 * TypeScript reference and, where one makes sense, a verifier.
 *
 * @module @weft/algorithms
 */
export type { IterationTrace, LoadBalance } from '@weft/operators';
export { THREAD_MAPPED_MAX_DEGREE } from '@weft/operators';
export {
  type BetweennessCounts,
  type BetweennessForward,
  type BetweennessOptions,
  BetweennessProblem,
  type BetweennessResult,
  betweennessCentrality,
} from './betweenness.ts';
export { type BetweennessSampling, betweennessReference } from './betweenness-reference.ts';
export {
  type BfsOptions,
  BfsProblem,
  type BfsProblemOptions,
  type BfsResult,
  bfs,
  type SmallFrontierTuning,
} from './bfs/bfs.ts';
export { bfsReference } from './bfs/reference.ts';
export {
  eigenvectorCentrality,
  eigenvectorCentralityProblem,
  type HitsOptions,
  hits,
  hitsProblem,
  type KatzCentralityOptions,
  katzCentrality,
  katzCentralityProblem,
  type PersonalizedPageRankOptions,
  type PowerIterationProblem,
  type PowerIterationRunOptions,
  personalizedPageRank,
  personalizedPageRankProblem,
  type WeightedCentralityOptions,
} from './centrality.ts';
export {
  eigenvectorCentralityReference,
  type HitsReferenceOptions,
  hitsReference,
  type KatzReferenceOptions,
  katzCentralityReference,
  type Personalization,
  type PersonalizedPageRankReferenceOptions,
  type PowerIterationOptions,
  personalizedPageRankReference,
  type WeightedReferenceOptions,
} from './centrality-reference.ts';
export { ColoringProblem, type ColoringResult, graphColoring } from './coloring.ts';
export type { LoadBalanceOption, Problem, RunOptions, TraceOption } from './common.ts';
export { modularity } from './community-gpu.ts';
export {
  type LabelPropagationOptions,
  type LabelPropagationResult,
  type LouvainOptions,
  type LouvainResult,
  labelPropagationReference,
  louvainReference,
  type ModularityOptions,
  modularityReference,
} from './community-reference.ts';
export {
  type ComponentsAlgorithm,
  type ComponentsOptions,
  ComponentsProblem,
  type ComponentsProblemOptions,
  type ComponentsResult,
  connectedComponents,
} from './components.ts';
export { componentsReference } from './components-reference.ts';
export {
  type CoreNumberOptions,
  CoreNumberProblem,
  type CoreNumberResult,
  coreNumber,
  LocalCoreNumberProblem,
} from './kcore.ts';
export { coreNumberReference } from './kcore-reference.ts';
export { labelPropagation } from './label-propagation.ts';
export { leiden } from './leiden.ts';
export { type LeidenOptions, type LeidenResult, leidenReference } from './leiden-reference.ts';
export { louvain } from './louvain.ts';
export { MisProblem, type MisResult, maximalIndependentSet } from './mis.ts';
export { minimumSpanningForest, type SpanningForestResult } from './mst.ts';
export { mstReference } from './mst-reference.ts';
export {
  GATHER_ORDER_MIN_ARCS,
  type PageRankOptions,
  PageRankProblem,
  type PageRankResult,
  pageRank,
  usesGatherOrder,
} from './pagerank.ts';
export { type PageRankReferenceOptions, pageRankReference } from './pagerank-reference.ts';
export {
  bfsPartitioned,
  PartitionedBfs,
  type PartitionedBfsOptions,
  type PartitionedBfsResult,
} from './partitioned.ts';
export {
  connectedComponentsPartitioned,
  type PartitionedComponentsOptions,
  type PartitionedComponentsResult,
} from './partitioned-components.ts';
export type { MinExchangeForm, PartitionedKernelTime, PartitionedTiming } from './partitioned-exchange.ts';
export {
  type PartitionedPageRankOptions,
  type PartitionedPageRankResult,
  PIPELINE_BYTES,
  pageRankPartitioned,
} from './partitioned-pagerank.ts';
export {
  type PartitionedSsspOptions,
  type PartitionedSsspResult,
  ssspPartitioned,
} from './partitioned-sssp.ts';
export { type SccOptions, type SccResult, stronglyConnectedComponents } from './scc.ts';
export { sccReference } from './scc-reference.ts';
export { jaccard, jaccardAll, overlap } from './similarity.ts';
export {
  type JaccardAllOptions,
  jaccardAllReference,
  jaccardReference,
  overlapReference,
  type SimilarityResult,
  type VertexPairs,
} from './similarity-reference.ts';
export { SsspBlocks, SsspBlocksProblem, type SsspBlocksTuning } from './sssp/blocks.ts';
export type { BlockKernelShape } from './sssp/blocks-kernel.ts';
export { type DistanceDecode, readDistances } from './sssp/encode.ts';
export type { SsspEngineTuning } from './sssp/near-far-engine.ts';
export { ssspReference } from './sssp/reference.ts';
export {
  resolveSsspOptions,
  type SsspOptions,
  SsspProblem,
  type SsspProblemOptions,
  type SsspResult,
  sssp,
  ssspDelta,
} from './sssp/sssp.ts';
export { TrianglesProblem, type TrianglesResult, triangleCount } from './triangles.ts';
export { trianglesReference } from './triangles-reference.ts';
export {
  edgesFrom,
  verifyBetweenness,
  verifyBfs,
  verifyColoring,
  verifyComponents,
  verifyCoreNumbers,
  verifyIndependentSet,
  verifyPageRank,
  verifyScc,
  verifySpanningForest,
  verifySssp,
} from './verify.ts';
