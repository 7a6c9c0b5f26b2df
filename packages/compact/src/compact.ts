import {
  type Count,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  isGpuCount,
  onTarget,
  onTargetReusingScratch,
  plus,
  Recorder,
  rw,
  type Target,
  wgsl,
} from '@weft/gpu';
import { exclusiveScan, transformScanTo } from '@weft/scan';
import { compactWgsl, TILE, WORKGROUP } from './compact-wgsl.ts';

export interface UpsweepOptions {
  /** Where to write the kept count (default: a one-element array that the plan owns). */
  readonly keptCount?: GpuCount;
  /** Largest count a GPU-resident `count` can hold (required then: it sizes the plan's arrays). */
  readonly maxCount?: number;
}

/**
 * The result of an upsweep: which items are kept (as bits) and where each tile's kept items go. Pass it to
 * {@link compactDownsweep}; `destroy()` it afterwards.
 */
export class CompactPlan {
  /** @internal */
  constructor(
    readonly count: Count,
    /** Largest number of items the plan's arrays hold. */
    readonly capacity: number,
    /** The number of kept items, on the GPU (feed it to the next kernel as a count). */
    readonly keptCount: GpuCount,
    /** @internal */ readonly bits: DeviceArray<'u32'>,
    /** @internal */ readonly tileOffsets: DeviceArray<'u32'>,
    private readonly owned: readonly DeviceArray[],
  ) {}

  /** Reads the kept count back to the host (one round trip; prefer passing `keptCount` on). */
  async readKeptCount(): Promise<number> {
    return (await this.keptCount.array.download(this.keptCount.index, 1))[0]!;
  }

  destroy(): void {
    for (const a of this.owned) a.destroy();
  }
}

type Allocate = (length: number, label: string) => DeviceArray<'u32'>;

/**
 * moderngpu's compact upsweep: evaluates `keep(index) -> bool` for every index in [0, count) and counts the
 * kept items per tile; a chained scan of those counts gives every tile's output offset and the kept count
 * (written to `keptCount` on the GPU). `count` may live on the GPU (then give `maxCount`).
 */
export async function compactUpsweep(
  target: Target,
  count: Count,
  keep: Functor,
  options: UpsweepOptions = {},
): Promise<CompactPlan> {
  checkOptionsObject('compactUpsweep', options);
  const capacity = checkCount(count, options.maxCount, 'compactUpsweep');
  if (options.keptCount) checkKeptCount(options.keptCount, 'compactUpsweep');
  let plan: CompactPlan | undefined;
  const owned: DeviceArray[] = [];
  const allocate: Allocate = (length, label) => {
    const a = (target instanceof Recorder ? target.device : target).array('u32', length, { label });
    owned.push(a);
    return a;
  };
  try {
    await onTarget(target, 'compactUpsweep', async (rec) => {
      plan = await recordUpsweep(rec, count, capacity, keep, options.keptCount, allocate, owned);
    });
  } catch (e) {
    for (const a of owned) a.destroy();
    throw e;
  }
  return plan!;
}

/**
 * moderngpu's compact downsweep: calls `scatter(dest: u32, source: u32)` once for each kept index `source`,
 * with `dest` its rank among the kept indices (so kept items keep their order).
 */
export async function compactDownsweep(target: Target, plan: CompactPlan, scatter: Functor): Promise<void> {
  await onTarget(target, 'compactDownsweep', (rec) => recordDownsweep(rec, plan, scatter));
}

/**
 * Compaction in one pass: a chained scan (decoupled look-back and fallback) of the keep flags that calls
 * `scatter(dest, source)` for each kept index as soon as its tile's offset is known, and writes the kept
 * count to `keptCount`. `keep` must be pure: a workgroup whose predecessor stalls evaluates it again for
 * that predecessor's tile. A GPU-resident `count` needs `maxCount`.
 */
export async function compactFused(
  target: Target,
  count: Count,
  keep: Functor,
  scatter: Functor,
  keptCount: GpuCount,
  options: { readonly maxCount?: number } = {},
): Promise<void> {
  checkOptionsObject('compactFused', options);
  const who = 'compactFused';
  const capacity = checkCount(count, options.maxCount, who);
  checkKeptCount(keptCount, who);
  const flag = wgsl`(i: u32) -> u32 { return select(0u, 1u, ${keep}(i)); }`;
  const emit = wgsl`(source: u32, dest: u32, kept: u32) { if (kept != 0u) { ${scatter}(dest, source); } }`;
  await transformScanTo(target, count, flag, emit, {
    monoid: plus('u32'),
    total: keptCount,
    maxCount: capacity,
  });
}

/**
 * Copies the elements `input[i]` with `keep(i)` true, in order, to the front of `output`, and writes how many
 * to `keptCount`. `keep` is `(index: u32) -> bool` (capture `input` in it to test values).
 */
export async function compactArray<T extends 'u32' | 'i32' | 'f32'>(
  target: Target,
  input: DeviceArray<T>,
  output: DeviceArray<T>,
  keep: Functor,
  keptCount: GpuCount,
  options: {
    readonly count?: Count;
    /** One pass ({@link compactFused}) instead of upsweep + downsweep. */
    readonly fused?: boolean;
  } = {},
): Promise<void> {
  checkOptionsObject('compactArray', options);
  const who = 'compactArray';
  if (input.type !== output.type)
    throw new InputError(`input is ${input.type} but output is ${output.type}`, who);
  if (input.buffer === output.buffer) throw new InputError('output must not alias input', who);
  const count = options.count ?? input.length;
  checkCount(count, input.length, who);
  if (output.length < Math.min(input.length, isGpuCount(count) ? input.length : count)) {
    throw new InputError(`output (${output.length}) is shorter than the items that may be kept`, who);
  }
  checkKeptCount(keptCount, who);
  const scatter = wgsl`(dest: u32, source: u32) { ${rw(output)}[dest] = ${input}[source]; }`;
  if (options.fused) {
    await compactFused(target, count, keep, scatter, keptCount, { maxCount: input.length });
    return;
  }
  await onTargetReusingScratch(target, who, async (rec) => {
    const allocate: Allocate = (length, label) => rec.scratch('u32', length, label);
    const plan = await recordUpsweep(rec, count, input.length, keep, keptCount, allocate, []);
    await recordDownsweep(rec, plan, scatter);
  });
}

function checkCount(count: Count, maxCount: number | undefined, who: string): number {
  if (isGpuCount(count)) {
    if (maxCount === undefined || !Number.isInteger(maxCount) || maxCount < 0) {
      throw new InputError(
        'a GPU-resident count needs maxCount, a non-negative integer, to size the plan',
        who,
      );
    }
    if (count.array.type !== 'u32' || count.index < 0 || count.index >= count.array.length) {
      throw new InputError(`count must name an element of a u32 array`, who);
    }
    return maxCount;
  }
  if (!Number.isInteger(count) || count < 0 || count > 0xffffffff) {
    throw new InputError(`count must be an integer in [0, 2^32), got ${count}`, who);
  }
  if (maxCount !== undefined && count > maxCount) {
    throw new InputError(`count ${count} exceeds ${maxCount}`, who);
  }
  return count;
}

function checkKeptCount(kept: GpuCount, who: string): void {
  if (
    kept.array.type !== 'u32' ||
    !Number.isInteger(kept.index) ||
    kept.index < 0 ||
    kept.index >= kept.array.length
  ) {
    throw new InputError('keptCount must name an element of a u32 array', who);
  }
}

async function recordUpsweep(
  rec: Recorder,
  count: Count,
  capacity: number,
  keep: Functor,
  keptCountIn: GpuCount | undefined,
  allocate: Allocate,
  owned: DeviceArray[],
): Promise<CompactPlan> {
  const subgroups = rec.device.hasSubgroups;
  const gpuCount = isGpuCount(count);
  const maxTiles = Math.max(1, Math.ceil(capacity / TILE));
  const bits = allocate(maxTiles * WORKGROUP, 'compact bits');
  const tileCounts = allocate(maxTiles, 'compact tile counts');
  const tileOffsets = allocate(maxTiles, 'compact tile offsets');
  const keptCount = keptCountIn ?? { array: allocate(1, 'compact kept count'), index: 0 };
  const kernel = await rec.device.kernel({
    label: 'compact upsweep',
    subgroups,
    bindings: {
      bits: { type: 'array<u32>', access: 'read_write' },
      tile_counts: { type: 'array<u32>', access: 'read_write' },
      ...(gpuCount
        ? {
            tile_total: { type: 'array<u32>', access: 'read_write' as const },
            count: { type: 'array<u32>', access: 'read' as const },
          }
        : {}),
    },
    params: gpuCount ? { count_index: 'u32', capacity: 'u32' } : { n: 'u32' },
    functors: { weft_keep: keep },
    code: compactWgsl(gpuCount, 'upsweep', subgroups),
  });
  if (isGpuCount(count)) {
    const tileTotal = allocate(1, 'compact tile total');
    // Zero tiles dispatch no workgroup, so the tile count must start at zero.
    rec.clear(tileTotal);
    await rec.dispatchOver(kernel, count, TILE, {
      bindings: { bits, tile_counts: tileCounts, tile_total: tileTotal, count: count.array },
      params: { count_index: count.index, capacity },
    });
    await exclusiveScan(rec, tileCounts, tileOffsets, {
      count: { array: tileTotal, index: 0 },
      total: keptCount,
    });
  } else {
    rec.dispatch(kernel, {
      bindings: { bits, tile_counts: tileCounts },
      params: { n: count },
      workgroups: Math.ceil(count / TILE),
    });
    await exclusiveScan(rec, tileCounts, tileOffsets, { count: Math.ceil(count / TILE), total: keptCount });
  }
  return new CompactPlan(count, capacity, keptCount, bits, tileOffsets, owned);
}

async function recordDownsweep(rec: Recorder, plan: CompactPlan, scatter: Functor): Promise<void> {
  const count = plan.count;
  const gpuCount = isGpuCount(count);
  const kernel = await rec.device.kernel({
    label: 'compact downsweep',
    subgroups: rec.device.hasSubgroups,
    bindings: {
      bits: { type: 'array<u32>', access: 'read' },
      tile_offsets: { type: 'array<u32>', access: 'read' },
      ...(gpuCount ? { count: { type: 'array<u32>', access: 'read' as const } } : {}),
    },
    params: gpuCount ? { count_index: 'u32', capacity: 'u32' } : { n: 'u32' },
    functors: { weft_scatter: scatter },
    code: compactWgsl(gpuCount, 'downsweep', rec.device.hasSubgroups),
  });
  if (isGpuCount(count)) {
    await rec.dispatchOver(kernel, count, TILE, {
      bindings: { bits: plan.bits, tile_offsets: plan.tileOffsets, count: count.array },
      params: { count_index: count.index, capacity: plan.capacity },
    });
  } else {
    rec.dispatch(kernel, {
      bindings: { bits: plan.bits, tile_offsets: plan.tileOffsets },
      params: { n: count },
      workgroups: Math.ceil(count / TILE),
    });
  }
}
