import { atomic, type DeviceArray, type Functor, InputError, type Recorder, u32, wgsl } from '@weft/gpu';
import { type DeviceGraph, FrontierBitmap, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  type IterationLog,
  type IterationTrace,
  resolveLoadBalance,
} from '@weft/operators';
import {
  checkSource,
  type LoadBalanceOption,
  type Problem,
  prepareLoadBalance,
  type RunOptions,
  recordSet,
  runProblem,
  type TraceOption,
} from '../common.ts';
import { NearFarStep, type SsspState } from './near-far.ts';

/** Unreached distance as stored: u32 max for integer weights, the bits of +Infinity for f32 weights. */
const UNREACHED_U32 = 0xffffffff;
const UNREACHED_F32 = 0x7f800000;

export interface SsspOptions extends RunOptions, LoadBalanceOption, TraceOption {
  maxIterations?: number;
  /** Also record a shortest-path tree (see {@link SsspResult.parents}). */
  parents?: boolean;
  /** Near-far with this bucket width (in weight units) instead of plain Bellman-Ford. */
  delta?: number;
}

export type SsspProblemOptions = Pick<SsspOptions, 'loadBalance' | 'delta' | 'parents'>;

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
 * Frontier Bellman-Ford (Gunrock's SSSP):
 *
 *     dist[source] = 0; frontier = { source }
 *     while frontier is not empty:
 *       for each edge (u, v, w) with u in frontier:   advancePush
 *         if dist[u] + w < dist[v]: dist[v] = ...     atomicMin
 *           v joins the next frontier once           a visited bitmap uniquifies
 *
 * Distances are u32 words: integer sums (saturating below u32 max) or f32 bits, whose order as u32 is the
 * order of non-negative floats. Weights must be non-negative; without weights every edge weighs 1. With
 * `delta`, each iteration relaxes only the near part of the frontier (`./near-far.ts`).
 */
export class SsspProblem implements SsspState, Problem<Omit<SsspResult, 'iterations' | 'trace'>, [number]> {
  readonly distances: DeviceArray<'u32'>;
  readonly parents: DeviceArray<'u32'> | undefined;
  readonly queue: FrontierQueue;
  readonly improved: FrontierBitmap;
  readonly workspace: AdvanceWorkspace;
  readonly loadBalance;
  readonly float: boolean;
  readonly #nearFar: NearFarStep | undefined;
  #source = 0;
  log: IterationLog | undefined;

  /** `options.loadBalance` `'auto'` (default) needs the graph's largest out-degree known. */
  constructor(
    readonly graph: DeviceGraph,
    options: SsspProblemOptions = {},
  ) {
    const device = graph.device;
    this.float = graph.weights?.type === 'f32';
    const delta = options.delta;
    if (delta !== undefined) {
      if (!(delta > 0) || !Number.isFinite(delta) || (!this.float && !Number.isInteger(delta))) {
        throw new InputError(
          `delta must be a positive ${this.float ? 'number' : 'integer'}, got ${delta}`,
          'delta',
        );
      }
    }
    this.loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
    const n = Math.max(1, graph.vertexCount);
    this.distances = device.array('u32', n, { label: 'sssp distances' });
    this.parents = options.parents ? device.array('u32', n, { label: 'sssp parents' }) : undefined;
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'sssp frontier' });
    this.improved = new FrontierBitmap(device, graph.vertexCount, 'sssp improved');
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
    this.#nearFar = delta === undefined ? undefined : new NearFarStep(this, delta);
  }

  get unreached(): number {
    return this.float ? UNREACHED_F32 : UNREACHED_U32;
  }

  /** Records the start from `source` (a vertex: the caller checks). */
  async reset(rec: Recorder, source: number): Promise<void> {
    this.#source = source;
    await rec.fill(this.distances, this.unreached);
    await recordSet(rec, this.distances, source, 0);
    await this.queue.recordSingle(rec, source);
    await this.#nearFar?.reset(rec);
  }

  /** `(d: u32, e: u32) -> u32`: distance word `d` plus edge `e`'s weight, in the distances' encoding. */
  #addFunctor(): Functor {
    const w = this.graph.weights;
    const weight = w ? wgsl`(e: u32) -> u32 { return u32(${w}[e]); }` : wgsl`(e: u32) -> u32 { return 1u; }`;
    return this.float
      ? wgsl`(d: u32, e: u32) -> u32 { return bitcast<u32>(bitcast<f32>(d) + ${w!}[e]); }`
      : wgsl`(d: u32, e: u32) -> u32 {
  let s = d + ${weight}(e);
  return select(s, 0xfffffffeu, s < d || s == 0xffffffffu);
}`;
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const add = this.#addFunctor();
    const dist = atomic(this.distances);
    const relax = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let nd = ${add}(atomicLoad(&${dist}[src]), edge);
  if (nd >= atomicLoad(&${dist}[dst])) { return false; }
  return nd < atomicMin(&${dist}[dst], nd);
}`;
    this.improved.recordClear(rec);
    if (this.#nearFar) {
      await this.#nearFar.step(rec, iteration, relax);
    } else {
      await this.log?.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
      await advancePush(rec, this.graph, this.queue.current, relax, {
        output: this.queue.next,
        visited: this.improved,
        workspace: this.workspace,
        loadBalance: this.loadBalance,
      });
    }
    this.queue.swap();
  }

  active() {
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
      wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let d = ${dist}[src];
  if (dst != ${u32(source)} && d != ${u32(this.unreached)} && ${add}(d, edge) == ${dist}[dst]) {
    // Racing tight edges all store valid parents; an atomic store keeps each write whole.
    atomicStore(&${atomic(parents)}[dst], src);
  }
  return false;
}`,
    );
  }

  /** The distances (and, with `parents`, the tree: one more advance over all edges, then its read-back). */
  async result(): Promise<{ distances: Float64Array; parents?: Int32Array }> {
    const n = this.graph.vertexCount;
    const raw = await this.distances.download(0, n);
    const values = this.float ? new Float32Array(raw.buffer) : raw;
    const distances = new Float64Array(n);
    for (let v = 0; v < n; v++)
      distances[v] = raw[v] === this.unreached ? Number.POSITIVE_INFINITY : values[v]!;
    if (!this.parents) return { distances };
    const rec = this.graph.device.recorder({ label: 'sssp parents' });
    await this.recordParents(rec, this.parents, this.#source);
    await rec.submit();
    const tree = await this.parents.download(0, n);
    return { distances, parents: new Int32Array(tree.buffer, tree.byteOffset, tree.length) };
  }

  destroy(): void {
    this.distances.destroy();
    this.parents?.destroy();
    this.queue.destroy();
    this.improved.destroy();
    this.workspace.destroy();
    this.#nearFar?.destroy();
  }
}

/** Single-source shortest paths over non-negative weights (u32, i32 >= 0 or f32; none = 1 per edge). */
export async function sssp(
  graph: DeviceGraph,
  source: number,
  options: SsspOptions = {},
): Promise<SsspResult> {
  checkSource(graph, source);
  if (graph.weights && !['u32', 'i32', 'f32'].includes(graph.weights.type)) {
    throw new InputError(`unsupported weight type ${graph.weights.type}`, 'graph.weights');
  }
  await prepareLoadBalance(graph, options.loadBalance);
  const problem = new SsspProblem(graph, options);
  const run = await runProblem(graph, problem, (rec) => problem.reset(rec, source), options);
  return { ...run.result, iterations: run.iterations, ...(run.trace ? { trace: run.trace } : {}) };
}
