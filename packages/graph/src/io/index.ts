/**
 * Streaming parsers (Matrix Market, edge lists, DIMACS), text writers, the binary CSR format and byte sources;
 * they run in Node and in browsers (`@weft/graph/node` opens files by path).
 *
 * @module @weft/graph/io
 */
export {
  BINARY_CSR_HEADER_BYTES,
  BINARY_CSR_VERSION,
  type BinaryCsrHeader,
  type BinaryCsrOptions,
  binaryCsrHeader,
  readBinaryCsr,
  writeBinaryCsr,
} from './binary-csr.ts';
export { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES, type LoadBudget } from './budget.ts';
export { type DimacsOptions, parseDimacs } from './dimacs.ts';
export { type EdgeListOptions, parseEdgeList } from './edge-list.ts';
export { type ByteSource, bytesSource, readableChunks } from './lines.ts';
export { type MatrixMarketOptions, parseMatrixMarket } from './matrix-market.ts';
export {
  dimacsChunks,
  type EdgeListWriteOptions,
  edgeListChunks,
  type MatrixMarketWriteOptions,
  matrixMarketChunks,
} from './text-writers.ts';
export type { WeightType } from './weights.ts';
