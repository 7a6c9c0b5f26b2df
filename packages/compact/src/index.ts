/**
 * Stream compaction on WebGPU: upsweep/downsweep with keep-predicate and scatter functors, and a fused
 * single pass.
 *
 * @module @weft/compact
 */
export {
  CompactPlan,
  compactArray,
  compactDownsweep,
  compactFused,
  compactUpsweep,
  type UpsweepOptions,
} from './compact.ts';
