/**
 * Scan and reduce on WebGPU: exclusive and inclusive scan, reduce and transformScan with user monoids.
 *
 * @module @weft/scan
 */
export type { ElementRef, ScanTuning } from './options.ts';
export { type ReduceOptions, reduce } from './reduce.ts';
export { type HostCombine, hostMonoids, hostReduce, hostScan } from './reference.ts';
export {
  exclusiveScan,
  inclusiveScan,
  type ScanOptions,
  type TransformScanOptions,
  type TransformScanToOptions,
  transformScan,
  transformScanTo,
} from './scan.ts';
