export { type BfsOptions, BfsProblem, type BfsResult, bfs } from './bfs.ts';
export { ComponentsProblem, type ComponentsResult, connectedComponents } from './components.ts';
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
export { verifyBfs, verifyComponents, verifyPageRank, verifySssp } from './verify.ts';
