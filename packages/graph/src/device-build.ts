import { checkOptionsObject, DeviceArray, InputError, max, type Recorder, type WeftDevice } from '@weft/gpu';
import { reduce } from '@weft/scan';
import { recordCsc } from './device-build-csc.ts';
import { type BuildArrays, type BuildShape, idBitsFor, recordBuild } from './device-build-passes.ts';
import { type DeviceCsc, DeviceGraph, uploadGraph, type WeightElementType } from './device-graph.ts';
import type { BuildOptions, BuildReport } from './host-build.ts';
import {
  checkDirected,
  checkVertexCount,
  type HostCsr,
  type HostWeights,
  rejectGraphology,
} from './host-graph.ts';

/** An edge list for {@link deviceGraphFromEdgeList}: host typed arrays or arrays already on the GPU. */
export interface DeviceBuildInput {
  src: Uint32Array | DeviceArray<'u32'>;
  dst: Uint32Array | DeviceArray<'u32'>;
  weights?: HostWeights | DeviceArray<WeightElementType>;
  /** Default: the largest id + 1 (found with one reduction and read-back for device arrays). */
  vertexCount?: number;
  directed: boolean;
}

export interface DeviceBuildOptions extends BuildOptions {
  /** Also build the in-edge view (on the GPU). Default false. */
  csc?: boolean;
}

export interface DeviceBuildResult {
  graph: DeviceGraph;
  /** The same numbers as {@link hostCsrFromEdgeList}'s report. */
  report: BuildReport;
}

/** What an edge list looks like, without its data: enough to size a {@link DeviceBuildPlan}. */
export interface EdgeListShape {
  edgeCount: number;
  vertexCount: number;
  /** The weights' element type; absent for unweighted lists. */
  weightType?: WeightElementType;
  directed: boolean;
}

/** The counts a build leaves on the GPU, read back in one round trip. */
export interface DeviceBuildCounts {
  /** Entries after dropping self-loops and adding reverses. */
  entries: number;
  /** Distinct (source, target) pairs: the CSR's edge count. */
  groups: number;
  /** Groups that hold an input edge as given (the rest were added by symmetrizing). */
  distinct: number;
  /** First input index with an out-of-range source, or undefined. */
  badSource: number | undefined;
  badTarget: number | undefined;
  /** Input edges that are not dropped self-loops (counted only when symmetrizing with dedupe 'none'). */
  kept: number;
}

const NONE = 0xffffffff;
const RULES = ['min', 'max', 'first', 'last', 'none'];

/**
 * A reusable GPU build of a CSR from edge lists of one shape: its arrays are allocated once, so the build can
 * be recorded many times (benchmarks) and read back after each. {@link deviceGraphFromEdgeList} makes one per
 * call.
 */
export class DeviceBuildPlan {
  /** @internal */
  readonly shape: BuildShape;
  readonly directed: boolean;
  readonly #arrays: BuildArrays;
  readonly #stats: DeviceArray<'u32'>;
  #destroyed = false;

  private constructor(
    readonly device: WeftDevice,
    readonly edges: EdgeListShape,
    options: BuildOptions,
  ) {
    const dedupe = options.dedupe ?? 'min';
    if (!RULES.includes(dedupe)) throw new InputError(`unknown dedupe rule '${dedupe}'`, 'options.dedupe');
    const m = edges.edgeCount;
    if (!Number.isSafeInteger(m) || m < 0 || m > 2 ** 31 - 1) {
      throw new InputError(`edge count must be an integer in [0, 2^31), got ${m}`, 'edges.src');
    }
    checkVertexCount(edges.vertexCount, 'edges.vertexCount');
    const symmetrize = options.symmetrize ?? !edges.directed;
    const idBits = idBitsFor(edges.vertexCount);
    this.shape = {
      edgeCount: m,
      vertexCount: edges.vertexCount,
      mirror: !symmetrize ? 'none' : dedupe === 'none' ? 'missing' : 'all',
      keepSelfLoops: options.keepSelfLoops ?? false,
      dedupe,
      idBits,
      packed: 2 * idBits <= 32,
      capacity: symmetrize ? 2 * m : m,
    };
    this.directed = symmetrize ? false : edges.directed;
    this.#arrays = this.#allocate();
    this.#stats = device.array('u32', 6, { label: 'graph build counts' });
  }

  /** Sizes the arrays for edge lists of `edges`' shape; `options` as for {@link deviceGraphFromEdgeList}. */
  static create(device: WeftDevice, edges: EdgeListShape, options: BuildOptions = {}): DeviceBuildPlan {
    checkOptionsObject('DeviceBuildPlan.create', options);
    return new DeviceBuildPlan(device, edges, options);
  }

  /**
   * Records one build of `input` (arrays of the plan's shape) into `rec`: no read-back. The results stay in
   * the plan's arrays until the next build; {@link readCounts} and {@link toGraph} read them.
   */
  async record(
    rec: Recorder,
    input: { src: DeviceArray<'u32'>; dst: DeviceArray<'u32'>; weights?: DeviceArray<WeightElementType> },
  ) {
    this.#check();
    const m = this.shape.edgeCount;
    for (const [name, arr] of [
      ['edges.src', input.src],
      ['edges.dst', input.dst],
      ['edges.weights', input.weights],
    ] as const) {
      if (arr !== undefined && arr.length !== m) {
        throw new InputError(`${name} has ${arr.length} entries, the plan expects ${m}`, name);
      }
    }
    if ((input.weights === undefined) !== (this.edges.weightType === undefined)) {
      throw new InputError('weights must be given exactly when the plan has a weight type', 'edges.weights');
    }
    if (input.weights !== undefined && input.weights.type !== this.edges.weightType) {
      throw new InputError(
        `weights are ${input.weights.type}, the plan expects ${this.edges.weightType}`,
        'edges.weights',
      );
    }
    await recordBuild(
      rec,
      this.shape,
      { src: input.src, dst: input.dst, weights: input.weights },
      this.#arrays,
    );
    const a = this.#arrays;
    rec.copy(a.entryCount, this.#stats, 1, 0, 0);
    rec.copy(a.groupCount, this.#stats, 1, 0, 1);
    rec.copy(a.distinctCount, this.#stats, 1, 0, 2);
    rec.copy(a.firstBad, this.#stats, 2, 0, 3);
    rec.copy(a.originalCount, this.#stats, 1, 0, 5);
  }

  /** Reads the last build's counts (one round trip). */
  async readCounts(): Promise<DeviceBuildCounts> {
    this.#check();
    const s = await this.#stats.download();
    return {
      entries: s[0]!,
      groups: s[1]!,
      distinct: s[2]!,
      badSource: s[3] === NONE ? undefined : s[3],
      badTarget: s[4] === NONE ? undefined : s[4],
      kept: s[5]!,
    };
  }

  /** The report {@link hostCsrFromEdgeList} gives, from the counts. */
  report(counts: DeviceBuildCounts): BuildReport {
    const { mirror, keepSelfLoops } = this.shape;
    const m = this.shape.edgeCount;
    // Loops add keepSelfLoops ? 1 : 0 entries, other edges 2 ('all'), 1 ('none') or 1 or 2 ('missing').
    const loops = keepSelfLoops
      ? 0
      : mirror === 'all'
        ? m - counts.entries / 2
        : mirror === 'missing'
          ? m - counts.kept
          : m - counts.entries;
    const kept = m - loops;
    // With dedupe 'none' ('missing') every kept input edge is its own output edge.
    const inputDistinct = mirror === 'all' ? counts.distinct : mirror === 'missing' ? kept : counts.groups;
    return {
      selfLoopsDropped: loops,
      duplicatesDropped: kept - inputDistinct,
      edgesAdded: counts.groups - inputDistinct,
    };
  }

  /** The last build's row offsets (`vertexCount + 1`, owned by the plan). */
  get offsets(): DeviceArray<'u32'> {
    return this.#arrays.offsets;
  }

  /** The last build's targets, then weights, in their first `counts.groups` elements (owned by the plan). */
  get targets(): DeviceArray<'u32'> {
    return this.#arrays.groupTarget;
  }

  get weights(): DeviceArray<WeightElementType> | undefined {
    return this.#arrays.groupWeight;
  }

  /**
   * A graph of the last build, in arrays of its own (exact sizes; the plan can build again). Throws
   * {@link InputError} naming the first out-of-range id, as {@link validateEdgeList} does.
   */
  async toGraph(
    counts: DeviceBuildCounts,
    input: { src: DeviceArray<'u32'> | Uint32Array; dst: DeviceArray<'u32'> | Uint32Array },
    options: { csc?: boolean } = {},
  ): Promise<DeviceGraph> {
    checkOptionsObject('DeviceBuildPlan.toGraph', options);
    this.#check();
    await this.#throwOnBadIds(counts, input);
    const { device } = this;
    const n = this.shape.vertexCount;
    const e = counts.groups;
    const a = this.#arrays;
    const made: DeviceArray[] = [];
    const array = <T extends 'u32' | WeightElementType>(type: T, length: number, label: string) => {
      const arr = device.array(type, length, { label });
      made.push(arr);
      return arr;
    };
    try {
      const offsets = array('u32', n + 1, 'graph row offsets');
      const targets = array('u32', e, 'graph column indices');
      const weights = a.groupWeight ? array(a.groupWeight.type, e, 'graph edge weights') : undefined;
      const rec = device.recorder({ label: 'graph build results' });
      rec.copy(a.offsets, offsets, n + 1);
      if (e > 0) {
        rec.copy(a.groupTarget, targets, e);
        if (weights) rec.copy(a.groupWeight!, weights, e);
      }
      let csc: DeviceCsc | undefined;
      if (options.csc) {
        csc = await recordCsc(rec, {
          vertexCount: n,
          edgeCount: e,
          offsets,
          targets,
          edgeSources: a.groupSource,
        });
        made.push(csc.inOffsets, csc.sources, csc.inEdgeIds);
      }
      await rec.submit();
      return new DeviceGraph(device, n, e, this.directed, offsets, targets, weights, csc);
    } catch (err) {
      for (const arr of made) arr.destroy();
      throw err;
    }
  }

  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const arr of Object.values(this.#arrays)) if (arr instanceof DeviceArray) arr.destroy();
    this.#stats.destroy();
  }

  #allocate(): BuildArrays {
    const { device } = this;
    const s = this.shape;
    // At least one element: WebGPU rejects empty bindings.
    const cap = Math.max(1, s.capacity);
    const made: DeviceArray[] = [];
    const array = <T extends 'u32' | WeightElementType>(type: T, length: number, label: string) => {
      const arr = device.array(type, length, { label: `graph build ${label}` });
      made.push(arr);
      return arr;
    };
    try {
      return {
        keys: array('u32', cap, 'keys'),
        codes: array('u32', cap, 'codes'),
        sources: s.packed ? undefined : array('u32', cap, 'sources'),
        groupStart: array('u32', cap, 'group starts'),
        hasOriginal: s.mirror === 'all' ? array('u32', cap, 'input-edge flags') : undefined,
        needsReverse:
          s.mirror === 'missing'
            ? array('u32', Math.max(1, s.edgeCount), 'missing-reverse flags')
            : undefined,
        groupSource: array('u32', cap, 'group sources'),
        groupTarget: array('u32', cap, 'targets'),
        groupWeight:
          this.edges.weightType === undefined ? undefined : array(this.edges.weightType, cap, 'weights'),
        offsets: array('u32', s.vertexCount + 1, 'row offsets'),
        entryCount: array('u32', 1, 'entry count'),
        groupCount: array('u32', 1, 'group count'),
        distinctCount: array('u32', 1, 'distinct count'),
        originalCount: array('u32', 1, 'kept input count'),
        firstBad: array('u32', 2, 'first bad ids'),
      };
    } catch (e) {
      for (const arr of made) arr.destroy();
      throw e;
    }
  }

  async #throwOnBadIds(
    counts: DeviceBuildCounts,
    input: { src: DeviceArray<'u32'> | Uint32Array; dst: DeviceArray<'u32'> | Uint32Array },
  ) {
    // Sources first, as validateEdgeList checks them.
    const [name, index, ids] =
      counts.badSource !== undefined
        ? (['edges.src', counts.badSource, input.src] as const)
        : counts.badTarget !== undefined
          ? (['edges.dst', counts.badTarget, input.dst] as const)
          : [undefined, undefined, undefined];
    if (name === undefined) return;
    const value = ids instanceof DeviceArray ? (await ids.download(index, 1))[0] : ids[index];
    throw new InputError(
      `${name}[${index}] = ${value} is not a vertex id (vertexCount is ${this.shape.vertexCount})`,
      name,
    );
  }

  #check(): void {
    if (this.#destroyed) throw new InputError('the build plan was destroyed', 'DeviceBuildPlan');
  }
}

/**
 * Builds a {@link DeviceGraph} from a COO edge list on the GPU, with the same result and report as
 * {@link hostCsrFromEdgeList} on the host: out-of-range ids are an {@link InputError}, self-loops are dropped
 * unless kept, reverses are added when symmetrizing (default for undirected lists), and duplicate
 * (source, target) pairs merge with the chosen weight rule. One read-back of the counts at the end.
 */
export async function deviceGraphFromEdgeList(
  device: WeftDevice,
  edges: DeviceBuildInput,
  options: DeviceBuildOptions = {},
): Promise<DeviceBuildResult> {
  checkOptionsObject('deviceGraphFromEdgeList', options);
  rejectGraphology(edges, 'edges');
  checkDirected(edges.directed, 'edges.directed');
  const m = edges.src.length;
  if (edges.dst.length !== m) {
    throw new InputError(`src has ${m} entries but dst has ${edges.dst.length}`, 'edges.dst');
  }
  if (edges.weights !== undefined && edges.weights.length !== m) {
    throw new InputError(
      `weights has ${edges.weights.length} entries but there are ${m} edges`,
      'edges.weights',
    );
  }
  const owned: DeviceArray[] = [];
  const onDevice = <A extends Uint32Array | Int32Array | Float32Array>(x: A | DeviceArray, label: string) => {
    if (x instanceof DeviceArray) return x;
    const arr = device.upload(x, { label });
    owned.push(arr);
    return arr;
  };
  let plan: DeviceBuildPlan | undefined;
  try {
    const src = onDevice(edges.src, 'graph build input sources') as DeviceArray<'u32'>;
    const dst = onDevice(edges.dst, 'graph build input targets') as DeviceArray<'u32'>;
    const weights =
      edges.weights === undefined
        ? undefined
        : (onDevice(edges.weights, 'graph build input weights') as DeviceArray<WeightElementType>);
    const vertexCount = edges.vertexCount ?? (await largestId(device, src, dst)) + 1;
    plan = DeviceBuildPlan.create(
      device,
      {
        edgeCount: m,
        vertexCount,
        directed: edges.directed,
        ...(weights === undefined ? {} : { weightType: weights.type }),
      },
      options,
    );
    const rec = device.recorder({ label: 'deviceGraphFromEdgeList' });
    await plan.record(rec, { src, dst, ...(weights === undefined ? {} : { weights }) });
    await rec.submit();
    const counts = await plan.readCounts();
    const graph = await plan.toGraph(
      counts,
      { src: edges.src, dst: edges.dst },
      { csc: options.csc ?? false },
    );
    return { graph, report: plan.report(counts) };
  } finally {
    plan?.destroy();
    for (const arr of owned) arr.destroy();
  }
}

/** The largest id in src and dst (-1 when there are no edges); device arrays by a max-reduction. */
async function largestId(
  device: WeftDevice,
  src: DeviceArray<'u32'>,
  dst: DeviceArray<'u32'>,
): Promise<number> {
  if (src.length === 0) return -1;
  const result = device.array('u32', 2, { label: 'graph build largest id' });
  try {
    const rec = device.recorder({ label: 'largest vertex id' });
    await reduce(rec, src, { array: result, index: 0 }, { monoid: max('u32') });
    await reduce(rec, dst, { array: result, index: 1 }, { monoid: max('u32') });
    await rec.submit();
    const [a, b] = await result.download();
    return Math.max(a!, b!);
  } finally {
    result.destroy();
  }
}

/**
 * Uploads a host CSR like {@link uploadGraph}, building the in-edge view on the GPU instead of the host when
 * `csc` is set.
 */
export async function deviceGraphFromCsr(
  device: WeftDevice,
  csr: HostCsr,
  options: { csc?: boolean } = {},
): Promise<DeviceGraph> {
  checkOptionsObject('deviceGraphFromCsr', options);
  const base = uploadGraph(device, csr);
  if (!options.csc) return base;
  try {
    const rec = device.recorder({ label: 'deviceGraphFromCsr' });
    const csc = await recordCsc(rec, {
      vertexCount: csr.vertexCount,
      edgeCount: csr.edgeCount,
      offsets: base.offsets,
      targets: base.targets,
    });
    await rec.submit();
    return new DeviceGraph(
      device,
      base.vertexCount,
      base.edgeCount,
      base.directed,
      base.offsets,
      base.targets,
      base.weights,
      csc,
    );
  } catch (e) {
    base.destroy();
    throw e;
  }
}
