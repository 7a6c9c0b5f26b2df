import {
  type Count,
  checkOptionsObject,
  DeviceArray,
  type ElementType,
  InputError,
  isGpuCount,
  type Monoid,
  onTargetReusingScratch,
  plus,
  type Target,
} from '@weft/gpu';
import {
  checkCount,
  checkDistinct,
  checkElementRef,
  checkMonoidType,
  type ElementRef,
  requireWholeSubgroups,
  resolveTuning,
  type ScanTuning,
} from './options.ts';
import { reduceWgsl } from './reduce-wgsl.ts';
import { tileGrid } from './tile-grid.ts';

export interface ReduceOptions<T extends ElementType = ElementType> {
  /** The operation (default `plus` of the array type). */
  readonly monoid?: Monoid<T>;
  /** Items to reduce (default: the input's length); may live on the GPU. */
  readonly count?: Count;
  /** `workgroupSize` and `vectorsPerThread` (default 256 x 8: 8192 items per workgroup). */
  readonly tuning?: ScanTuning;
}

/**
 * Writes `input[0] ⊕ ... ⊕ input[count - 1]` (the identity when empty) to `result` (an element reference,
 * or element 0 of an array) on the GPU. u32/i32 plus, min, max and bitOr fold one atomic per workgroup;
 * f32 and user monoids take two passes over per-workgroup partials.
 */
export async function reduce<T extends ElementType>(
  target: Target,
  input: DeviceArray<T>,
  result: ElementRef<T> | DeviceArray<T>,
  options: ReduceOptions<T> = {},
): Promise<void> {
  checkOptionsObject('reduce', options);
  const who = 'reduce';
  const monoid = options.monoid ?? plus(input.type);
  checkMonoidType(monoid, input.type, 'input', who);
  const out: ElementRef<T> = result instanceof DeviceArray ? { array: result, index: 0 } : result;
  checkElementRef(out, monoid.type, 'result', who);
  const count = options.count ?? input.length;
  checkCount(count, input.length, who);
  checkDistinct(who, {
    input,
    result: out.array,
    'count.array': isGpuCount(count) ? count.array : undefined,
  });
  const tuning = resolveTuning({ vectorsPerThread: 8, ...options.tuning }, who);
  if (tuning.forceFallback) throw new InputError('reduce has no look-back to force a fallback on', who);
  await onTargetReusingScratch(target, who, async (rec) => {
    const subgroups = rec.device.hasSubgroups;
    if (subgroups) requireWholeSubgroups(rec.device, tuning, who);
    const path = monoid.atomic && monoid.type !== 'f32' ? 'atomic' : 'partials';
    const tile = tuning.workgroupSize * tuning.vectorsPerThread * 4;
    const kernel = await rec.device.kernel({
      label: `reduce ${monoid.type} (${path})`,
      subgroups,
      bindings: {
        input: { type: `array<vec4<${monoid.type}>>`, access: 'read' },
        result: {
          type: path === 'atomic' ? `array<atomic<${monoid.type}>>` : `array<${monoid.type}>`,
          access: 'read_write',
        },
        ...(path === 'partials'
          ? { partials: { type: `array<${monoid.type}>`, access: 'read_write' as const } }
          : {}),
        // Always bound (a stand-in for host counts), so host and GPU counts share one pipeline.
        count: { type: 'array<u32>', access: 'read' },
      },
      params: { n: 'u32', count_index: 'u32', use_count: 'u32', max_n: 'u32', result_index: 'u32' },
      functors: { weft_combine: monoid.combine },
      code: reduceWgsl({
        monoid,
        workgroupSize: tuning.workgroupSize,
        vectorsPerThread: tuning.vectorsPerThread,
        path,
        subgroups,
      }),
      entryPoints: path === 'atomic' ? ['init', 'main'] : ['main', 'finish'],
    });
    const gpuCount = isGpuCount(count) ? count : undefined;
    const bindings: Record<string, DeviceArray> = {
      input,
      result: out.array,
      count: gpuCount?.array ?? rec.scratch('u32', 1, 'reduce count stand-in'),
    };
    const params = {
      n: gpuCount ? 0 : (count as number),
      count_index: gpuCount?.index ?? 0,
      use_count: gpuCount ? 1 : 0,
      max_n: input.length,
      result_index: out.index,
    };
    if (path === 'partials') {
      bindings['partials'] = rec.scratch(
        monoid.type,
        Math.max(1, Math.ceil(input.length / tile)),
        'reduce partials',
      );
    } else {
      rec.dispatch(kernel, { entry: 'init', bindings, params, workgroups: [1, 1, 1] });
    }
    rec.dispatch(kernel, { entry: 'main', bindings, params, workgroups: await tileGrid(rec, count, tile) });
    if (path === 'partials')
      rec.dispatch(kernel, { entry: 'finish', bindings, params, workgroups: [1, 1, 1] });
  });
}
