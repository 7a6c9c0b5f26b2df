export type { IterationTrace } from '@weft/operators';
export { type BfsOptions, BfsProblem, type BfsResult, bfs } from './bfs.ts';
export { ColoringProblem, type ColoringResult, graphColoring } from './coloring.ts';
export {
  type LoadBalance,
  type LoadBalanceOption,
  maxOutDegree,
  THREAD_MAPPED_MAX_DEGREE,
  type TraceOption,
} from './common.ts';
export {
  type ComponentsAlgorithm,
  type ComponentsOptions,
  ComponentsProblem,
  type ComponentsResult,
  connectedComponents,
} from './components.ts';
export { MisProblem, type MisResult, maximalIndependentSet } from './mis.ts';
export { type PageRankOptions, PageRankProblem, type PageRankResult, pageRank } from './pagerank.ts';
export {
  bfsReference,
  componentsReference,
  edgesFrom,
  type PageRankReferenceOptions,
  pageRankReference,
  ssspReference,
  trianglesReference,
} from './reference.ts';
export { SsspProblem, type SsspResult, sssp } from './sssp.ts';
export { TrianglesProblem, type TrianglesResult, triangleCount } from './triangles.ts';
export {
  verifyBfs,
  verifyColoring,
  verifyComponents,
  verifyIndependentSet,
  verifyPageRank,
  verifySssp,
} from './verify.ts';
