export {
  CompactPlan,
  compactArray,
  compactDownsweep,
  compactUpsweep,
  type UpsweepOptions,
} from './compact.ts';
