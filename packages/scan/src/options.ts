import {
  type Count,
  type DeviceArray,
  type ElementType,
  InputError,
  isGpuCount,
  type Monoid,
  type WeftDevice,
} from '@weft/gpu';

/** One element of a device array, written on the GPU (a total for the next kernel: no read-back). */
export interface ElementRef<T extends ElementType = ElementType> {
  readonly array: DeviceArray<T>;
  readonly index: number;
}

/** Kernel shape and look-back knobs; the defaults suit both software and discrete adapters. */
export interface ScanTuning {
  /** Invocations per workgroup (default 256; at least the adapter's largest subgroup size). */
  readonly workgroupSize?: number;
  /** vec4 loads per invocation (default 4): a tile is workgroupSize * vectorsPerThread * 4 items. */
  readonly vectorsPerThread?: number;
  /** Polls of a not-ready predecessor before the workgroup reduces its tile itself (default 16). */
  readonly spinLimit?: number;
  /** Test hook: always recompute the nearest predecessor's reduction (exercises the fallback path). */
  readonly forceFallback?: boolean;
}

export interface ResolvedTuning {
  readonly workgroupSize: number;
  readonly vectorsPerThread: number;
  readonly spinLimit: number;
  readonly forceFallback: boolean;
}

export function resolveTuning(t: ScanTuning | undefined, who: string): ResolvedTuning {
  const r = {
    workgroupSize: t?.workgroupSize ?? 256,
    vectorsPerThread: t?.vectorsPerThread ?? 4,
    spinLimit: t?.spinLimit ?? 16,
    forceFallback: t?.forceFallback ?? false,
  };
  const pow2 = (x: number) => Number.isInteger(x) && x > 0 && (x & (x - 1)) === 0;
  if (!pow2(r.workgroupSize) || r.workgroupSize < 32 || r.workgroupSize > 1024) {
    throw new InputError(
      `tuning.workgroupSize must be a power of two in [32, 1024], got ${r.workgroupSize}`,
      who,
    );
  }
  if (!Number.isInteger(r.vectorsPerThread) || r.vectorsPerThread < 1 || r.vectorsPerThread > 32) {
    throw new InputError(
      `tuning.vectorsPerThread must be an integer in [1, 32], got ${r.vectorsPerThread}`,
      who,
    );
  }
  if (!Number.isInteger(r.spinLimit) || r.spinLimit < 0) {
    throw new InputError(`tuning.spinLimit must be a non-negative integer, got ${r.spinLimit}`, who);
  }
  return r;
}

/** On a device with subgroups: checks that a workgroup holds whole subgroups (shuffles read the last lane). */
export function requireWholeSubgroups(device: WeftDevice, tuning: ResolvedTuning, who: string): void {
  const widest = device.adapter.subgroupMaxSize ?? 128;
  if (tuning.workgroupSize < widest) {
    throw new InputError(
      `tuning.workgroupSize ${tuning.workgroupSize} is below this adapter's largest subgroup (${widest})`,
      who,
    );
  }
}

export function checkMonoidType(monoid: Monoid, type: ElementType, what: string, who: string): void {
  if (monoid.type !== type) {
    throw new InputError(`${what} is ${type} but the monoid combines ${monoid.type}`, who);
  }
}

/** Checks a host count against the arrays it indexes; GPU counts are clamped in the kernel. */
export function checkCount(count: Count, limit: number, who: string): void {
  if (isGpuCount(count)) {
    if (!Number.isInteger(count.index) || count.index < 0 || count.index >= count.array.length) {
      throw new InputError(
        `count.index ${count.index} is outside '${count.array.label}' (${count.array.length})`,
        who,
      );
    }
    if (count.array.type !== 'u32') throw new InputError('count.array must be a u32 array', who);
    return;
  }
  if (!Number.isInteger(count) || count < 0 || count > limit) {
    throw new InputError(`count must be an integer in [0, ${limit}], got ${count}`, who);
  }
}

export function checkElementRef(ref: ElementRef, type: ElementType, what: string, who: string): void {
  if (!Number.isInteger(ref.index) || ref.index < 0 || ref.index >= ref.array.length) {
    throw new InputError(
      `${what}.index ${ref.index} is outside '${ref.array.label}' (${ref.array.length})`,
      who,
    );
  }
  if (ref.array.type !== type) {
    throw new InputError(`${what}.array is ${ref.array.type}; it must hold the monoid's type ${type}`, who);
  }
}

/** WebGPU forbids binding one buffer twice in a dispatch when either binding is writable. */
export function checkDistinct(who: string, arrays: Record<string, DeviceArray | undefined>): void {
  const seen = new Map<GPUBuffer, string>();
  for (const [name, a] of Object.entries(arrays)) {
    if (!a) continue;
    const other = seen.get(a.buffer);
    if (other !== undefined) {
      throw new InputError(`${name} and ${other} are the same array; give them separate arrays`, who);
    }
    seen.set(a.buffer, name);
  }
}
