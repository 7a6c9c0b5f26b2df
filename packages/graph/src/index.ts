/**
 * Graph storage on the host and the device: host graphs and their validation, the host and device builders,
 * `DeviceGraph` with its vertex and edge data, frontiers. Parsers and writers are in `@weft/graph/io`,
 * generators in `@weft/graph/generators`, Node file helpers in `@weft/graph/node`.
 *
 * @module @weft/graph
 */
export { hasNeighbor } from './adjacency.ts';
export {
  type DeviceBuildCounts,
  type DeviceBuildInput,
  type DeviceBuildOptions,
  DeviceBuildPlan,
  type DeviceBuildResult,
  deviceGraphFromCsr,
  deviceGraphFromEdgeList,
  type EdgeListShape,
} from './device-build.ts';
export {
  checkDeviceGraph,
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
export {
  type BuildOptions,
  type BuildReport,
  type DedupeRule,
  type HostBuildResult,
  hostCscFromCsr,
  hostCsrFromEdgeList,
} from './host-build.ts';
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
export {
  type CsrPart,
  defaultArcsPerPart,
  type GraphPart,
  MAX_ARCS_PER_PART,
  PartitionedGraph,
  type PartitionOptions,
  partitionCsr,
} from './partition.ts';
export { type BinaryCsrUpload, type UploadBinaryCsrOptions, uploadBinaryCsr } from './upload-binary-csr.ts';
