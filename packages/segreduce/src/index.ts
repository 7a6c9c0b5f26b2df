export { ITEMS_PER_THREAD, TILE, WORKGROUP } from '@weft/lbs';
export { type Monoid, max, min, plus, type ReduceType } from './monoid.ts';
export {
  type SegmentedReduceOptions,
  type SegreduceOptions,
  segmentedReduce,
  type TilePathOption,
  transformSegreduce,
} from './transform-segreduce.ts';
