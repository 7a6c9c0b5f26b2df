import {
  type Count,
  checkOptionsObject,
  type DeviceArray,
  type ElementType,
  type Functor,
  InputError,
  isGpuCount,
  type Monoid,
  onTargetReusingScratch,
  plus,
  type Recorder,
  type Target,
} from '@weft/gpu';
import { chainedScanWgsl, spineWords } from './chained-scan-wgsl.ts';
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
import { tileGrid } from './tile-grid.ts';

export interface ScanOptions<T extends ElementType = ElementType> {
  /** The operation (default `plus` of the array type). */
  readonly monoid?: Monoid<T>;
  /** Items to scan (default: the input's length); may live on the GPU. */
  readonly count?: Count;
  /** Also write the reduction of all items here, on the GPU. */
  readonly total?: ElementRef<T>;
  readonly tuning?: ScanTuning;
}

export interface TransformScanOptions<T extends ElementType = ElementType> {
  readonly monoid?: Monoid<T>;
  /** Inclusive instead of exclusive (moderngpu's default) scan. */
  readonly inclusive?: boolean;
  readonly total?: ElementRef<T>;
  readonly tuning?: ScanTuning;
}

/** `output[i] = input[0] ⊕ ... ⊕ input[i - 1]` (identity at 0). Output must not alias input. */
export async function exclusiveScan<T extends ElementType>(
  target: Target,
  input: DeviceArray<T>,
  output: DeviceArray<T>,
  options: ScanOptions<T> = {},
): Promise<void> {
  checkOptionsObject('exclusiveScan', options);
  await arrayScan(target, input, output, options, false);
}

/** `output[i] = input[0] ⊕ ... ⊕ input[i]`. Output must not alias input. */
export async function inclusiveScan<T extends ElementType>(
  target: Target,
  input: DeviceArray<T>,
  output: DeviceArray<T>,
  options: ScanOptions<T> = {},
): Promise<void> {
  checkOptionsObject('inclusiveScan', options);
  await arrayScan(target, input, output, options, true);
}

/**
 * moderngpu's `transform_scan`: scans `f(0), ..., f(n - 1)` without materializing them (e.g. neighbor-list
 * lengths). `f` is `(index: u32) -> T`, called once per item and again for a tile whose predecessor
 * falls back, so it must be pure. Exclusive unless `inclusive` is set.
 */
export async function transformScan<T extends ElementType>(
  target: Target,
  n: Count,
  f: Functor,
  output: DeviceArray<T>,
  options: TransformScanOptions<T> = {},
): Promise<void> {
  checkOptionsObject('transformScan', options);
  const who = 'transformScan';
  const monoid = options.monoid ?? plus(output.type);
  checkMonoidType(monoid, output.type, 'output', who);
  checkCount(n, output.length, who);
  await onTargetReusingScratch(target, who, (rec) =>
    recordScan(rec, who, {
      monoid,
      output,
      count: n,
      limit: output.length,
      inclusive: options.inclusive ?? false,
      functor: f,
      total: options.total,
      tuning: options.tuning,
    }),
  );
}

export interface TransformScanToOptions<T extends ElementType = ElementType> extends TransformScanOptions<T> {
  /** Largest value a GPU-resident `n` can take (required then: it sizes the tile states). */
  readonly maxCount?: number;
}

/**
 * A scan whose result is consumed instead of stored: scans `f(0), ..., f(n - 1)` (as {@link transformScan})
 * and calls `emit(index: u32, scanned: T, value: T)` once per item with its exclusive (or inclusive) scan
 * value and its own value, in the same pass. Stream compaction is `emit` = "if value, scatter to scanned".
 * `f` must be pure (a fallback calls it again); `emit` is called exactly once per item.
 */
export async function transformScanTo<T extends ElementType>(
  target: Target,
  n: Count,
  f: Functor,
  emit: Functor,
  options: TransformScanToOptions<T> & { readonly monoid: Monoid<T> },
): Promise<void> {
  checkOptionsObject('transformScanTo', options, true);
  const who = 'transformScanTo';
  let limit: number;
  if (isGpuCount(n)) {
    if (options.maxCount === undefined || !Number.isInteger(options.maxCount) || options.maxCount < 0) {
      throw new InputError(
        'a GPU-resident n needs maxCount, a non-negative integer, to size the tile states',
        who,
      );
    }
    limit = Math.min(options.maxCount, 0xffffffff);
  } else {
    limit = n;
  }
  checkCount(n, isGpuCount(n) ? limit : 0xffffffff, who);
  await onTargetReusingScratch(target, who, (rec) =>
    recordScan(rec, who, {
      monoid: options.monoid,
      emit,
      count: n,
      limit,
      inclusive: options.inclusive ?? false,
      functor: f,
      total: options.total,
      tuning: options.tuning,
    }),
  );
}

async function arrayScan<T extends ElementType>(
  target: Target,
  input: DeviceArray<T>,
  output: DeviceArray<T>,
  options: ScanOptions<T>,
  inclusive: boolean,
): Promise<void> {
  const who = inclusive ? 'inclusiveScan' : 'exclusiveScan';
  const monoid = options.monoid ?? plus(input.type);
  if (input.type !== output.type) {
    throw new InputError(`input is ${input.type} but output is ${output.type}`, who);
  }
  checkMonoidType(monoid, input.type, 'input', who);
  if (input.buffer === output.buffer) {
    throw new InputError(
      'output aliases input: a workgroup may re-read a predecessor tile (the look-back fallback), so scan into another array',
      who,
    );
  }
  const limit = Math.min(input.length, output.length);
  if (options.count === undefined && output.length < input.length) {
    throw new InputError(`output (${output.length}) is shorter than input (${input.length})`, who);
  }
  const count = options.count ?? input.length;
  checkCount(count, limit, who);
  await onTargetReusingScratch(target, who, (rec) =>
    recordScan(rec, who, {
      monoid,
      output,
      count,
      limit,
      inclusive,
      input,
      total: options.total,
      tuning: options.tuning,
    }),
  );
}

interface ScanJob {
  monoid: Monoid;
  /** The array the scan is stored in, or (when absent) `emit` is called per item. */
  output?: DeviceArray;
  emit?: Functor;
  count: Count;
  /** Largest count the bound arrays hold; GPU counts are clamped to it. */
  limit: number;
  inclusive: boolean;
  input?: DeviceArray;
  functor?: Functor;
  total: ElementRef | undefined;
  tuning: ScanTuning | undefined;
}

async function recordScan(rec: Recorder, who: string, job: ScanJob): Promise<void> {
  const tuning = resolveTuning(job.tuning, who);
  const subgroups = rec.device.hasSubgroups;
  if (subgroups) requireWholeSubgroups(rec.device, tuning, who);
  if (job.total) checkElementRef(job.total, job.monoid.type, 'total', who);
  checkDistinct(who, {
    input: job.input,
    output: job.output,
    'total.array': job.total?.array,
    'count.array': isGpuCount(job.count) ? job.count.array : undefined,
  });
  const tile = tuning.workgroupSize * tuning.vectorsPerThread * 4;
  const maxTiles = Math.max(1, Math.ceil(job.limit / tile));
  // Count and total are always bound (a one-element stand-in when unused) and selected by params, so
  // the variants share one pipeline.
  const kernel = await rec.device.kernel({
    label: `${who} ${job.monoid.type}`,
    subgroups,
    bindings: {
      ...(job.input ? { input: { type: `array<vec4<${job.monoid.type}>>`, access: 'read' as const } } : {}),
      ...(job.output
        ? { output: { type: `array<vec4<${job.monoid.type}>>`, access: 'read_write' as const } }
        : {}),
      spine: { type: 'array<atomic<u32>>', access: 'read_write' },
      count: { type: 'array<u32>', access: 'read' },
      total: { type: `array<${job.monoid.type}>`, access: 'read_write' },
    },
    params: {
      n: 'u32',
      count_index: 'u32',
      use_count: 'u32',
      max_n: 'u32',
      total_index: 'u32',
      write_total: 'u32',
      force_fallback: 'u32',
    },
    functors: {
      weft_combine: job.monoid.combine,
      ...(job.functor ? { weft_input: job.functor } : {}),
      ...(job.emit ? { weft_emit: job.emit } : {}),
    },
    code: chainedScanWgsl({
      monoid: job.monoid,
      shape: tuning,
      inclusive: job.inclusive,
      source: job.input ? 'array' : 'functor',
      sink: job.output ? 'output' : 'emit',
      subgroups,
    }),
    constants: { SPIN_LIMIT: tuning.spinLimit },
  });
  // Tile states and the ticket must start at zero on every run (stale INCLUSIVE flags would be trusted).
  const spine = rec.scratch('u32', spineWords(maxTiles), 'scan spine');
  rec.clear(spine);
  const gpuCount = isGpuCount(job.count) ? job.count : undefined;
  const bindings: Record<string, DeviceArray> = {
    spine,
    count: gpuCount?.array ?? rec.scratch('u32', 1, 'scan count stand-in'),
    total: job.total?.array ?? rec.scratch(job.monoid.type, 1, 'scan total stand-in'),
  };
  if (job.input) bindings['input'] = job.input;
  if (job.output) bindings['output'] = job.output;
  const params = {
    n: gpuCount ? 0 : (job.count as number),
    count_index: gpuCount?.index ?? 0,
    use_count: gpuCount ? 1 : 0,
    max_n: job.limit,
    total_index: job.total?.index ?? 0,
    write_total: job.total ? 1 : 0,
    force_fallback: tuning.forceFallback ? 1 : 0,
  };
  rec.dispatch(kernel, { bindings, params, workgroups: await tileGrid(rec, job.count, tile) });
}
