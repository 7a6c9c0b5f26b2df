import { type Count, type DeviceArray, isGpuCount } from './array.ts';
import { checkOptionsObject } from './checks.ts';
import type { WeftDevice } from './device.ts';
import { InputError } from './errors.ts';
import type { Functor } from './functor.ts';
import { Recorder } from './recorder.ts';

const WORKGROUP = 256;
const DEFAULT_ITEMS_PER_THREAD = 4;
const DEFAULT_VECTORS_PER_THREAD = 1;

export interface TransformOptions {
  /** Items each thread handles (tuning; see docs/decisions/transform-items-per-thread.md). */
  itemsPerThread?: number;
  /** The kernel's label in errors and in per-dispatch timing (default `'transform'`). */
  label?: string;
}

/** From this many items (host counts), a transform's threads take 16 items each. */
const MANY_ITEMS_FROM = 2 ** 25;

/**
 * Items per thread of a storing transform. Its functor stores before the next item loads, so one load per
 * thread is in flight whatever the count; what more items buy is fewer workgroups to launch, which pays
 * only on large grids (docs/decisions/transform-items-per-thread.md).
 */
function transformItemsPerThread(n: Count): number {
  return typeof n === 'number' && n >= MANY_ITEMS_FROM ? 16 : DEFAULT_ITEMS_PER_THREAD;
}

/**
 * Items one workgroup of `transform(target, n, f, options)` covers: the size to give `writeDispatchArgs`
 * so that a transform over a GPU count uses the arguments written beside it.
 */
export function transformItemsPerWorkgroup(n: Count, options: TransformOptions = {}): number {
  checkOptionsObject('transformItemsPerWorkgroup', options);
  return WORKGROUP * (options.itemsPerThread ?? transformItemsPerThread(n));
}

/** Where a primitive's work goes: a recorder (recorded, submitted by the caller) or a device (submitted now). */
export type Target = WeftDevice | Recorder;

/** Runs `record` on the target: records into a recorder, or makes one, submits it and waits. */
export async function onTarget(target: Target, label: string, record: (rec: Recorder) => Promise<void>) {
  await recordOn(target, label, record, false);
}

/**
 * `onTarget` for primitives whose results all go to their caller's arrays: work recorded after it into the
 * same recorder may reuse the scratch it took (`Recorder.recordPrimitive`), so k calls batched into one
 * submit hold one call's scratch, not k.
 */
export async function onTargetReusingScratch(
  target: Target,
  label: string,
  record: (rec: Recorder) => Promise<void>,
) {
  await recordOn(target, label, record, true);
}

async function recordOn(
  target: Target,
  label: string,
  record: (rec: Recorder) => Promise<void>,
  reuseScratch: boolean,
) {
  const rec = target instanceof Recorder ? target : target.recorder({ label });
  await rec.recordPrimitive(() => record(rec), { reuseScratch });
  if (rec !== target) await rec.submit();
}

/**
 * moderngpu's `transform`: calls `f(index)` once for every index in [0, n). `n` may live on the GPU
 * (a scan total, a frontier length) and is then never read back. Up to 2^32 - 1 items.
 *
 * ```ts
 * await transform(device, n, wgsl`(i: u32) { ${rw(out)}[i] = ${input}[i] * 2u; }`);
 * ```
 */
export async function transform(
  target: Target,
  n: Count,
  f: Functor,
  options: TransformOptions = {},
): Promise<void> {
  checkOptionsObject('transform', options);
  const items = options.itemsPerThread ?? transformItemsPerThread(n);
  const perGroup = transformItemsPerWorkgroup(n, options);
  if (!isGpuCount(n) && (!Number.isInteger(n) || n < 0 || n > 0xffffffff)) {
    throw new InputError(`n must be an integer in [0, 2^32), got ${n}`, 'transform');
  }
  const label = options.label ?? 'transform';
  await onTarget(target, label, async (rec) => {
    const gpuCount = isGpuCount(n);
    const kernel = await rec.device.kernel({
      label,
      params: gpuCount ? { count_index: 'u32' } : { n: 'u32' },
      bindings: gpuCount ? { count: { type: 'array<u32>', access: 'read' } } : {},
      functors: { weft_op: f },
      constants: { ITEMS: items },
      code: /* wgsl */ `
override ITEMS: u32;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  // Several items per thread, strided by the workgroup size: coalesced, and more loads in flight per thread.
  let base = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u * ITEMS + lid;
  let n = ${gpuCount ? 'count[params.count_index]' : 'params.n'};
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * ${WORKGROUP}u;
    if (i < n) { weft_op(i); }
  }
}`,
    });
    if (isGpuCount(n)) {
      await rec.dispatchOver(kernel, n, perGroup, {
        bindings: { count: n.array },
        params: { count_index: n.index },
      });
    } else {
      rec.dispatch(kernel, { params: { n }, workgroups: Math.ceil(n / perGroup) });
    }
  });
}

/**
 * `output[i] = f(i)` for every index in [0, n): a transform whose functor returns the value instead of
 * storing it. Each thread computes all its items before storing any, so their loads are in flight together
 * (a storing functor must load, store, load, store: the compiler cannot tell its arrays do not alias), which
 * is what lets a map run at copy bandwidth. `n` may live on the GPU.
 *
 * ```ts
 * await map(device, n, wgsl`(i: u32) -> u32 { return ${input}[i] * 3u + 1u; }`, output);
 * ```
 */
export async function map(
  target: Target,
  n: Count,
  f: Functor,
  output: DeviceArray,
  options: TransformOptions = {},
): Promise<void> {
  checkOptionsObject('map', options);
  const items = options.itemsPerThread ?? DEFAULT_ITEMS_PER_THREAD;
  const perGroup = WORKGROUP * items;
  if (!isGpuCount(n) && (!Number.isInteger(n) || n < 0 || n > output.length)) {
    throw new InputError(
      `n must be an integer in [0, ${output.length}] (the output '${output.label}' length), got ${n}`,
      'map',
    );
  }
  if (output.destroyed) throw new InputError(`output '${output.label}' was destroyed`, 'map');
  await onTarget(target, 'map', async (rec) => {
    const gpuCount = isGpuCount(n);
    const kernel = await rec.device.kernel({
      label: 'map',
      params: gpuCount ? { count_index: 'u32' } : { n: 'u32' },
      bindings: {
        weft_out: { type: `array<${output.type}>`, access: 'read_write' },
        ...(gpuCount ? { count: { type: 'array<u32>', access: 'read' } } : {}),
      },
      functors: { weft_op: f },
      code: /* wgsl */ `
// A const, not an override: it sizes a function-scope array.
const ITEMS = ${items}u;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let base = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u * ITEMS + lid;
  // A GPU count is clamped to the output's length: items past it are dropped, never written out of bounds.
  let n = ${gpuCount ? 'min(count[params.count_index], arrayLength(&weft_out))' : 'params.n'};
  var v: array<${output.type}, ITEMS>;
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * ${WORKGROUP}u;
    if (i < n) { v[j] = weft_op(i); }
  }
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * ${WORKGROUP}u;
    if (i < n) { weft_out[i] = v[j]; }
  }
}`,
    });
    if (isGpuCount(n)) {
      await rec.dispatchOver(kernel, n, perGroup, {
        bindings: { weft_out: output, count: n.array },
        params: { count_index: n.index },
      });
    } else {
      rec.dispatch(kernel, {
        bindings: { weft_out: output },
        params: { n },
        workgroups: Math.ceil(n / perGroup),
      });
    }
  });
}

/**
 * Copies `src` into `dst` with a kernel that moves 16-byte vectors (the bandwidth reference for every
 * primitive; `Recorder.copy` uses the copy engine instead).
 */
export interface CopyOptions {
  /** 16-byte vectors per thread; all are loaded before any is stored so the loads overlap. */
  vectorsPerThread?: number;
  /** Cap the grid at this many workgroups and loop over the array (grid-stride); default: one pass. */
  maxWorkgroups?: number;
}

/**
 * Copies `src` into `dst` with a kernel that moves 16-byte vectors (the bandwidth reference for every
 * primitive; `Recorder.copy` uses the copy engine instead).
 */
export async function copy(target: Target, src: DeviceArray, dst: DeviceArray, options: CopyOptions = {}) {
  checkOptionsObject('copy', options);
  const vectors = options.vectorsPerThread ?? DEFAULT_VECTORS_PER_THREAD;
  if (src.type !== dst.type || dst.length < src.length) {
    throw new InputError(
      `cannot copy ${src.type}[${src.length}] '${src.label}' into ${dst.type}[${dst.length}] '${dst.label}'`,
      'copy',
    );
  }
  await onTarget(target, 'copy', async (rec) => {
    const kernel = await rec.device.kernel({
      label: 'copy vec4',
      bindings: {
        src: { type: 'array<vec4<u32>>', access: 'read' },
        dst: { type: 'array<vec4<u32>>', access: 'read_write' },
      },
      params: { n4: 'u32' },
      code: /* wgsl */ `
const V = ${vectors}u;
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let stride = nwg.x * nwg.y * ${WORKGROUP}u * V;
  // Loads first, then stores: the compiler cannot move a load above a store to another binding
  // (bindings may alias), so interleaving them would serialize memory latency.
  for (var base = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u * V + lid; base < params.n4; base += stride) {
    var v: array<vec4<u32>, V>;
    for (var j = 0u; j < V; j++) {
      let i = base + j * ${WORKGROUP}u;
      if (i < params.n4) { v[j] = src[i]; }
    }
    for (var j = 0u; j < V; j++) {
      let i = base + j * ${WORKGROUP}u;
      if (i < params.n4) { dst[i] = v[j]; }
    }
  }
}`,
    });
    const full = Math.floor(src.length / 4);
    const groups = Math.ceil(full / (WORKGROUP * vectors));
    rec.dispatch(kernel, {
      bindings: { src, dst },
      params: { n4: full },
      workgroups: Math.min(groups, options.maxWorkgroups ?? groups),
    });
    // The tail (fewer than 4 elements) goes through the copy engine so dst's other elements stay untouched.
    const tail = src.length - full * 4;
    if (tail > 0) rec.copy(src, dst, tail, full * 4, full * 4);
  });
}
