import { type Count, type DeviceArray, isGpuCount } from './array.ts';
import type { WeftDevice } from './device.ts';
import { InputError } from './errors.ts';
import type { Functor } from './functor.ts';
import { Recorder } from './recorder.ts';

const WORKGROUP = 256;

/** Where a primitive's work goes: a recorder (recorded, submitted by the caller) or a device (submitted now). */
export type Target = WeftDevice | Recorder;

/** Runs `record` on the target: records into a recorder, or makes one, submits it and waits. */
export async function onTarget(target: Target, label: string, record: (rec: Recorder) => Promise<void>) {
  if (target instanceof Recorder) {
    await record(target);
    return;
  }
  const rec = target.recorder({ label });
  await record(rec);
  await rec.submit();
}

/**
 * moderngpu's `transform`: calls `f(index)` once for every index in [0, n). `n` may live on the GPU
 * (a scan total, a frontier length) and is then never read back. Up to 2^32 - 1 items.
 *
 * ```ts
 * await transform(device, n, wgsl`(i: u32) { ${rw(out)}[i] = ${input}[i] * 2u; }`);
 * ```
 */
export async function transform(target: Target, n: Count, f: Functor): Promise<void> {
  if (!isGpuCount(n) && (!Number.isInteger(n) || n < 0 || n > 0xffffffff)) {
    throw new InputError(`n must be an integer in [0, 2^32), got ${n}`, 'transform');
  }
  await onTarget(target, 'transform', async (rec) => {
    const gpuCount = isGpuCount(n);
    const kernel = await rec.device.kernel({
      label: 'transform',
      params: gpuCount ? { count_index: 'u32' } : { n: 'u32' },
      bindings: gpuCount ? { count: { type: 'array<u32>', access: 'read' } } : {},
      functors: { weft_op: f },
      code: /* wgsl */ `
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  let n = ${gpuCount ? 'count[params.count_index]' : 'params.n'};
  if (i < n) { weft_op(i); }
}`,
    });
    if (isGpuCount(n)) {
      await rec.dispatchOver(kernel, n, WORKGROUP, {
        bindings: { count: n.array },
        params: { count_index: n.index },
      });
    } else {
      rec.dispatch(kernel, { params: { n }, workgroups: Math.ceil(n / WORKGROUP) });
    }
  });
}

/**
 * Copies `src` into `dst` with a kernel that moves 16-byte vectors (the bandwidth reference for every
 * primitive; `Recorder.copy` uses the copy engine instead).
 */
export async function copy(target: Target, src: DeviceArray, dst: DeviceArray): Promise<void> {
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
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  if (i < params.n4) { dst[i] = src[i]; }
}`,
    });
    const full = Math.floor(src.length / 4);
    rec.dispatch(kernel, {
      bindings: { src, dst },
      params: { n4: full },
      workgroups: Math.ceil(full / WORKGROUP),
    });
    // The tail (fewer than 4 elements) goes through the copy engine so dst's other elements stay untouched.
    const tail = src.length - full * 4;
    if (tail > 0) rec.copy(src, dst, tail, full * 4, full * 4);
  });
}
