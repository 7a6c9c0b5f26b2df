/**
 * Segmented reduction on WebGPU over CSR-style offsets, and `transformSegreduce` with a functor.
 *
 * @module @weft/segreduce
 */
export { ITEMS_PER_THREAD, TILE, WORKGROUP } from './segreduce-kernels.ts';
export {
  type SegmentedReduceOptions,
  type SegreduceOptions,
  segmentedReduce,
  type TilePathOption,
  transformSegreduce,
} from './transform-segreduce.ts';
