export { type BfsOptions, BfsProblem, type BfsResult, bfs } from './bfs.ts';
export {
  bfsReference,
  componentsReference,
  edgesFrom,
  type PageRankReferenceOptions,
  pageRankReference,
  ssspReference,
} from './reference.ts';
export { verifyBfs, verifyComponents, verifyPageRank, verifySssp } from './verify.ts';
