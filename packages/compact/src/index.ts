export {
  CompactPlan,
  compactArray,
  compactDownsweep,
  compactFused,
  compactUpsweep,
  type UpsweepOptions,
} from './compact.ts';
