export {
  type EdgeWeightGetter,
  type FromGraphologyOptions,
  fromGraphology,
  type GraphologyCsr,
  type GraphologyDeviceGraph,
  type ToDeviceOptions,
  toDevice,
} from './from-graphology.ts';
export { assignAttributes, toKeyed } from './results.ts';
