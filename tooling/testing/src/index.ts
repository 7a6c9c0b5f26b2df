export { expectArrayEqual, expectClose, ulpTolerance } from './compare.ts';
export { gpuTest, skipWithoutSubgroups, subgroupTestDevice, testDevice, testSubgroups } from './device.ts';
export { expectOptionsRefused, type OptionsCall } from './options.ts';
export {
  adversarialSizes,
  mulberry32,
  randomF32,
  randomI32,
  randomPermutation,
  randomU32,
  skewedLengths,
} from './random.ts';
export { recordShaders, wgslSnapshotFile } from './wgsl-snapshot.ts';
