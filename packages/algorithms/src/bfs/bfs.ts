import { atomic, type DeviceArray, InputError, type Recorder, rw, u32, wgsl } from '@weft/gpu';
import { type DeviceGraph, FrontierQueue } from '@weft/graph';
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
import { BitmapClaimLevel, prefersBitmapClaims } from './bitmap-claims.ts';
import { DirectionOptimizedLevel } from './direction-optimized.ts';
import { IdempotentLevel } from './idempotent.ts';
import { type BfsLevel, type BfsState, UNREACHED } from './level.ts';

export interface BfsOptions extends RunOptions, LoadBalanceOption, TraceOption {
  /** Also record a BFS tree: `parents[v]` (-1 for the source and unreached vertices). */
  parents?: boolean;
  /**
   * `'push'` (default): top-down only. `'auto'`: direction-optimizing (Beamer), choosing on the GPU per
   * level; `'pull'`: bottom-up only. Pull needs in-edges: an undirected graph or `csc` uploaded.
   */
  direction?: 'push' | 'pull' | 'auto';
  /** Pull when frontier vertices + their out-edges exceed `threshold x edgeCount` (default 1/20, Ligra's). */
  threshold?: number;
  /**
   * Idempotent push (Gunrock's idempotence): depths set by plain stores, duplicates culled by a filter
   * (see `./idempotent.ts`). Same depths; push direction only; an output buffer of `edgeCount` words.
   */
  idempotent?: boolean;
  /**
   * How a push level claims a vertex. `'depth'`: `atomicMin` on its depth, the winner appends it.
   * `'bitmap'`: visited bits tested against the level's snapshot first (see `./bitmap-claims.ts`).
   * `'auto'` (default): bitmap on graphs of at least 8 out-edges a vertex, whose levels are heavy; depth on
   * sparse, high-diameter ones, whose many light levels would each pay the bitmap's bookkeeping.
   * Direction-optimizing and idempotent runs claim by depth (`'bitmap'` with them is an error).
   */
  claim?: 'auto' | 'bitmap' | 'depth';
}

export type BfsProblemOptions = Pick<
  BfsOptions,
  'parents' | 'direction' | 'threshold' | 'idempotent' | 'claim' | 'loadBalance'
>;

export interface BfsResult {
  /** Hops from the source; -1 where unreachable. */
  depths: Int32Array;
  parents?: Int32Array;
  /** Levels expanded (the eccentricity of the source plus one). */
  iterations: number;
  /** Levels done bottom-up (direction `'auto'` or `'pull'`). */
  pullIterations: number;
  /**
   * With `trace: true`: per level, the input frontier length and the edges inspected: the out-degree sum
   * of the frontier for a push level; for a pull level an upper bound, the in-degree sum of the vertices
   * still unvisited when it began (pull stops at a vertex's first parent).
   */
  trace?: IterationTrace;
}

/**
 * Breadth-first search (Gunrock's problem, Ligra's edgeMap):
 *
 *     depth[source] = 0; frontier = { source }
 *     for level = 1, 2, ... while frontier is not empty:
 *       for each edge (u, v) with u in frontier:      advancePush
 *         if depth[v] is unset: depth[v] = level      the claim: atomicMin, so one edge wins v
 *           parent[v] = u; v joins the next frontier
 *
 * The variants (direction-optimizing, idempotent, bitmap claims) change how a level applies the claim.
 */
export class BfsProblem implements BfsState, Problem<Omit<BfsResult, 'iterations' | 'trace'>, [number]> {
  readonly depths: DeviceArray<'u32'>;
  readonly parents: DeviceArray<'u32'> | undefined;
  readonly queue: FrontierQueue;
  readonly workspace: AdvanceWorkspace;
  readonly loadBalance;
  /** The variant applying each level's claim; undefined for the plain push BFS. */
  readonly variant: BfsLevel | undefined;
  log: IterationLog | undefined;

  /** `options.loadBalance` `'auto'` (default) needs the graph's largest out-degree known. */
  constructor(
    readonly graph: DeviceGraph,
    options: BfsProblemOptions = {},
  ) {
    const device = graph.device;
    this.loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
    const variant = variantOf(graph, options);
    const n = Math.max(1, graph.vertexCount);
    this.depths = device.array('u32', n, { label: 'bfs depths' });
    this.parents = options.parents ? device.array('u32', n, { label: 'bfs parents' }) : undefined;
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'bfs frontier' });
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
    this.variant = variant?.(this);
  }

  /** Records the start from `source` (a vertex: the caller checks). */
  async reset(rec: Recorder, source: number): Promise<void> {
    await rec.fill(this.depths, UNREACHED);
    if (this.parents) await rec.fill(this.parents, UNREACHED);
    await recordSet(rec, this.depths, source, 0);
    await this.queue.recordSingle(rec, source);
    await this.variant?.reset(rec, source);
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    await this.log?.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
    const depth = atomic(this.depths);
    const parent = this.parents
      ? wgsl`(v: u32, p: u32) { ${rw(this.parents)}[v] = p; }`
      : wgsl`(v: u32, p: u32) {}`;
    const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  // A plain load first: most edges of a skewed graph lead to visited vertices, and need no atomic.
  if (atomicLoad(&${depth}[dst]) != ${u32(UNREACHED)}) { return false; }
  if (atomicMin(&${depth}[dst], ${u32(iteration + 1)}) != ${u32(UNREACHED)}) { return false; }
  ${parent}(dst, src);
  return true;
}`;
    if (this.variant) {
      await this.variant.step(rec, iteration, { claim, parent });
    } else {
      await advancePush(rec, this.graph, this.queue.current, claim, {
        output: this.queue.next,
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

  async result(): Promise<{ depths: Int32Array; parents?: Int32Array; pullIterations: number }> {
    const n = this.graph.vertexCount;
    const pullIterations = (await this.variant?.pullIterations?.()) ?? 0;
    const read = async (a: DeviceArray<'u32'>) =>
      n === 0 ? new Int32Array(0) : new Int32Array((await a.download(0, n)).buffer);
    const depths = await read(this.depths);
    return { depths, ...(this.parents ? { parents: await read(this.parents) } : {}), pullIterations };
  }

  destroy(): void {
    this.depths.destroy();
    this.parents?.destroy();
    this.queue.destroy();
    this.workspace.destroy();
    this.variant?.destroy();
  }
}

/** The variant the options ask for (undefined: the plain push BFS above), checked before any allocation. */
function variantOf(
  graph: DeviceGraph,
  options: BfsProblemOptions,
): ((bfs: BfsState) => BfsLevel) | undefined {
  const direction = options.direction ?? 'push';
  const claim = options.claim ?? 'auto';
  if (options.idempotent && direction !== 'push') {
    throw new InputError(`idempotent BFS pushes only; direction '${direction}' was asked`, 'direction');
  }
  if (direction !== 'push' && graph.directed && !graph.csc) {
    throw new InputError(
      `BFS direction '${direction}' on a directed graph needs uploadGraph(..., { csc: true })`,
      'graph',
    );
  }
  if (claim === 'bitmap' && (direction !== 'push' || options.idempotent)) {
    throw new InputError(
      `bitmap claims are for the atomic push BFS; direction '${direction}'${options.idempotent ? ', idempotent' : ''} was asked`,
      'claim',
    );
  }
  if (direction !== 'push') return (bfs) => new DirectionOptimizedLevel(bfs, direction, options.threshold);
  if (options.idempotent) return (bfs) => new IdempotentLevel(bfs);
  if (claim === 'bitmap' || (claim === 'auto' && prefersBitmapClaims(graph))) {
    return (bfs) => new BitmapClaimLevel(bfs);
  }
  return undefined;
}

/** Breadth-first search from `source`: depths (and parents), with the enactor's batched submits. */
export async function bfs(graph: DeviceGraph, source: number, options: BfsOptions = {}): Promise<BfsResult> {
  checkSource(graph, source);
  await prepareLoadBalance(graph, options.loadBalance);
  const problem = new BfsProblem(graph, options);
  const run = await runProblem(graph, problem, (rec) => problem.reset(rec, source), options);
  return { ...run.result, iterations: run.iterations, ...(run.trace ? { trace: run.trace } : {}) };
}
