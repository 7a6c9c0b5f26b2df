import {
  atomic,
  checkOptionsObject,
  checkTolerance,
  type DeviceArray,
  type Functor,
  f32,
  type GpuCount,
  InputError,
  inline,
  load,
  max,
  plus,
  type Recorder,
  rw,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import {
  advancePush,
  computeReduce,
  type GatherOrder,
  gatherOrder,
  hasGatherOrder,
  type IterationLog,
  type IterationTrace,
  isNeighborGraph,
  type NeighborGraph,
  neighborhoodReduce,
} from '@weft/operators';
import { type Problem, type RunOptions, runProblem, type TraceOption } from './common.ts';
import { pageRankOnNeighbors } from './neighbor-graph.ts';
import { checkNonNegativeWeights } from './weights.ts';

export interface PageRankOptions extends RunOptions, TraceOption {
  /** Damping factor (default 0.85). */
  alpha?: number;
  /**
   * Stop when no vertex's rank changes by more than this, relative to the rank, in an iteration. Default
   * 1e-5: every vertex then lies within about 1e-4 relative of the fixed point (the leftover error is about
   * alpha / (1 - alpha) times the last change), while f32 rounding noise stays far below it. networkx's rule
   * (L1 change below `N * tol`) loosens as graphs grow; this one does not.
   */
  tolerance?: number;
  /**
   * `'relative'` (default): the rule above. `'l1'`: networkx's and graphology's rule, stop once the summed
   * absolute change of an iteration is below `vertexCount * tolerance` (give their default `tolerance`, 1e-6).
   */
  convergence?: 'relative' | 'l1';
  /** Default 100. Must be finite when `tolerance` is 0, which f32 ranks may never reach. */
  maxIterations?: number;
  /**
   * `'pull'` (default): each vertex sums over its in-neighbors (segmented reduction, no atomics; a
   * directed graph needs `csc`). `'push'`: each edge adds its source's share to its target with an f32
   * atomic add (a compare-exchange loop on the bits), over the CSR alone: no CSC needed; sums land in a
   * varying order, so ranks may differ from pull's in the last f32 bits.
   */
  direction?: 'pull' | 'push';
  /**
   * Edge weights share each vertex's rank over its out-edges in proportion (networkx's default,
   * `weight='weight'`): by default whenever the graph has weights; `null` ignores them. Weights must be
   * finite and non-negative; a vertex whose out-weights sum to 0 is dangling.
   */
  weight?: 'weights' | null;
  /**
   * Pull only: gather contributions stored in the graph's {@link gatherOrder} (vertices renumbered by
   * out-degree, hubs first, kept with the graph: a second copy of its in-edge column), so that hubs'
   * contributions share cache lines. `'auto'` (default): on graphs of at least 2^20 arcs held in one
   * binding; `true`: always (built on first use); `false`: never. Ranks may differ in the last f32 bits.
   */
  gatherOrder?: 'auto' | boolean;
}

/** Arcs from which `gatherOrder: 'auto'` renumbers: below, the contribution vector stays in cache anyway. */
export const GATHER_ORDER_MIN_ARCS = 2 ** 20;

/**
 * Whether a pulled power iteration should gather through the graph's {@link gatherOrder}: `'auto'` on an
 * unchunked graph of at least {@link GATHER_ORDER_MIN_ARCS} arcs, or when one is already kept.
 */
export function usesGatherOrder(graph: DeviceGraph, choice: 'auto' | boolean | undefined): boolean {
  if (choice !== undefined && choice !== 'auto' && typeof choice !== 'boolean') {
    throw new InputError(`gatherOrder must be 'auto', true or false, got '${String(choice)}'`, 'gatherOrder');
  }
  if (typeof choice === 'boolean') return choice;
  return hasGatherOrder(graph, 'in') || (graph.edgeCount >= GATHER_ORDER_MIN_ARCS && !graph.chunked);
}

export interface PageRankResult {
  ranks: Float32Array;
  iterations: number;
  converged: boolean;
  /** With `convergence: 'l1'` and not converged: the last iteration's summed absolute change. */
  residual?: number;
  /** With `trace: true`: per iteration, every vertex (the frontier is the whole graph) and every edge (pulled). */
  trace?: IterationTrace;
}

/** The damping, tolerance and convergence rule of `options`, defaults filled in; throws on bad values. */
export function checkRankOptions(options: Pick<PageRankOptions, 'alpha' | 'tolerance' | 'convergence'>): {
  alpha: number;
  tolerance: number;
  convergence: 'relative' | 'l1';
} {
  const alpha = options.alpha ?? 0.85;
  const tolerance = options.tolerance ?? 1e-5;
  if (!(alpha >= 0 && alpha <= 1)) throw new InputError(`alpha must be in [0, 1], got ${alpha}`, 'alpha');
  checkTolerance(tolerance);
  const convergence = options.convergence ?? 'relative';
  if (convergence !== 'relative' && convergence !== 'l1') {
    throw new InputError(`convergence must be 'relative' or 'l1', got '${convergence}'`, 'convergence');
  }
  return { alpha, tolerance, convergence };
}

/**
 * `(sum: f32, dangling: f32) -> f32`: the next rank of a vertex whose in-neighbors' shares sum to `sum`,
 * where the dangling vertices' ranks sum to `dangling`, over `n` vertices.
 */
export function nextRankFunctor(alpha: number, n: number): Functor {
  return wgsl`(sum: f32, dangling: f32) -> f32 {
  return ${f32((1 - alpha) / n)} + ${f32(alpha)} * (sum + dangling * ${f32(1 / n)});
}`;
}

/** `(next: f32, old: f32) -> f32`: one vertex's term of the convergence test (summed for l1, else the largest). */
export function rankChangeFunctor(convergence: 'relative' | 'l1'): Functor {
  return convergence === 'l1'
    ? wgsl`(next: f32, old: f32) -> f32 { return abs(next - old); }`
    : wgsl`(next: f32, old: f32) -> f32 { return abs(next - old) / max(next, 1e-30); }`;
}

/** Throws where a run could never stop: tolerance 0 (f32 ranks may never reach it) without an iteration bound. */
export function checkRankBound(options: Pick<PageRankOptions, 'tolerance' | 'maxIterations'>): void {
  if (options.tolerance === 0 && !Number.isFinite(options.maxIterations ?? 100)) {
    throw new InputError(
      `tolerance 0 with maxIterations ${options.maxIterations} may never stop: f32 ranks can keep changing ` +
        'in their last bit; give a finite maxIterations or a positive tolerance',
      'maxIterations',
    );
  }
}

/**
 * PageRank (power iteration, as networkx defines it): pulled, each vertex sums `rank[u] / outdeg(u)` over
 * its in-neighbors by neighborhood reduction (no float atomics needed); pushed, each edge adds its source's
 * share to its target by an f32 compare-exchange loop (the CSR alone suffices); dangling vertices' rank is summed on the
 * GPU and spread evenly; the teleport is uniform. The largest relative change is reduced on the GPU and turns the `active`
 * word off once below the threshold, after which steps leave the ranks as they are.
 */
export class PageRankProblem implements Problem<Float32Array> {
  readonly ranks: DeviceArray<'f32'>;
  readonly #contrib: DeviceArray<'f32'>;
  readonly #sums: DeviceArray<'f32'>;
  /** Push: the sums as f32 bits, for the compare-exchange loop (WGSL has no f32 atomics). */
  readonly #pushed: DeviceArray<'u32'> | undefined;
  readonly direction: 'pull' | 'push';
  /** Element 0: the dangling rank sum; element 1: the largest relative change. */
  readonly #totals: DeviceArray<'f32'>;
  readonly #active: DeviceArray<'u32'>;
  /**
   * Weighted: each vertex's out-weights over its largest (1 at the largest, so 0 only for a dangling vertex),
   * then its largest out-weight; each sum stays within f32 whatever the weights' range.
   */
  readonly #outWeight: DeviceArray<'f32'> | undefined;
  readonly #largest: DeviceArray<'f32'> | undefined;
  /**
   * Weighted: per edge, the share of its source's rank it carries (the stochastic matrix, as networkx's).
   */
  readonly #share: DeviceArray<'f32'> | undefined;
  /** Weighted undirected pull: per arc v -> u, the id of its paired arc u -> v (whose share flows into v). */
  readonly #reverse: DeviceArray<'u32'> | undefined;
  /** Word 0: one plus the id of an arc found without a reverse, or 0 when every arc has one. */
  readonly #unpaired: DeviceArray<'u32'> | undefined;
  readonly alpha: number;
  readonly tolerance: number;
  readonly convergence: 'relative' | 'l1';
  /** When set, each step logs its frontier (all vertices) and edges (all of them) here. */
  log: IterationLog | undefined;
  /** Whether contributions are stored and gathered in the graph's gather order (set by {@link reset}). */
  readonly #ordered: boolean;
  #order: GatherOrder | undefined;

  constructor(
    readonly graph: DeviceGraph,
    options: Pick<
      PageRankOptions,
      'alpha' | 'tolerance' | 'direction' | 'weight' | 'convergence' | 'gatherOrder'
    > = {},
  ) {
    checkOptionsObject('new PageRankProblem', options);
    const device = graph.device;
    ({
      alpha: this.alpha,
      tolerance: this.tolerance,
      convergence: this.convergence,
    } = checkRankOptions(options));
    const requested = options.direction ?? 'pull';
    if (requested !== 'pull' && requested !== 'push') {
      throw new InputError(`direction must be 'pull' or 'push', got '${requested}'`, 'direction');
    }
    // Pulling reads an undirected graph's in-edges from its out-edges, and a multigraph's paired arcs need
    // not weigh the same: weighted undirected graphs pull each arc's reverse's share (`#reverse`).
    this.direction = requested;
    this.#ordered = this.direction === 'pull' && usesGatherOrder(graph, options.gatherOrder);
    if (this.direction === 'pull' && graph.directed && !graph.csc) {
      throw new InputError(
        'pull PageRank on a directed graph needs its in-edges: uploadGraph(..., { csc: true })',
        'graph',
      );
    }
    if (options.weight !== undefined && options.weight !== null && options.weight !== 'weights') {
      throw new InputError(`weight must be 'weights' or null, got '${options.weight}'`, 'weight');
    }
    if (options.weight === 'weights' && graph.chunkedWeights === undefined) {
      throw new InputError("weight 'weights' but the graph has no weights", 'weight');
    }
    const n = Math.max(1, graph.vertexCount);
    const arr = (label: string) => device.array('f32', n, { label: `pagerank ${label}` });
    const weighted = options.weight !== null && graph.chunkedWeights !== undefined;
    this.#outWeight = weighted ? arr('out-weights') : undefined;
    this.#largest = weighted ? arr('largest out-weight') : undefined;
    this.#share = weighted
      ? device.array('f32', Math.max(1, graph.edgeCount), { label: 'pagerank edge shares' })
      : undefined;
    this.#reverse =
      weighted && !graph.directed && this.direction === 'pull'
        ? device.array('u32', Math.max(1, graph.edgeCount), { label: 'pagerank reverse arcs' })
        : undefined;
    this.#unpaired = this.#reverse ? device.array('u32', 1, { label: 'pagerank unpaired arc' }) : undefined;
    // Pooled arrays come back uncleared, and a graph without arcs never records the pairing that clears it.
    this.#unpaired?.upload([0]);
    this.ranks = arr('ranks');
    this.#contrib = arr('contributions');
    this.#sums = arr('sums');
    this.#pushed =
      this.direction === 'push' ? device.array('u32', n, { label: 'pagerank pushed sums' }) : undefined;
    this.#totals = device.array('f32', 2, { label: 'pagerank totals' });
    this.#active = device.array('u32', 1, { label: 'pagerank active' });
  }

  async reset(rec: Recorder): Promise<void> {
    const n = this.graph.vertexCount;
    await rec.fill(this.ranks, n === 0 ? 0 : 1 / n);
    await rec.fill(this.#active, n === 0 ? 0 : 1);
    const w = this.graph.chunkedWeights;
    const [out, largest, share] = [this.#outWeight, this.#largest, this.#share];
    if (out && largest && share && w && n > 0) {
      const weight = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return f32(${load(w, 'edge')}); }`;
      await neighborhoodReduce(rec, this.graph, 'all', weight, largest, { monoid: max('f32') });
      const scaled = wgsl`(v: u32, u: u32, edge: u32) -> f32 {
  let top = ${largest}[v];
  return select(0.0, f32(${load(w, 'edge')}) / top, top > 0.0);
}`;
      await neighborhoodReduce(rec, this.graph, 'all', scaled, out);
      if (this.graph.edgeCount > 0) {
        await advancePush(
          rec,
          this.graph,
          'all',
          wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let total = ${out}[src];
  ${rw(share)}[edge] = select(0.0, f32(${load(w, 'edge')}) / ${largest}[src] / total, total > 0.0);
  return false;
}`,
        );
        if (this.#reverse) await this.#recordReverse(rec, this.#reverse, this.#unpaired!);
      }
    }
    if (this.#ordered) this.#order = await gatherOrder(this.graph, 'in');
    if (n > 0) {
      await computeReduce(
        rec,
        n,
        wgsl`(v: u32) -> vec2<f32> { return vec2<f32>(0.0, ${this.#storeShare()}(v, ${this.ranks}[v])); }`,
        [plus('f32'), plus('f32')],
        wgsl`(change: f32, dangling: f32) { ${rw(this.#totals)}[0] = dangling; }`,
      );
    }
  }

  /**
   * `(v: u32, r: f32) -> f32`: stores what `v` gives each out-edge of rank `r` (at its gather-order position
   * when ordered); returns `r` when `v` is dangling (its rank to spread evenly), else 0.
   */
  #storeShare(): Functor {
    const at = inline(this.#order ? wgsl`${this.#order.position}[v]` : wgsl`v`);
    const out = this.#outWeight;
    const { offsets } = this.graph;
    const sharing = inline(out ? wgsl`${out}[v] > 0.0` : wgsl`${offsets}[v + 1u] > ${offsets}[v]`);
    // Weighted shares carry the per-edge fraction themselves; unweighted ones split the rank by degree.
    const part = inline(out ? wgsl`r` : wgsl`r / f32(${offsets}[v + 1u] - ${offsets}[v])`);
    return wgsl`(v: u32, r: f32) -> f32 {
  let sharing = ${sharing};
  ${rw(this.#contrib)}[${at}] = select(0.0, ${part}, sharing);
  return select(r, 0.0, sharing);
}`;
  }

  /**
   * reverse[k] for arc k = v -> u: the arc u -> v of the same rank among v's and u's parallel arcs (rows are
   * sorted, so parallel arcs are adjacent and row u's arcs to v start at a lower bound).
   */
  async #recordReverse(
    rec: Recorder,
    reverse: DeviceArray<'u32'>,
    unpaired: DeviceArray<'u32'>,
  ): Promise<void> {
    const { offsets, chunkedTargets: targets } = this.graph;
    rec.clear(unpaired);
    await advancePush(
      rec,
      this.graph,
      'all',
      wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  var rank = 0u;
  var j = edge;
  let first = ${offsets}[src];
  while (j > first && ${load(targets, 'j - 1u')} == dst) {
    rank++;
    j--;
  }
  let end = ${offsets}[dst + 1u];
  var lo = ${offsets}[dst];
  var hi = end;
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (${load(targets, 'mid')} < src) { lo = mid + 1u; } else { hi = mid; }
  }
  let at = lo + rank;
  if (at >= end || ${load(targets, 'at')} != src) {
    atomicMax(&${atomic(unpaired)}[0], edge + 1u);
    ${rw(reverse)}[edge] = edge;
  } else {
    ${rw(reverse)}[edge] = at;
  }
  return false;
}`,
    );
  }

  /** `(u: u32, edge: u32) -> f32`: what edge `edge` out of `u` carries of `u`'s rank. */
  #shareOf(): Functor {
    if (this.#share && this.#reverse) {
      return wgsl`(u: u32, edge: u32) -> f32 { return ${this.#contrib}[u] * ${this.#share}[${this.#reverse}[edge]]; }`;
    }
    return this.#share
      ? wgsl`(u: u32, edge: u32) -> f32 { return ${this.#contrib}[u] * ${this.#share}[edge]; }`
      : wgsl`(u: u32, edge: u32) -> f32 { return ${this.#contrib}[u]; }`;
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) return;
    await this.log?.recordCounts(rec, iteration, n, this.graph.edgeCount);
    const share = this.#shareOf();
    const pushed = this.#pushed;
    if (pushed) {
      rec.clear(pushed);
      // An f32 atomic add by compare-exchange: each failed exchange means another thread's add landed.
      await advancePush(
        rec,
        this.graph,
        'all',
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let add = ${share}(src, edge);
  var old = atomicLoad(&${atomic(pushed)}[dst]);
  loop {
    let r = atomicCompareExchangeWeak(&${atomic(pushed)}[dst], old, bitcast<u32>(bitcast<f32>(old) + add));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
  return false;
}`,
      );
    } else {
      await neighborhoodReduce(
        rec,
        this.graph,
        'all',
        wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${share}(u, edge); }`,
        this.#sums,
        { direction: 'in', ignoresVertex: true, ...(this.#order ? { gatherOrder: this.#order } : {}) },
      );
    }
    const sum = pushed
      ? wgsl`(v: u32) -> f32 { return bitcast<f32>(${pushed}[v]); }`
      : wgsl`(v: u32) -> f32 { return ${this.#sums}[v]; }`;
    const l1 = this.convergence === 'l1';
    const change = rankChangeFunctor(this.convergence);
    const bound = l1 ? n * this.tolerance : this.tolerance;
    // One pass updates the ranks and the next contributions and folds the change and the dangling rank.
    await computeReduce(
      rec,
      n,
      wgsl`(v: u32) -> vec2<f32> {
  let next = ${nextRankFunctor(this.alpha, n)}(${sum}(v), ${this.#totals}[0]);
  let old = ${this.ranks}[v];
  // Once converged, later iterations of a batch keep the converged ranks.
  let on = ${this.#active}[0] != 0u;
  let r = select(old, next, on);
  ${rw(this.ranks)}[v] = r;
  // Ranks are at least (1 - alpha) / n > 0, except alpha = 1 where an unreached vertex may keep 0.
  return vec2<f32>(select(0.0, ${change}(next, old), on), ${this.#storeShare()}(v, r));
}`,
      [l1 ? plus('f32') : max('f32'), plus('f32')],
      wgsl`(change: f32, dangling: f32) {
  ${rw(this.#totals)}[0] = dangling;
  ${rw(this.#totals)}[1] = change;
  if (change < ${f32(bound)}) { ${rw(this.#active)}[0] = 0u; }
}`,
    );
  }

  active(): GpuCount {
    return { array: this.#active, index: 0 };
  }

  /** With `convergence: 'l1'`, the last iteration's L1 change, read by {@link result}. */
  residual: number | undefined;

  async result(): Promise<Float32Array> {
    const n = this.graph.vertexCount;
    // Read back together: one wait for the GPU instead of one per array.
    const [unpairedWords, totals, ranks] = await Promise.all([
      this.#unpaired?.download(),
      n > 0 && this.convergence === 'l1' ? this.#totals.download(1, 1) : undefined,
      n === 0 ? new Float32Array(0) : this.ranks.download(0, n),
    ]);
    const unpaired = unpairedWords ? unpairedWords[0]! : 0;
    if (unpaired !== 0) {
      const edge = unpaired - 1;
      throw new InputError(
        `the undirected graph's arc ${edge} has no reverse arc: an undirected CSR lists each edge both ways, rows sorted`,
        'graph',
      );
    }
    if (totals) this.residual = totals[0];
    return ranks;
  }

  destroy(): void {
    for (const a of [this.ranks, this.#contrib, this.#sums, this.#totals, this.#active]) {
      a.destroy();
    }
    this.#pushed?.destroy();
    this.#outWeight?.destroy();
    this.#largest?.destroy();
    this.#reverse?.destroy();
    this.#unpaired?.destroy();
    this.#share?.destroy();
  }
}

/** PageRank with networkx's definition, option names and default weighting (by the graph's weights). */
export async function pageRank(
  graph: DeviceGraph | NeighborGraph,
  options: PageRankOptions = {},
): Promise<PageRankResult> {
  checkOptionsObject('pageRank', options);
  if (isNeighborGraph(graph)) return pageRankOnNeighbors(graph, options);
  checkDeviceGraph(graph);
  checkRankBound(options);
  if (options.weight !== null && graph.chunkedWeights !== undefined)
    await checkNonNegativeWeights(graph, 'PageRank');
  const problem = new PageRankProblem(graph, options);
  if (graph.vertexCount === 0) {
    problem.destroy();
    return { ranks: new Float32Array(0), iterations: 0, converged: true };
  }
  const run = await runProblem(graph, problem, (rec) => problem.reset(rec), {
    batch: 8,
    maxBatch: 16,
    ...options,
    maxIterations: options.maxIterations ?? 100,
  });
  const { iterations, converged, trace } = run;
  const { residual } = problem;
  return {
    ranks: run.result,
    iterations,
    converged,
    ...(residual === undefined ? {} : { residual }),
    ...(trace ? { trace } : {}),
  };
}
