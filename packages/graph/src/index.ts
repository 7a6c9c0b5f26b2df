export { hasNeighbor } from './adjacency.ts';
export {
  type BuildCounts,
  EdgeListBuildPlan,
  type EdgeListShape,
  fromCsr,
  fromEdgeList,
  type GpuBuildOptions,
  type GpuBuildResult,
  type GpuEdgeListInput,
} from './build-gpu.ts';
export {
  type CsrBuildOptions,
  type CsrBuildReport,
  type CsrBuildResult,
  cscFromCsr,
  csrFromEdgeList,
  type DedupeRule,
} from './csr-build.ts';
export {
  type DeviceCsc,
  DeviceGraph,
  EdgeData,
  PropertyColumns,
  type UploadGraphOptions,
  uploadGraph,
  VertexData,
  type WeightElementType,
} from './device-graph.ts';
export {
  type BitmapToQueueOptions,
  bitmapToQueue,
  FrontierBitmap,
  FrontierQueue,
  type FrontierQueueOptions,
  type FrontierSink,
  type FrontierView,
  queueToBitmap,
} from './frontier.ts';
export { type GeometricGraph, type RandomGeometricOptions, randomGeometric } from './generators/geometric.ts';
export { type GridOptions, grid } from './generators/grid.ts';
export { type KroneckerOptions, kronecker, randomPermutation } from './generators/kronecker.ts';
export { type RoadOptions, road } from './generators/road.ts';
export { type UniformRandomOptions, uniformRandom } from './generators/uniform.ts';
export {
  type HostCsc,
  type HostCsr,
  type HostEdgeList,
  type HostWeights,
  MAX_VERTEX_COUNT,
  outDegrees,
  validateCsr,
  validateEdgeList,
} from './host-graph.ts';
export { BINARY_CSR_VERSION, type BinaryCsrOptions, readBinaryCsr, writeBinaryCsr } from './io/binary-csr.ts';
export { type DimacsOptions, parseDimacs } from './io/dimacs.ts';
export { type EdgeListOptions, parseEdgeList } from './io/edge-list.ts';
export { type ByteSource, bytesSource, readableChunks } from './io/lines.ts';
export { type MatrixMarketOptions, parseMatrixMarket } from './io/matrix-market.ts';
export {
  dimacsChunks,
  type EdgeListWriteOptions,
  edgeListChunks,
  type MatrixMarketWriteOptions,
  matrixMarketChunks,
} from './io/text-writers.ts';
export type { WeightType } from './io/weights.ts';
