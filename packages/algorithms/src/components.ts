import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type GpuCount,
  InputError,
  load,
  type Recorder,
  rw,
  transform,
  u32,
  WeftError,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, FrontierBitmap, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  advanceSmallFrontier,
  Cascade,
  DisjointSets,
  type IterationLog,
  type IterationTrace,
  isNeighborGraph,
  type LoadBalance,
  type NeighborGraph,
  resolveLoadBalance,
  SmallFrontierState,
} from '@weft/operators';
import type { SmallFrontierTuning } from './bfs/options.ts';
import {
  type LoadBalanceOption,
  type Problem,
  prepareLoadBalance,
  type RunOptions,
  runProblem,
  type TraceOption,
} from './common.ts';
import { componentsOnNeighbors } from './neighbor-graph.ts';
import { countRoots } from './roots.ts';

export interface ComponentsResult {
  /** Each vertex's component, named by its smallest vertex id. */
  labels: Uint32Array;
  count: number;
  /**
   * Label propagation's iterations (levels: rounds in which the vertices whose label dropped pushed it on;
   * with the cascade, its steps); 1 for union-find (one link pass and one compression).
   */
  iterations: number;
  /**
   * Enactor steps the run took: `iterations`, or fewer where the small-frontier engine ran several levels
   * in one step. A replay of `ComponentsProblem.step` needs about this many (the order of atomics may vary it).
   */
  steps: number;
  /**
   * With `trace: true`: per iteration, the vertices whose label changed and their out- (and in-) degrees;
   * union-find's one iteration counts every vertex and every CSR arc.
   */
  trace?: IterationTrace;
}

export type ComponentsAlgorithm = 'union-find' | 'label-propagation';

export interface ComponentsOptions extends RunOptions, LoadBalanceOption, TraceOption {
  /**
   * `'union-find'` (default): one linking pass over the edges and a compression pass, whatever the graph's
   * diameter. `'label-propagation'`: iterations until no label changes, about the diameter (a 1024 x 1024
   * grid takes ~2,000).
   */
  algorithm?: ComponentsAlgorithm;
  /** Label propagation's push advances (union-find always balances over all edges); default `'auto'`. */
  loadBalance?: LoadBalance;
  /**
   * How label propagation runs many levels a dispatch. `'auto'` (default): where the graph's targets are in
   * one array, a `Cascade` along out- and in-edges (each workgroup carries the lowered labels it finds as far
   * as its queue allows, and a step restarts what overflowed on every workgroup; a few steps where bulk
   * levels take about the diameter), else bulk levels. `'on'`: the small-frontier engine (`advanceSmallFrontier`), as
   * BFS's option: each step first runs as many levels as fit in one workgroup, then a bulk level on the
   * frontier it leaves; a directed graph's engine walks each vertex's out- and in-edges. `'off'`: bulk
   * levels only; an object is `'on'` with the engine's `capacity` (a multiple of 256) and `maxLevels` per
   * dispatch, for tests of the hand-off. Forcing the engine for union-find or with `trace` is an
   * `InputError`; a traced run takes bulk levels.
   */
  smallFrontier?: 'auto' | 'on' | 'off' | SmallFrontierTuning;
}

/** The options a {@link ComponentsProblem} is built with (the rest of {@link ComponentsOptions} are per run). */
export type ComponentsProblemOptions = Pick<ComponentsOptions, 'algorithm' | 'loadBalance' | 'smallFrontier'>;

/** The algorithm asked for (default union-find), if it can run on `graph`. */
function checkAlgorithm(graph: DeviceGraph, algorithm: ComponentsAlgorithm | undefined): ComponentsAlgorithm {
  const a = algorithm ?? 'union-find';
  if (a !== 'union-find' && a !== 'label-propagation') {
    throw new InputError(`algorithm must be 'union-find' or 'label-propagation', got '${a}'`, 'algorithm');
  }
  if (a === 'label-propagation' && graph.directed && !graph.csc) {
    throw new InputError(
      'label propagation on a directed graph needs its in-edges: uploadGraph(..., { csc: true })',
      'graph',
    );
  }
  return a;
}

/** The small-frontier engine's settings when label propagation runs it (undefined: it does not). */
function smallFrontierOf(
  algorithm: ComponentsAlgorithm,
  options: ComponentsProblemOptions,
): SmallFrontierTuning | undefined {
  const mode = options.smallFrontier ?? 'auto';
  if (mode === 'off') return undefined;
  // 'auto' leaves the engine off: labels start as vertex ids, so most of a road network stays active for most
  // levels and the engine's extra dispatches a step cost more than its small levels save (measured on GPUs).
  if (mode === 'auto') return undefined;
  if (algorithm !== 'label-propagation') {
    throw new InputError(
      `the small-frontier engine runs label propagation; ${algorithm} was asked`,
      'smallFrontier',
    );
  }
  return typeof mode === 'object' ? mode : {};
}

/**
 * One workgroup samples 1,024 vertices' labels (a multiplicative hash spreads them over the ids) and writes
 * the most common one: each thread counts the matches of its four samples among all of them, and the largest
 * count wins (ties to the sample of smallest index).
 */
const SAMPLE_WGSL = /* wgsl */ `
const SAMPLES = 1024u;
const WG = 256u;
var<workgroup> sampled: array<u32, SAMPLES>;
var<workgroup> best: atomic<u32>;

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  for (var j = 0u; j < 4u; j++) {
    let s = lid * 4u + j;
    sampled[s] = labels[(s * 2654435761u) % params.n];
  }
  workgroupBarrier();
  for (var j = 0u; j < 4u; j++) {
    let s = lid * 4u + j;
    var count = 0u;
    for (var t = 0u; t < SAMPLES; t++) { count += select(0u, 1u, sampled[t] == sampled[s]); }
    atomicMax(&best, (count << 11u) | (SAMPLES - 1u - s));
  }
  workgroupBarrier();
  if (lid == 0u) { giant[0] = sampled[SAMPLES - 1u - (atomicLoad(&best) & 2047u)]; }
}`;

/**
 * Weakly connected components. Union-find (ECL-CC, Afforest): every vertex starts as its own root; one
 * advance over all edges links the roots of each edge's ends, always hooking the larger root under the
 * smaller with a compare-exchange (lock-free: a failed exchange means another invocation linked), so each
 * root stays its tree's smallest vertex; a compression pass then points every vertex at its root. An
 * undirected graph links only its arcs with src < dst; a directed one links every arc (no CSC needed).
 *
 * Label propagation: every vertex starts with its own id; each iteration pushes the labels of the vertices
 * that changed to their neighbors with `atomicMin` (both edge directions of a directed graph, which needs its
 * CSC), until no label changes. Converges in about the diameter. With the small-frontier engine the first
 * steps stay bulk (every vertex starts active), and once the vertices whose label dropped fit one workgroup
 * a step runs the remaining levels in one dispatch, returning to a bulk level whenever a level outgrows it.
 */
export class ComponentsProblem implements Problem<{ labels: Uint32Array; count: number; levels?: number }> {
  readonly labels: DeviceArray<'u32'>;
  readonly algorithm: ComponentsAlgorithm;
  /** Label propagation's frontier (undefined for union-find and for the cascade). */
  readonly queue: FrontierQueue | undefined;
  readonly #changed: FrontierBitmap | undefined;
  readonly #space: AdvanceWorkspace | undefined;
  /** Union-find's `active` word: always 0, since its first step finishes the run. */
  readonly #done: DeviceArray<'u32'> | undefined;
  readonly #loadBalance: Exclude<LoadBalance, 'auto'>;
  /** Union-find's sets over `labels` (undefined for label propagation). */
  readonly #sets: DisjointSets | undefined;
  /** Label propagation as one cascade along both directions (`smallFrontier: 'auto'`). */
  readonly #cascade: Cascade | undefined;
  /** Whether label propagation runs as a cascade: its step count then varies with timing from run to run. */
  get cascaded(): boolean {
    return this.#cascade !== undefined;
  }
  /**
   * Union-find on an undirected graph (Afforest): the vertices outside the sampled largest component, whose
   * remaining edges are linked last, with the advance's workspace and the sampled component's label.
   */
  readonly #afforest:
    | { queue: FrontierQueue; space: AdvanceWorkspace; giant: DeviceArray<'u32'> }
    | undefined;
  /**
   * The small-frontier engine, when label propagation runs it: its settings, its state, `[bulk levels, all
   * levels]`, and per vertex the index of the last engine level it was added to plus one.
   */
  readonly smallFrontier:
    | {
        tuning: SmallFrontierTuning;
        state: SmallFrontierState;
        levels: DeviceArray<'u32'>;
        stamps: DeviceArray<'u32'>;
      }
    | undefined;
  /** When set, each step logs its input frontier length and the edges it walks here. */
  log: IterationLog | undefined;

  /** Label propagation with `options.loadBalance` `'auto'` (default) needs the largest out-degree known. */
  constructor(
    readonly graph: DeviceGraph,
    options: ComponentsProblemOptions = {},
  ) {
    checkOptionsObject('new ComponentsProblem', options);
    const device = graph.device;
    this.algorithm = checkAlgorithm(graph, options.algorithm);
    const tuning = smallFrontierOf(this.algorithm, options);
    this.#loadBalance =
      this.algorithm === 'label-propagation'
        ? resolveLoadBalance(graph, options.loadBalance ?? 'auto')
        : 'merge-path';
    this.labels = device.array('u32', Math.max(1, graph.vertexCount), { label: 'cc labels' });
    if (this.algorithm === 'union-find') {
      this.#done = device.array('u32', 1, { label: 'cc done' });
      this.#done.upload([0]);
      this.#sets = new DisjointSets(device, graph.vertexCount, { parents: this.labels, label: 'cc' });
      if (!graph.directed) {
        const queue = new FrontierQueue(device, graph.vertexCount, { label: 'cc outside the giant' });
        this.#afforest = {
          queue,
          space: new AdvanceWorkspace(device, queue.capacity),
          giant: device.array('u32', 1, { label: 'cc sampled giant' }),
        };
      }
    } else if ((options.smallFrontier ?? 'auto') === 'auto') {
      const label = atomic(this.labels);
      this.#cascade = new Cascade(
        graph,
        wgsl`(v: u32) -> bool { return true; }`,
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let l = atomicLoad(&${label}[src]);
  if (l >= atomicLoad(&${label}[dst])) { return false; }
  return l < atomicMin(&${label}[dst], l);
}`,
        { direction: 'both', edgeIds: false },
      );
    } else {
      this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'cc frontier' });
      this.#changed = new FrontierBitmap(device, graph.vertexCount, 'cc changed');
      this.#space = new AdvanceWorkspace(device, this.queue.capacity);
    }
    this.smallFrontier = tuning && {
      tuning,
      state: new SmallFrontierState(device, { label: 'cc small frontier' }),
      levels: device.array('u32', 2, { label: 'cc levels' }),
      stamps: device.array('u32', Math.max(1, graph.vertexCount), { label: 'cc level stamps' }),
    };
  }

  async reset(rec: Recorder): Promise<void> {
    await transform(rec, this.graph.vertexCount, wgsl`(v: u32) { ${rw(this.labels)}[v] = v; }`);
    await this.queue?.recordAll(rec);
    if (this.smallFrontier) {
      await this.smallFrontier.state.recordReset(rec);
      rec.clear(this.smallFrontier.levels);
      rec.clear(this.smallFrontier.stamps);
    }
  }

  /** Records one iteration; union-find does all its work in iteration 0 and records nothing later. */
  async step(rec: Recorder, iteration: number): Promise<void> {
    if (this.algorithm === 'union-find') {
      if (iteration > 0) return;
      await this.log?.recordCounts(rec, iteration, this.graph.vertexCount, this.graph.edgeCount);
      await this.#unionFind(rec);
      return;
    }
    if (this.#cascade) {
      await this.#cascade.step(rec, iteration);
      return;
    }
    const queue = this.queue!;
    if (this.log) {
      await this.log.recordFrontier(rec, iteration, queue.current, this.graph.offsets);
      const inOffsets = this.graph.csc?.inOffsets;
      if (this.graph.directed && inOffsets) {
        await this.log.addDegrees(rec, this.log.slot(iteration).edges, queue.current, inOffsets);
      }
    }
    const label = atomic(this.labels);
    const spread = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let l = atomicLoad(&${label}[src]);
  if (l >= atomicLoad(&${label}[dst])) { return false; }
  return l < atomicMin(&${label}[dst], l);
}`;
    this.#changed!.recordClear(rec);
    if (this.smallFrontier) await this.#smallLevels(rec);
    const common = {
      output: queue.next,
      visited: this.#changed!,
      workspace: this.#space!,
      loadBalance: this.#loadBalance,
    };
    await advancePush(rec, this.graph, queue.current, spread, common);
    if (this.graph.directed) {
      await advancePush(rec, this.graph, queue.current, spread, {
        ...common,
        direction: 'in',
        append: true,
      });
    }
    if (this.smallFrontier) await this.smallFrontier.state.recordLevelCount(rec, this.smallFrontier.levels);
    queue.swap();
  }

  /**
   * The engine's levels on `queue.current` in place (nothing where the frontier is too large for it); the
   * bulk level of `step` then runs on the frontier it leaves.
   */
  async #smallLevels(rec: Recorder): Promise<void> {
    const { tuning, state, stamps } = this.smallFrontier!;
    const label = atomic(this.labels);
    // A lowered vertex joins level `level + 1` once: the first to raise its stamp adds it, and later
    // lowerings in the level are read when that level pushes it. One atomic on `dst`, no plain load first:
    // the load would add a round trip to each level's critical path.
    const lower = wgsl`(src: u32, dst: u32, edge: u32, level: u32) -> bool {
  let l = atomicLoad(&${label}[src]);
  if (l >= atomicMin(&${label}[dst], l)) { return false; }
  return atomicMax(&${atomic(stamps)}[dst], level + 1u) <= level;
}`;
    await advanceSmallFrontier(rec, this.graph, this.queue!.current, lower, {
      state,
      withLevel: true,
      // Weak components: a directed graph's labels also flow against its arcs.
      direction: 'both',
      ...tuning,
    });
  }

  /** Links every edge's ends, then points every vertex at its root. */
  async #unionFind(rec: Recorder): Promise<void> {
    if (this.#afforest) {
      await this.#afforestLinks(rec, this.#afforest);
      return;
    }
    const sets = this.#sets!;
    // Both arcs of an undirected edge are stored: link it once.
    const keep = this.graph.directed
      ? wgsl`(src: u32, dst: u32) -> bool { return src != dst; }`
      : wgsl`(src: u32, dst: u32) -> bool { return src < dst; }`;
    const link = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (${keep}(src, dst)) { ${sets.union()}(src, dst); }
  return false;
}`;
    // No output frontier: the functor's side effects are the result. 'all' takes merge path over the CSR
    // offsets, so hub vertices are spread over many threads.
    await advancePush(rec, this.graph, 'all', link);
    await sets.recordCompress(rec);
  }

  /**
   * Afforest (Sutton et al., as gapbs' `cc`) on an undirected graph: link each vertex to its first two
   * neighbors, compress, take the most common label among 1,024 sampled vertices as the largest component,
   * then link every edge of the vertices outside it (an edge between the component and the rest is seen
   * from its outside end), and compress again. Most edges of a graph with a giant component are never read.
   */
  async #afforestLinks(
    rec: Recorder,
    { queue, space, giant }: { queue: FrontierQueue; space: AdvanceWorkspace; giant: DeviceArray<'u32'> },
  ): Promise<void> {
    const sets = this.#sets!;
    const { offsets } = this.graph;
    const targets = this.graph.chunkedTargets;
    const n = this.graph.vertexCount;
    if (n === 0) return;
    for (const r of [0, 1]) {
      await transform(
        rec,
        n,
        wgsl`(v: u32) {
  let e = ${offsets}[v] + ${u32(r)};
  if (e >= ${offsets}[v + 1u]) { return; }
  let u = ${load(targets, 'e')};
  if (u != v) { ${sets.union()}(v, u); }
}`,
      );
    }
    await sets.recordCompress(rec);
    const kernel = await rec.device.kernel({
      label: 'cc sample largest component',
      params: { n: 'u32' },
      bindings: {
        labels: { type: 'array<u32>', access: 'read' },
        giant: { type: 'array<u32>', access: 'read_write' },
      },
      code: SAMPLE_WGSL,
    });
    rec.dispatch(kernel, { bindings: { labels: this.labels, giant }, params: { n }, workgroups: 1 });
    queue.recordClear(rec);
    const { items, length } = queue.current;
    await transform(
      rec,
      n,
      wgsl`(v: u32) {
  if (${this.labels}[v] == ${giant}[0]) { return; }
  let slot = atomicAdd(&${atomic(length.array)}[0], 1u);
  ${rw(items)}[slot] = v;
}`,
    );
    const link = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (src != dst) { ${sets.union()}(src, dst); }
  return false;
}`;
    await advancePush(rec, this.graph, queue.current, link, { workspace: space });
    await sets.recordCompress(rec);
  }

  active(): GpuCount {
    return this.queue?.length ?? this.#cascade?.active() ?? { array: this.#done!, index: 0 };
  }

  /**
   * The frontier's capacity, so the enactor can report an overflow (none is expected: appends are unique).
   * Union-find has no frontier: no bound.
   */
  get capacity(): number {
    return this.queue?.capacity ?? 0xffffffff;
  }

  /** The labels and their count; `levels`, counted on the GPU, with the engine only (else a step is a level). */
  async result(): Promise<{ labels: Uint32Array; count: number; levels?: number }> {
    const n = this.graph.vertexCount;
    // Read back together: one wait for the GPU instead of one per array.
    // Counted before the read-backs, not beside them: a fourth read-back in flight would make the buffer
    // pool's size depend on timing.
    const count = await countRoots(this.labels, n);
    const [labels, finished, levelWords] = await Promise.all([
      n === 0 ? new Uint32Array(0) : this.labels.download(0, n),
      this.#sets?.finished(),
      this.smallFrontier?.levels.download(1, 1),
    ]);
    if (finished === false) {
      throw new WeftError('union-find gave up on a link after too many failed compare-exchanges');
    }
    const levels = levelWords?.[0];
    return { labels, count, ...(levels === undefined ? {} : { levels }) };
  }

  destroy(): void {
    this.#afforest?.queue.destroy();
    this.#afforest?.space.destroy();
    this.#afforest?.giant.destroy();
    this.labels.destroy();
    this.queue?.destroy();
    this.#changed?.destroy();
    this.#space?.destroy();
    this.#done?.destroy();
    this.#sets?.destroy();
    this.#cascade?.destroy();
    this.smallFrontier?.state.destroy();
    this.smallFrontier?.levels.destroy();
    this.smallFrontier?.stamps.destroy();
  }
}

/**
 * Weakly connected components: labels (the smallest vertex id of each component) and their count. Union-find
 * by default; `loadBalance` applies to label propagation (union-find always balances over all edges).
 */
export async function connectedComponents(
  graph: DeviceGraph | NeighborGraph,
  options: ComponentsOptions = {},
): Promise<ComponentsResult> {
  checkOptionsObject('connectedComponents', options);
  if (isNeighborGraph(graph)) return componentsOnNeighbors(graph, options);
  checkDeviceGraph(graph);
  if (options.algorithm === 'label-propagation') {
    await prepareLoadBalance(graph, options.loadBalance);
  }
  // A trace logs one frontier a level: the engine, which runs many levels a step, stays off for it.
  const mode = options.smallFrontier ?? 'auto';
  if (options.trace && mode !== 'auto' && mode !== 'off') {
    throw new InputError(
      'a traced label propagation logs every level: leave smallFrontier off',
      'smallFrontier',
    );
  }
  const problem = new ComponentsProblem(
    graph,
    options.trace ? { ...options, smallFrontier: 'off' } : options,
  );
  const run = await runProblem(graph, problem, (rec) => problem.reset(rec), options);
  const { levels, ...result } = run.result;
  return {
    ...result,
    iterations: levels ?? run.iterations,
    steps: run.iterations,
    ...(run.trace ? { trace: run.trace } : {}),
  };
}
