import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  Functor,
  InputError,
  load,
  plus,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, FrontierBitmap, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  advanceSmallFrontier,
  checkLoadBalance,
  type IterationLog,
  type IterationTrace,
  isNeighborGraph,
  type NeighborGraph,
  resolveLoadBalance,
  SmallFrontierState,
  smallFrontierFits,
} from '@weft/operators';
import { reduce } from '@weft/scan';
import { prefersBitmapClaims } from '../bfs/bitmap-claims.ts';
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
import { ssspOnNeighbors } from '../neighbor-graph.ts';
import { checkNonNegativeWeights, SATURATED_F32 } from '../weights.ts';
import { type SsspBlocks, type SsspBlocksTuning, searchBlocks, searchStrategy } from './blocks.ts';
import { UNREACHED_F32, UNREACHED_U32 } from './decode.ts';
import { type DistanceDecode, readDistances } from './encode.ts';
import { addDeltaFunctor, checkDelta, davidsonDelta, deltaWord, NearFarStep } from './near-far.ts';
import type { SsspEngineTuning } from './near-far-engine.ts';
import { NearFarEngineStep } from './near-far-engine.ts';

export interface SsspOptions extends RunOptions, LoadBalanceOption, TraceOption {
  /** Most enactor steps to run (see {@link SsspResult.steps}: with the engine a step runs many levels). */
  maxIterations?: number;
  /** Also record a shortest-path tree (see {@link SsspResult.parents}). */
  parents?: boolean;
  /**
   * Near-far with this bucket width (in weight units) instead of plain Bellman-Ford. `'auto'` (default):
   * {@link ssspDelta}'s width where the small-frontier engine runs on a weighted graph, else Bellman-Ford
   * (on a `NeighborGraph`: Davidson's width where its average out-degree is below 8, as the engine's
   * `'auto'`); `'off'`: always Bellman-Ford.
   */
  delta?: number | 'auto' | 'off';
  /**
   * The small-frontier engine (`advanceSmallFrontier`), as BFS's option: each step first relaxes as many
   * levels as fit in one workgroup, then runs a bulk level on the frontier it leaves. `'auto'` (default): on
   * for sparse graphs (fewer than 8 out-edges a vertex, where BFS's `claim: 'auto'` takes depth claims and
   * runs the engine) unless `trace` is set. `'on'` forces it, `'off'` never runs it; an object is `'on'`
   * with the engine's `capacity` (a multiple of 256) and `maxLevels` per dispatch. With near-far the engine
   * relaxes the near levels and a functor sends farther improvements to the far queue; while the far queue
   * is small the engine also moves the threshold itself (see {@link SsspEngineTuning}).
   */
  smallFrontier?: 'auto' | 'on' | 'off' | SsspEngineTuning;
  /**
   * Each arc's weight computed by a WGSL edge functor `(src: u32, dst: u32, edge: u32) -> u32` instead of
   * read from `graph.weights` (which may then be absent): no weight array is bound, so a graph whose targets
   * take most of a stage's storage buffers still runs. Give both arcs of an undirected edge the same weight.
   * `delta: 'auto'` then means Bellman-Ford.
   */
  weight?: Functor;
  /**
   * How the distances are found. `'frontier'`: frontier Bellman-Ford or near-far (the options above).
   * `'blocks'`: block-local relaxation ({@link SsspBlocks}): the vertices grouped into compact blocks once,
   * then rounds of one workgroup a block that relaxes its block to a fixed point in workgroup memory and
   * pushes across the block's boundary; for high-diameter graphs (roads, meshes). It reads `graph.weights`
   * (no `weight` functor), has no `parents` or `trace`, and ignores the frontier options. `'auto'`
   * (default): `'blocks'` on sparse graphs (under 8 out-edges a vertex, targets in one chunk, `smallFrontier`
   * and `delta` left unset) from the second call on the same graph, with blocks prepared once and kept until
   * `graph.destroy()`; otherwise `'frontier'`.
   * A single call would not repay the preparation (tens of ms on the host against a few ms of search).
   */
  strategy?: 'auto' | 'frontier' | 'blocks';
  /**
   * With `strategy: 'blocks'`: the block sizes, or blocks already prepared for this graph
   * (`SsspBlocks.prepare`), which a run from many sources should pass to prepare them once.
   */
  blocks?: SsspBlocksTuning | SsspBlocks;
  /**
   * Where the distance words become the result's numbers: `'device'` (default) a kernel writes their f64
   * words, read straight into the result (the host decodes where they would not fit one binding); `'host'`
   * a JS loop over the words read back.
   */
  decode?: DistanceDecode;
}

/** The problem's options: `delta` is a width or absent (Bellman-Ford); see {@link resolveSsspOptions}. */
export type SsspProblemOptions = Pick<
  SsspOptions,
  'loadBalance' | 'parents' | 'smallFrontier' | 'weight' | 'decode'
> & {
  delta?: number;
};

export interface SsspResult {
  /** Distances from the source; `Infinity` where unreachable. */
  distances: Float64Array;
  /**
   * With `parents: true`: a shortest-path tree, `parents[v]` a vertex whose edge to `v` is tight (-1 for the
   * source and unreachable vertices). With zero-weight edges, equal-distance vertices may point at each other.
   */
  parents?: Int32Array;
  /**
   * Relaxation levels: rounds in which a frontier's out-edges were relaxed and the improved vertices formed
   * the next frontier (the last one improving nothing). Without the small-frontier engine one per step;
   * with it, the engine's levels plus the bulk levels that had a frontier. With `strategy: 'blocks'`: the
   * rounds, the last one flagging no block.
   */
  iterations: number;
  /**
   * Enactor steps the run took: `iterations`, or fewer where the small-frontier engine ran several levels
   * in one step. A replay of `SsspProblem.step` needs about this many (the order of atomics may vary it);
   * with blocks, the rounds again (`SsspBlocksProblem.step`).
   */
  steps: number;
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
 * `delta`, each iteration relaxes only the near part of the frontier (`./near-far.ts`). With the
 * small-frontier engine a step runs many levels in one workgroup while the frontier is small (where a vertex
 * joins a level once by a per-vertex level stamp, not the bitmap), then one bulk level on what it leaves.
 */
export class SsspProblem
  implements Problem<Omit<SsspResult, 'iterations' | 'steps' | 'trace'> & { levels?: number }, [number]>
{
  readonly distances: DeviceArray<'u32'>;
  readonly parents: DeviceArray<'u32'> | undefined;
  readonly queue: FrontierQueue;
  readonly improved: FrontierBitmap;
  readonly workspace: AdvanceWorkspace;
  readonly loadBalance;
  readonly float: boolean;
  readonly #weight: Functor | undefined;
  readonly #decode: DistanceDecode | undefined;
  readonly #nearFar: NearFarStep | NearFarEngineStep | undefined;
  /**
   * The small-frontier engine, when it runs: its settings, its state, `[bulk levels, all levels]`, and per
   * vertex the index of the last engine level it was added to plus one.
   */
  readonly smallFrontier:
    | {
        tuning: SsspEngineTuning;
        state: SmallFrontierState;
        levels: DeviceArray<'u32'>;
        stamps: DeviceArray<'u32'>;
      }
    | undefined;
  #source = 0;
  log: IterationLog | undefined;

  /** `options.loadBalance` `'auto'` (default) needs the graph's largest out-degree known. */
  constructor(
    readonly graph: DeviceGraph,
    options: SsspProblemOptions = {},
  ) {
    checkOptionsObject('new SsspProblem', options);
    const device = graph.device;
    this.#weight = options.weight;
    this.#decode = options.decode;
    this.float = options.weight === undefined && graph.chunkedWeights?.type === 'f32';
    const delta = options.delta;
    if (delta !== undefined) checkDelta(delta, this.float);
    this.loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
    const n = Math.max(1, graph.vertexCount);
    this.distances = device.array('u32', n, { label: 'sssp distances' });
    this.parents = options.parents ? device.array('u32', n, { label: 'sssp parents' }) : undefined;
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'sssp frontier' });
    this.improved = new FrontierBitmap(device, graph.vertexCount, 'sssp improved');
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
    const tuning = smallFrontierOf(graph, options);
    this.smallFrontier = tuning && {
      tuning,
      state: new SmallFrontierState(device, { label: 'sssp small frontier' }),
      levels: device.array('u32', 2, { label: 'sssp levels' }),
      stamps: device.array('u32', n, { label: 'sssp level stamps' }),
    };
    if (delta === undefined) {
      this.#nearFar = undefined;
    } else if (this.smallFrontier) {
      this.#nearFar = new NearFarEngineStep(
        this,
        this.smallFrontier,
        this.#addFunctor(),
        addDeltaFunctor(this.float, delta),
        deltaWord(this.float, delta, 0),
      );
    } else {
      this.#nearFar = new NearFarStep(this, delta);
    }
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
    if (this.smallFrontier) {
      await this.smallFrontier.state.recordReset(rec);
      rec.clear(this.smallFrontier.levels);
      rec.clear(this.smallFrontier.stamps);
    }
  }

  /**
   * `(d: u32, src: u32, dst: u32, e: u32) -> u32`: distance word `d` plus the weight of edge `e` from `src`
   * to `dst`, in the distances' encoding.
   */
  #addFunctor(): Functor {
    const w = this.graph.chunkedWeights;
    const weight = this.#weight
      ? wgsl`(src: u32, dst: u32, e: u32) -> u32 { return ${this.#weight}(src, dst, e); }`
      : w
        ? wgsl`(src: u32, dst: u32, e: u32) -> u32 { return u32(${load(w, 'e')}); }`
        : wgsl`(src: u32, dst: u32, e: u32) -> u32 { return 1u; }`;
    // Sums saturate one below the unreached word, so an overflow reads as reached and `result` reports it.
    return this.float
      ? wgsl`(d: u32, src: u32, dst: u32, e: u32) -> u32 {
  let s = bitcast<u32>(bitcast<f32>(d) + ${load(w!, 'e')});
  return select(s, ${u32(SATURATED_F32)}, s >= ${u32(UNREACHED_F32)});
}`
      : wgsl`(d: u32, src: u32, dst: u32, e: u32) -> u32 {
  let s = d + ${weight}(src, dst, e);
  return select(s, 0xfffffffeu, s < d || s == 0xffffffffu);
}`;
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const add = this.#addFunctor();
    const dist = atomic(this.distances);
    const relax = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let nd = ${add}(atomicLoad(&${dist}[src]), src, dst, edge);
  if (nd >= atomicLoad(&${dist}[dst])) { return false; }
  return nd < atomicMin(&${dist}[dst], nd);
}`;
    this.improved.recordClear(rec);
    if (this.#nearFar instanceof NearFarEngineStep) {
      await this.#nearFar.step(rec);
    } else if (this.#nearFar) {
      await this.#nearFar.step(rec, iteration, relax);
    } else if (this.smallFrontier) {
      await this.#smallStep(rec, add, relax);
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

  /**
   * The engine's levels on `queue.current` in place, then one bulk level on the frontier it left (an
   * overflowing level's output, a level bound's frontier, or one too large to start with), then a count of
   * that bulk level if it had any vertex.
   */
  async #smallStep(rec: Recorder, add: Functor, relax: Functor): Promise<void> {
    const { tuning, state, levels, stamps } = this.smallFrontier!;
    const dist = atomic(this.distances);
    // An improved vertex joins level `level + 1` once: the first improver to raise its stamp adds it, and
    // every later improvement in the level is read when that level relaxes it (levels are separated by
    // barriers). This keeps a level's output within the queue's `vertexCount` entries.
    // One atomic and no plain load first, as BFS's engine claims: a load would add a round trip to each
    // level's critical path.
    const stamped = wgsl`(src: u32, dst: u32, edge: u32, level: u32) -> bool {
  let nd = ${add}(atomicLoad(&${dist}[src]), src, dst, edge);
  if (nd >= atomicMin(&${dist}[dst], nd)) { return false; }
  return atomicMax(&${atomic(stamps)}[dst], level + 1u) <= level;
}`;
    await advanceSmallFrontier(rec, this.graph, this.queue.current, stamped, {
      state,
      withLevel: true,
      ...tuning,
    });
    await advancePush(rec, this.graph, this.queue.current, relax, {
      output: this.queue.next,
      visited: this.improved,
      workspace: this.workspace,
      loadBalance: this.loadBalance,
    });
    await state.recordLevelCount(rec, levels);
  }

  active() {
    return this.#nearFar instanceof NearFarEngineStep ? this.#nearFar.active() : this.queue.length;
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
  if (dst != ${u32(source)} && d != ${u32(this.unreached)} && ${add}(d, src, dst, edge) == ${dist}[dst]) {
    // Racing tight edges all store valid parents; an atomic store keeps each write whole.
    atomicStore(&${atomic(parents)}[dst], src);
  }
  return false;
}`,
    );
  }

  /** The distances (and, with `parents`, the tree: one more advance over all edges, then its read-back). */
  async result(): Promise<{ distances: Float64Array; parents?: Int32Array; levels?: number }> {
    const n = this.graph.vertexCount;
    if (this.parents) {
      const rec = this.graph.device.recorder({ label: 'sssp parents' });
      await this.recordParents(rec, this.parents, this.#source);
      await rec.submit({ wait: false });
    }
    // Read back together: one wait for the GPU instead of one per array.
    const [distances, levelWords, tree] = await Promise.all([
      readDistances(this.distances, n, this.float, { decode: this.#decode }),
      this.smallFrontier?.levels.download(1, 1),
      this.parents?.download(0, n),
    ]);
    const levels = levelWords?.[0];
    const counted = levels === undefined ? {} : { levels };
    if (!tree) return { distances, ...counted };
    return { distances, parents: new Int32Array(tree.buffer, tree.byteOffset, tree.length), ...counted };
  }

  destroy(): void {
    this.distances.destroy();
    this.parents?.destroy();
    this.queue.destroy();
    this.improved.destroy();
    this.workspace.destroy();
    this.#nearFar?.destroy();
    this.smallFrontier?.state.destroy();
    this.smallFrontier?.levels.destroy();
    this.smallFrontier?.stamps.destroy();
  }
}

/** The small-frontier engine's settings when the run uses it (undefined: it does not); checks the mode. */
function smallFrontierOf(graph: DeviceGraph, options: SsspProblemOptions): SsspEngineTuning | undefined {
  const mode = options.smallFrontier ?? 'auto';
  if (mode === 'off') return undefined;
  // 'auto': the graphs where BFS's 'auto' runs the engine, sparse ones, whose frontiers stay small; not a
  // graph stored in chunks, whose every chunk the engine binds ('on' runs where the stage has the buffers).
  if (mode === 'auto') {
    const fits = smallFrontierFits(graph.device) && !graph.chunked;
    return prefersBitmapClaims(graph) || !fits ? undefined : {};
  }
  return typeof mode === 'object' ? mode : {};
}

/**
 * Davidson et al.'s bucket width for near-far of a CSR (warp width 32 times the mean edge weight over the
 * mean out-degree): the mean weight measured on the GPU once per graph (one read-back) and kept.
 */
export async function ssspDelta(graph: DeviceGraph): Promise<number> {
  checkDeviceGraph(graph);
  const known = deltas.get(graph);
  if (known !== undefined) return known;
  const m = graph.edgeCount;
  const w = graph.chunkedWeights;
  let mean = 1;
  if (w && m > 0) {
    const device = graph.device;
    // Chunk by chunk through one chunk's worth of scratch: an edge-sized array would exceed one binding.
    const chunks = w.chunks;
    const values = device.array('f32', chunks.length > 1 ? chunks[0]!.length : m, {
      label: 'sssp weights as f32',
    });
    const partial =
      chunks.length > 1 ? device.array('f32', chunks.length, { label: 'sssp chunk sums' }) : undefined;
    const total = device.array('f32', 1, { label: 'sssp weight sum' });
    try {
      const rec = device.recorder({ label: 'sssp mean weight' });
      if (partial === undefined) {
        await transform(rec, m, wgsl`(e: u32) { ${rw(values)}[e] = f32(${load(w, 'e')}); }`);
        await reduce(rec, values, total, { monoid: plus('f32') });
      } else {
        for (const [c, chunk] of chunks.entries()) {
          await transform(rec, chunk.length, wgsl`(e: u32) { ${rw(values)}[e] = f32(${chunk}[e]); }`);
          await reduce(
            rec,
            values,
            { array: partial, index: c },
            { monoid: plus('f32'), count: chunk.length },
          );
        }
        await reduce(rec, partial, total, { monoid: plus('f32') });
      }
      await rec.submit();
      mean = (await total.download())[0]! / m;
    } finally {
      values.destroy();
      partial?.destroy();
      total.destroy();
    }
  }
  const delta = davidsonDelta(mean, m / Math.max(1, graph.vertexCount), w?.type === 'f32');
  deltas.set(graph, delta);
  return delta;
}

const deltas = new WeakMap<DeviceGraph, number>();

/**
 * `options` with `delta` resolved as `sssp` resolves it: `'auto'` becomes {@link ssspDelta}'s width where
 * the engine runs on a weighted graph (else Bellman-Ford), `'off'` Bellman-Ford. Measures the graph's
 * largest out-degree and mean weight when they are needed and unknown.
 */
export async function resolveSsspOptions(
  graph: DeviceGraph,
  options: SsspOptions,
): Promise<SsspProblemOptions> {
  checkOptionsObject('resolveSsspOptions', options, true);
  await prepareLoadBalance(graph, options.loadBalance);
  const { delta, ...rest } = options;
  if (delta === 'off') return rest;
  if (delta !== undefined && delta !== 'auto') return { ...rest, delta };
  if (!graph.chunkedWeights || rest.weight || smallFrontierOf(graph, rest) === undefined) return rest;
  return { ...rest, delta: await ssspDelta(graph) };
}

/** Single-source shortest paths over non-negative weights (u32, i32 >= 0 or f32; none = 1 per edge). */
export async function sssp(
  graph: DeviceGraph | NeighborGraph,
  source: number,
  options: SsspOptions = {},
): Promise<SsspResult> {
  checkOptionsObject('sssp', options);
  if (isNeighborGraph(graph)) {
    if (options.strategy === 'blocks') {
      throw new InputError('block-local SSSP needs a DeviceGraph (from uploadGraph)', 'strategy');
    }
    checkSource(graph, source);
    return ssspOnNeighbors(graph, source, options);
  }
  checkDeviceGraph(graph);
  checkSource(graph, source);
  // Anything else would reach the WGSL as text and fail there as a shader compile error.
  if (options.weight !== undefined && !(options.weight instanceof Functor)) {
    throw new InputError(
      'weight must be a wgsl edge functor (src: u32, dst: u32, edge: u32) -> u32',
      'weight',
    );
  }
  const strategy = ssspStrategy(graph, options);
  const weights = graph.chunkedWeights;
  if (weights && !['u32', 'i32', 'f32'].includes(weights.type)) {
    throw new InputError(`unsupported weight type ${weights.type}`, 'graph.weights');
  }
  if (options.weight === undefined) await checkNonNegativeWeights(graph, 'SSSP');
  if (strategy === 'blocks') {
    // Blocks run no advance, so nothing else refuses a loadBalance typo on this path.
    checkLoadBalance(options.loadBalance);
    return ssspByBlocks(graph, source, options);
  }
  // A trace logs one frontier a step: the engine, which runs many levels a step, stays off for it.
  const mode = options.smallFrontier ?? 'auto';
  if (options.trace && mode !== 'auto' && mode !== 'off') {
    throw new InputError('a traced SSSP logs every level: leave smallFrontier off', 'smallFrontier');
  }
  const resolved = await resolveSsspOptions(
    graph,
    options.trace ? { ...options, smallFrontier: 'off' } : options,
  );
  const problem = new SsspProblem(graph, resolved);
  const run = await runProblem(graph, problem, (rec) => problem.reset(rec, source), options);
  const { levels, ...result } = run.result;
  return {
    ...result,
    iterations: levels ?? run.iterations,
    steps: run.iterations,
    ...(run.trace ? { trace: run.trace } : {}),
  };
}

/**
 * The strategy `sssp` runs; throws on an unknown one, or on `'blocks'` with an option it does not have.
 * `'auto'` picks blocks on sparse graphs from the second call on the same graph, and keeps them with it.
 */
function ssspStrategy(graph: DeviceGraph, options: SsspOptions): 'frontier' | 'blocks' {
  const refused = (['parents', 'trace', 'weight'] as const).find((option) => options[option]);
  // Blocks ignore the frontier's options when asked for; 'auto' leaves them to the frontier path.
  const frontierAsked = options.delta !== undefined || (options.smallFrontier ?? 'auto') !== 'auto';
  return searchStrategy(graph, options.strategy ?? 'auto', false, refused, frontierAsked);
}

/** `sssp` by block-local rounds ({@link searchBlocks}). */
async function ssspByBlocks(graph: DeviceGraph, source: number, options: SsspOptions): Promise<SsspResult> {
  const auto = (options.strategy ?? 'auto') === 'auto';
  const { blocks, ...run } = options;
  const { distances, rounds } = await searchBlocks(
    graph,
    source,
    { auto, unitWeights: false, decode: options.decode, ...(blocks ? { blocks } : {}) },
    run,
  );
  return { distances, iterations: rounds, steps: rounds };
}
