export { type AtomicFold, bitOr, max, min, type Monoid, monoid, plus, type ScanType } from './monoid.ts';
export type { ElementRef, ScanTuning } from './options.ts';
export { exclusiveScan, inclusiveScan, type ScanOptions, type TransformScanOptions, transformScan } from './scan.ts';
