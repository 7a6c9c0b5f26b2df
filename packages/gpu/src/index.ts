/**
 * Weft's WebGPU runtime: devices, typed device arrays, WGSL functor templates, command recording, timing and
 * typed errors.
 *
 * @module @weft/gpu
 */
/// <reference types="@webgpu/types" preserve="true" />
// The published declarations name WebGPU's globals (GPUDevice, GPUBuffer) and `Symbol.dispose`: the reference
// and the declaration below let them resolve in a consumer's project without extra `types` or `lib` entries.
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

export {
  type Count,
  DeviceArray,
  type DeviceArrayOptions,
  type DispatchArgs,
  type ElementType,
  elementTypeOf,
  type GpuCount,
  type HostArray,
  hostArray,
  isGpuCount,
} from './array.ts';
export { checkMaxIterations, checkOptionsObject, checkTolerance, distanceOverflowError } from './checks.ts';
export {
  type AtomicName,
  atomicAt,
  ChunkedArray,
  type ChunkedArrayOptions,
  chunkShift,
  load,
  store,
} from './chunked.ts';
export {
  type AdapterReport,
  type RequestDeviceOptions,
  requestDevice,
  WeftDevice,
  type WeftFeature,
  wrapDevice,
} from './device.ts';
export { type RequestDevicesOptions, requestDevices } from './devices.ts';
export { writeDispatchArgs } from './dispatch-args.ts';
export {
  ConvergenceError,
  DeviceLimitError,
  DeviceLostError,
  DeviceMismatchError,
  GpuOutOfMemoryError,
  GpuValidationError,
  InputError,
  NoAdapterError,
  ShaderCompileError,
  WeftError,
} from './errors.ts';
export {
  type ArrayAccess,
  type ArrayCapture,
  atomic,
  type Capture,
  Functor,
  f32,
  functorBindingCount,
  type Inline,
  type Interpolation,
  i32,
  inline,
  type Literal,
  lit,
  rw,
  type ScalarCapture,
  u32,
  wgsl,
} from './functor.ts';
export { listGpus } from './gpu-placement.ts';
export { type BindingDecl, Kernel, type KernelDefinition } from './kernel.ts';
export { type AtomicFold, bitOr, type Monoid, max, min, monoid, plus } from './monoid.ts';
export { type BufferKind, BufferPool, sizeClass } from './pool.ts';
export {
  type DispatchOptions,
  MAX_TIMED_DISPATCHES,
  Recorder,
  type RecorderOptions,
  type SubmitOptions,
  type SubmitResult,
  type Workgroups,
} from './recorder.ts';
export { StagingBuffer, type StagingMode } from './staging.ts';
export { SUBGROUP_INDEX_WGSL } from './subgroup-index.ts';
export {
  type CopyOptions,
  copy,
  map,
  onTarget,
  onTargetReusingScratch,
  type Target,
  type TransformOptions,
  transform,
  transformItemsPerWorkgroup,
} from './transform.ts';
export { unrolled } from './unroll.ts';
