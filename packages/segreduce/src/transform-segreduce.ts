import {
  type Count,
  checkOptionsObject,
  DeviceArray,
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
import { checkSegments, planMergePath } from '@weft/lbs/merge-path';
import { fixupKernel, prefixTileKernel, TILE, tileKernel, type ValueSource } from './segreduce-kernels.ts';

/** Options both entry points share. */
export interface TilePathOption {
  /**
   * Scan each tile's per-thread pieces with subgroup shuffles (default: where the adapter has subgroups);
   * `false` takes the workgroup-memory scan every adapter runs (tests cover both).
   */
  readonly subgroups?: boolean;
  /**
   * Integer sums (u32/i32 `plus`) of a values array as differences of prefix sums: a scan per tile instead
   * of a serial walk (default: where the adapter has subgroups). `false` takes the general path (tests).
   */
  readonly prefixSums?: boolean;
}

export interface SegreduceOptions<T extends ElementType = ElementType> extends TilePathOption {
  /** How values combine; default `plus(output.type)`. Its type must be the output's. */
  readonly monoid?: Monoid<T>;
  /**
   * Upper bound of a GPU-resident `count`: sizes the scratch (by default for any count below 2^32, about
   * 12 MiB per call). Items past it are dropped. Ignored for host counts.
   */
  readonly maxCount?: number;
}

function checkOutput(what: string, output: DeviceArray, numSegments: Count, monoid: Monoid): void {
  if (monoid.type !== output.type) {
    throw new InputError(
      `the monoid works on ${monoid.type} but output '${output.label}' holds ${output.type}`,
      what,
    );
  }
  if (!isGpuCount(numSegments) && output.length < numSegments) {
    throw new InputError(
      `output '${output.label}' has ${output.length} elements but numSegments is ${numSegments}`,
      what,
    );
  }
}

/** Records partition, tile and fix-up kernels for either value source. */
async function record(
  rec: Recorder,
  count: Count,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  source: { kind: ValueSource; functor?: Functor; values?: DeviceArray },
  output: DeviceArray,
  monoid: Monoid,
  maxCount: number | undefined,
  path: TilePathOption,
): Promise<void> {
  const plan = await planMergePath(rec, count, segmentOffsets, numSegments, maxCount, TILE);
  const { counts } = plan;
  const T = monoid.type;
  const carry = rec.scratch('u32', Math.max(1, plan.maxTiles), 'segreduce carry');
  const functors: Record<string, Functor> = { seg_combine: monoid.combine };
  if (source.functor) functors[source.kind === 'index' ? 'seg_item' : 'seg_value'] = source.functor;
  // Subgroup shuffles scan the threads' tails where the adapter has them (far fewer barriers).
  const subgroups = rec.device.hasSubgroups && path.subgroups !== false;
  // An atomicAdd monoid is integer addition by the Monoid contract: exact modulo 2^32, so a segment's piece
  // is a difference of prefix sums.
  const prefixSums =
    source.kind === 'array' && monoid.atomic === 'atomicAdd' && subgroups && path.prefixSums !== false;
  const tile = await rec.device.kernel({
    label: prefixSums ? `segreduce prefix tile ${T}` : `segreduce tile ${T}`,
    bindings: {
      offsets: { type: 'array<u32>', access: 'read' },
      partitions: { type: 'array<u32>', access: 'read' },
      ...(source.values ? { values: { type: `array<${T}>`, access: 'read' as const } } : {}),
      output: { type: `array<${T}>`, access: 'read_write' },
      carry: { type: 'array<u32>', access: 'read_write' },
      ...counts.bindingDecls,
    },
    params: counts.paramTypes,
    functors,
    code: `${counts.wgsl}\n${prefixSums ? prefixTileKernel(T) : tileKernel(monoid, source.kind, subgroups)}`,
    subgroups,
  });
  rec.dispatch(tile, {
    bindings: {
      offsets: segmentOffsets,
      partitions: plan.partitions,
      ...(source.values ? { values: source.values } : {}),
      output,
      carry,
      ...counts.bindings,
    },
    params: counts.params,
    workgroups: plan.tileGrid,
  });

  const atomicType = monoid.atomic ? T : 'u32';
  const fixup = await rec.device.kernel({
    label: `segreduce fix-up ${T}`,
    bindings: {
      partitions: { type: 'array<u32>', access: 'read' },
      carry: { type: 'array<u32>', access: 'read' },
      output: { type: `array<atomic<${atomicType}>>`, access: 'read_write' },
      ...counts.bindingDecls,
    },
    params: counts.paramTypes,
    functors: { seg_combine: monoid.combine },
    code: `${counts.wgsl}\n${fixupKernel(monoid)}`,
  });
  rec.dispatch(fixup, {
    bindings: { partitions: plan.partitions, carry, output, ...counts.bindings },
    params: counts.params,
    workgroups: plan.perTileGrid,
  });
}

/**
 * moderngpu's `transform_segreduce`: `output[seg]` = the monoid's combination of `f(index, seg, rank)` over
 * the work items of segment `seg`, for every segment in [0, numSegments); empty segments get the identity.
 * Segments and counts as in @weft/lbs's `transformLbs`: `segmentOffsets` holds each segment's start (the
 * exclusive scan of the lengths, first entry 0; a CSR row-pointer array works as is), items run to
 * `count`, and `count`/`numSegments` may live on the GPU. `f` returns the output's type.
 *
 * Merge-path tiles give every workgroup the same work for any length distribution; a segment that
 * crosses tiles is completed by a fix-up pass (atomic folds, or compare-exchange for f32).
 *
 * ```ts
 * // Weighted degree: sum of w[e] * scale[v] over each vertex v's edges e.
 * await transformSegreduce(device, edges, rowPtr, vertices,
 *   wgsl`(e: u32, v: u32, rank: u32) -> f32 { return ${w}[e] * ${scale}[v]; }`, out);
 * ```
 */
export async function transformSegreduce<T extends ElementType>(
  target: Target,
  count: Count,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  f: Functor,
  output: DeviceArray<T>,
  options: SegreduceOptions<T> = {},
): Promise<void> {
  checkOptionsObject('transformSegreduce', options);
  const monoid = options.monoid ?? plus(output.type);
  checkSegments('transformSegreduce', count, segmentOffsets, numSegments, options.maxCount);
  checkOutput('transformSegreduce', output, numSegments, monoid);
  await onTargetReusingScratch(target, 'transformSegreduce', (rec) =>
    record(
      rec,
      count,
      segmentOffsets,
      numSegments,
      { kind: 'functor', functor: f },
      output,
      monoid,
      options.maxCount,
      options,
    ),
  );
}

export interface SegmentedReduceOptions<T extends ElementType = ElementType> extends TilePathOption {
  /** How values combine; default `plus(output.type)`. Its type must be the output's. */
  readonly monoid?: Monoid<T>;
  /**
   * Items to reduce, default `values.length`; may live on the GPU (at most `values.length`). Needed when
   * `values` is a functor.
   */
  readonly count?: Count;
}

/**
 * moderngpu's `segreduce`: `output[s]` = the monoid's combination of `values[i]` over the items i of
 * segment s (`segmentOffsets[s] <= i < segmentOffsets[s + 1]`, the last segment running to the count);
 * empty segments get the identity. See {@link transformSegreduce}.
 *
 * `values` may also be a functor `(index: u32) -> T` (moderngpu's input iterator): item `i`'s value, computed
 * from its index alone, so a tile issues its items' loads before it knows their segments (a gather through
 * an index array, as SpMV's). `options.count` is then required, and the functor must return the output's
 * type.
 *
 * ```ts
 * await segmentedReduce(device, edgeWeights, rowPtr, vertices, out, { monoid: min('f32') });
 * ```
 */
export async function segmentedReduce<T extends ElementType>(
  target: Target,
  values: DeviceArray<T> | Functor,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  output: DeviceArray<T>,
  options: SegmentedReduceOptions<T> = {},
): Promise<void> {
  checkOptionsObject('segmentedReduce', options);
  const monoid = options.monoid ?? plus(output.type);
  const array = values instanceof DeviceArray ? values : undefined;
  if (!array && options.count === undefined) {
    throw new InputError('count is needed when values is a functor of the index', 'segmentedReduce');
  }
  const count = options.count ?? array!.length;
  if (array && array.type !== output.type) {
    throw new InputError(
      `values '${array.label}' (${array.type}) and output '${output.label}' (${output.type}) differ in type`,
      'segmentedReduce',
    );
  }
  if (array && !isGpuCount(count) && count > array.length) {
    throw new InputError(
      `count is ${count} but values '${array.label}' has ${array.length} elements`,
      'segmentedReduce',
    );
  }
  checkSegments('segmentedReduce', count, segmentOffsets, numSegments);
  checkOutput('segmentedReduce', output, numSegments, monoid);
  const source = array
    ? ({ kind: 'array', values: array } as const)
    : ({ kind: 'index', functor: values as Functor } as const);
  await onTargetReusingScratch(target, 'segmentedReduce', (rec) =>
    record(rec, count, segmentOffsets, numSegments, source, output, monoid, array?.length, options),
  );
}
