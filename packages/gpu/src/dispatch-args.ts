import type { DeviceArray, DispatchArgs } from './array.ts';
import { InputError } from './errors.ts';
import { type Functor, rw, u32, wgsl } from './functor.ts';

/**
 * `(n: u32)`: writes indirect dispatch arguments for `n` items at `perWorkgroup` items a workgroup into
 * `array[index .. index + 3]`, split over y beyond the per-dimension limit as `Recorder.dispatchOver`
 * does. Call it in the kernel that produces a count and hand the count on with the returned `args`
 * (`{ array: counts, index, args }`): dispatches over it then need no kernel of their own to size them.
 * `array` must be created with `{ indirect: true }`.
 */
export function writeDispatchArgs(
  array: DeviceArray<'u32'>,
  index: number,
  perWorkgroup: number,
): { write: Functor; args: DispatchArgs } {
  if (!Number.isInteger(perWorkgroup) || perWorkgroup < 1) {
    throw new InputError(`perWorkgroup must be a positive integer, got ${perWorkgroup}`, 'writeDispatchArgs');
  }
  if (!Number.isInteger(index) || index < 0 || index + 3 > array.length) {
    throw new InputError(
      `arguments at ${index} do not fit '${array.label}' (${array.length} words)`,
      'writeDispatchArgs',
    );
  }
  const maxDim = array.device.limits.maxComputeWorkgroupsPerDimension;
  const out = rw(array);
  const write = wgsl`(n: u32) {
  let groups = (n + ${u32(perWorkgroup - 1)}) / ${u32(perWorkgroup)};
  let x = min(groups, ${u32(maxDim)});
  var y = 1u;
  if (x > 0u) { y = (groups + x - 1u) / x; }
  ${out}[${u32(index)}] = x;
  ${out}[${u32(index + 1)}] = select(1u, y, x > 0u);
  ${out}[${u32(index + 2)}] = 1u;
}`;
  return { write, args: { array, index, perWorkgroup } };
}
