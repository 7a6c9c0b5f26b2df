import {
  atomic,
  type DeviceArray,
  type Functor,
  f32,
  type GpuCount,
  InputError,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, FrontierBitmap, FrontierQueue } from '@weft/graph';
import { AdvanceWorkspace, advancePush, compute, IterationLog, type IterationTrace } from '@weft/operators';
import {
  advanceBalance,
  checkSource,
  enactTraced,
  type LoadBalance,
  type LoadBalanceOption,
  type RunOptions,
  recordSet,
  resolveLoadBalance,
  type TraceOption,
} from './common.ts';

/** Unreached distance as stored: u32 max for integer weights, the bits of +Infinity for f32 weights. */
const UNREACHED_U32 = 0xffffffff;
const UNREACHED_F32 = 0x7f800000;

export interface SsspResult {
  /** Distances from the source; `Infinity` where unreachable. */
  distances: Float64Array;
  /**
   * With `parents: true`: a shortest-path tree, `parents[v]` a vertex whose edge to `v` is tight (-1 for the
   * source and unreachable vertices). With zero-weight edges, equal-distance vertices may point at each other.
   */
  parents?: Int32Array;
  iterations: number;
  /**
   * With `trace: true`: per iteration, the input frontier length and the edges relaxed (the out-degree sum
   * of the frontier; near-far: of its near part, the vertices below the threshold).
   */
  trace?: IterationTrace;
}

/**
 * Frontier Bellman-Ford (Gunrock's SSSP): each iteration relaxes the out-edges of the vertices whose
 * distance improved, with `atomicMin` on the distance, and uniquifies the improved vertices with a bitmap.
 * Distances are u32 words: integer sums (saturating below u32 max) or f32 bits, whose order as u32 is the
 * order of non-negative floats. Weights must be non-negative; without weights every edge weighs 1.
 */
export class SsspProblem {
  readonly distances: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  readonly #improved: FrontierBitmap;
  readonly #space: AdvanceWorkspace;
  readonly #float: boolean;
  /** Near-far only: the near list, the threshold and the smallest deferred distance (distance words). */
  readonly #near: FrontierQueue | undefined;
  readonly #bounds: DeviceArray<'u32'> | undefined;
  /** When set, each step logs its input frontier length and relaxed edges here. */
  log: IterationLog | undefined;

  constructor(
    readonly device: WeftDevice,
    readonly graph: DeviceGraph,
    readonly options: { loadBalance?: LoadBalance; delta?: number } = {},
  ) {
    this.#float = graph.weights?.type === 'f32';
    const delta = options.delta;
    if (delta !== undefined) {
      if (!(delta > 0) || !Number.isFinite(delta) || (!this.#float && !Number.isInteger(delta))) {
        throw new InputError(
          `delta must be a positive ${this.#float ? 'number' : 'integer'}, got ${delta}`,
          'delta',
        );
      }
      this.#near = new FrontierQueue(device, graph.vertexCount, { label: 'sssp near' });
      this.#bounds = device.array('u32', 2, { label: 'sssp threshold' });
    }
    this.distances = device.array('u32', Math.max(1, graph.vertexCount), { label: 'sssp distances' });
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'sssp frontier' });
    this.#improved = new FrontierBitmap(device, graph.vertexCount, 'sssp improved');
    this.#space = new AdvanceWorkspace(device, this.queue.capacity);
  }

  get unreached(): number {
    return this.#float ? UNREACHED_F32 : UNREACHED_U32;
  }

  async reset(rec: Recorder, source: number): Promise<void> {
    checkSource(this.graph, source, 'sssp source');
    await rec.fill(this.distances, this.unreached);
    await recordSet(rec, this.distances, source, 0);
    await this.queue.recordSingle(rec, source);
    if (this.#bounds) await recordSet(rec, this.#bounds, 0, this.#deltaWord(0));
  }

  /** The distance word of `d + delta` (the first threshold), computed on the host. */
  #deltaWord(d: number): number {
    const delta = this.options.delta ?? 0;
    if (!this.#float) return Math.min(d + delta, 0xfffffffe);
    const bits = new Uint32Array(Float32Array.of(d + delta).buffer);
    return bits[0]!;
  }

  /** `(d: u32) -> u32`: distance word `d` plus delta, in the distances' encoding. */
  #addDeltaFunctor() {
    const delta = this.options.delta ?? 0;
    return this.#float
      ? wgsl`(d: u32) -> u32 { return bitcast<u32>(bitcast<f32>(d) + ${f32(delta)}); }`
      : wgsl`(d: u32) -> u32 {
  let s = d + ${u32(delta)};
  return select(s, 0xfffffffeu, s < d || s == 0xffffffffu);
}`;
  }

  /** `(d: u32, e: u32) -> u32`: distance word `d` plus edge `e`'s weight, in the distances' encoding. */
  #addFunctor() {
    const w = this.graph.weights;
    const weight = w ? wgsl`(e: u32) -> u32 { return u32(${w}[e]); }` : wgsl`(e: u32) -> u32 { return 1u; }`;
    return this.#float
      ? wgsl`(d: u32, e: u32) -> u32 { return bitcast<u32>(bitcast<f32>(d) + ${w!}[e]); }`
      : wgsl`(d: u32, e: u32) -> u32 {
  let s = d + ${weight}(e);
  return select(s, 0xfffffffeu, s < d || s == 0xffffffffu);
}`;
  }

  /** Records one iteration; `iteration` (0-based) is needed only with a {@link SsspProblem.log}. */
  async step(rec: Recorder, iteration = 0): Promise<void> {
    const add = this.#addFunctor();
    const dist = atomic(this.distances);
    const relax = wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  let nd = ${add}(atomicLoad(&${dist}[src]), edge);
  if (nd >= atomicLoad(&${dist}[dst])) { return false; }
  return nd < atomicMin(&${dist}[dst], nd);
}`;
    this.#improved.recordClear(rec);
    const loadBalance = this.options.loadBalance ?? 'merge-path';
    if (this.#near && this.#bounds) {
      await this.log?.recordCounts(rec, iteration, this.queue.length, 0);
      await this.#nearFarStep(rec, relax, loadBalance, iteration);
      return;
    }
    await this.log?.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
    await advancePush(rec, this.graph, this.queue.current, relax, {
      output: this.queue.next,
      visited: this.#improved,
      workspace: this.#space,
      loadBalance: advanceBalance(loadBalance),
    });
    this.queue.swap();
  }

  /**
   * Near-far (Davidson et al.'s two-level queue, with the far pile carried in the frontier): vertices of the
   * frontier below the threshold form the near list and are relaxed; the others are deferred into the next
   * frontier as they are. When the near list comes out empty, the threshold moves to the smallest deferred
   * distance plus delta, on the GPU. Fewer re-relaxations than plain Bellman-Ford on weighted graphs.
   */
  async #nearFarStep(
    rec: Recorder,
    relax: Functor,
    loadBalance: LoadBalance,
    iteration: number,
  ): Promise<void> {
    const near = this.#near!;
    const bounds = this.#bounds!;
    const next = this.queue.next;
    rec.clear(near.next.count);
    rec.clear(next.count);
    await recordSet(rec, bounds, 1, 0xffffffff);
    const bit = this.#improved.words;
    await compute(
      rec,
      this.queue.current,
      wgsl`(v: u32) {
  let d = ${this.distances}[v];
  if (d < atomicLoad(&${atomic(bounds)}[0])) {
    let at = atomicAdd(&${atomic(near.next.count)}[0], 1u);
    if (at < ${u32(near.capacity)}) { ${rw(near.next.items)}[at] = v; }
  } else {
    // Deferred: kept once (the bit also stops the advance below from adding it again).
    let mask = 1u << (v & 31u);
    if ((atomicOr(&${atomic(bit)}[v >> 5u], mask) & mask) == 0u) {
      let at = atomicAdd(&${atomic(next.count)}[0], 1u);
      if (at < ${u32(this.queue.capacity)}) { ${rw(next.items)}[at] = v; }
      atomicMin(&${atomic(bounds)}[1], d);
    }
  }
}`,
    );
    near.swap();
    if (this.log)
      await this.log.addDegrees(rec, this.log.slot(iteration).edges, near.current, this.graph.offsets);
    await advancePush(rec, this.graph, near.current, relax, {
      output: next,
      append: true,
      visited: this.#improved,
      workspace: this.#space,
      loadBalance: advanceBalance(loadBalance),
    });
    const nearLength = near.length;
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  if (${nearLength.array}[0] == 0u && ${rw(bounds)}[1] != 0xffffffffu) {
    ${rw(bounds)}[0] = ${this.#addDeltaFunctor()}(${rw(bounds)}[1]);
  }
}`,
    );
    this.queue.swap();
  }

  active(): GpuCount {
    return this.queue.length;
  }

  /** The frontier's capacity, so the enactor can report an overflow (none is expected: appends are unique). */
  get capacity(): number {
    return this.queue.capacity;
  }

  /**
   * Records `parents[v]` = some `u` with a tight edge `u -> v` (-1 where none: the source, unreachable
   * vertices), by one advance over all edges once the distances are final.
   */
  async recordParents(rec: Recorder, parents: DeviceArray<'u32'>, source: number): Promise<void> {
    await rec.fill(parents, 0xffffffff);
    const add = this.#addFunctor();
    const dist = this.distances;
    await advancePush(
      rec,
      this.graph,
      'all',
      wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  let d = ${dist}[src];
  if (dst != ${u32(source)} && d != ${u32(this.unreached)} && ${add}(d, edge) == ${dist}[dst]) {
    // Racing tight edges all store valid parents; an atomic store keeps each write whole.
    atomicStore(&${atomic(parents)}[dst], src);
  }
  return false;
}`,
    );
  }

  async result(): Promise<Float64Array> {
    const n = this.graph.vertexCount;
    const raw = await this.distances.download(0, n);
    const values = this.#float ? new Float32Array(raw.buffer) : raw;
    const out = new Float64Array(n);
    for (let v = 0; v < n; v++) out[v] = raw[v] === this.unreached ? Number.POSITIVE_INFINITY : values[v]!;
    return out;
  }

  destroy(): void {
    this.distances.destroy();
    this.queue.destroy();
    this.#improved.destroy();
    this.#space.destroy();
    this.#near?.destroy();
    this.#bounds?.destroy();
  }
}

/** Single-source shortest paths over non-negative weights (u32, i32 >= 0 or f32; none = 1 per edge). */
export async function sssp(
  device: WeftDevice,
  graph: DeviceGraph,
  source: number,
  options: RunOptions &
    LoadBalanceOption &
    TraceOption & {
      maxIterations?: number;
      parents?: boolean;
      /** Near-far with this bucket width (in weight units) instead of plain Bellman-Ford. */
      delta?: number;
    } = {},
): Promise<SsspResult> {
  checkSource(graph, source, 'sssp source');
  if (graph.weights && !['u32', 'i32', 'f32'].includes(graph.weights.type)) {
    throw new InputError(`unsupported weight type ${graph.weights.type}`, 'graph.weights');
  }
  const loadBalance = await resolveLoadBalance(device, graph, options.loadBalance);
  const problem = new SsspProblem(device, graph, {
    loadBalance,
    ...(options.delta === undefined ? {} : { delta: options.delta }),
  });
  try {
    const rec = device.recorder({ label: 'sssp reset' });
    await problem.reset(rec, source);
    await rec.submit();
    if (options.trace) problem.log = new IterationLog(device);
    const { iterations, trace } = await enactTraced(
      device,
      { step: (r, i) => problem.step(r, i), active: () => problem.active(), capacity: problem.capacity },
      problem.log,
      options,
    );
    const distances = { distances: await problem.result(), iterations, ...(trace ? { trace } : {}) };
    if (!options.parents) return distances;
    const parents = device.array('u32', Math.max(1, graph.vertexCount), { label: 'sssp parents' });
    try {
      const rec = device.recorder({ label: 'sssp parents' });
      await problem.recordParents(rec, parents, source);
      await rec.submit();
      const raw = await parents.download(0, graph.vertexCount);
      return { ...distances, parents: new Int32Array(raw.buffer, raw.byteOffset, raw.length) };
    } finally {
      parents.destroy();
    }
  } finally {
    problem.log?.destroy();
    problem.destroy();
  }
}
