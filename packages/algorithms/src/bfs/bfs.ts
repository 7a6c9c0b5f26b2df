import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  InputError,
  type Recorder,
  rw,
  u32,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  advanceSmallFrontier,
  checkLoadBalance,
  type IterationLog,
  isNeighborGraph,
  type NeighborGraph,
  resolveLoadBalance,
  SmallFrontierState,
} from '@weft/operators';
import { checkSource, type Problem, prepareLoadBalance, recordSet, runProblem } from '../common.ts';
import { bfsOnNeighbors } from '../neighbor-graph.ts';
import { searchBlocks, searchStrategy } from '../sssp/blocks.ts';
import { type BfsLevel, UNREACHED } from './level.ts';
import {
  type BfsOptions,
  type BfsProblemOptions,
  type BfsResult,
  type SmallFrontierTuning,
  smallFrontierOf,
  variantOf,
} from './options.ts';

export type { BfsOptions, BfsProblemOptions, BfsResult, SmallFrontierTuning } from './options.ts';

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
 * With the small-frontier engine a step runs many levels in one workgroup while the frontier is small, then
 * one bulk level on what it leaves; both claim with depth[u] + 1, so no level number comes from the host.
 */
export class BfsProblem
  implements Problem<Omit<BfsResult, 'iterations' | 'steps' | 'trace'> & { levels?: number }, [number]>
{
  readonly depths: DeviceArray<'u32'>;
  readonly parents: DeviceArray<'u32'> | undefined;
  readonly queue: FrontierQueue;
  readonly workspace: AdvanceWorkspace;
  readonly loadBalance;
  /** @internal The variant applying each level's claim; undefined for the plain push BFS. */
  readonly variant: BfsLevel | undefined;
  /** The small-frontier engine, when it runs: its settings, its state and `[bulk levels, all levels]`. */
  readonly smallFrontier:
    | { tuning: SmallFrontierTuning; state: SmallFrontierState; levels: DeviceArray<'u32'> }
    | undefined;
  log: IterationLog | undefined;

  /** `options.loadBalance` `'auto'` (default) needs the graph's largest out-degree known. */
  constructor(
    readonly graph: DeviceGraph,
    options: BfsProblemOptions = {},
  ) {
    checkOptionsObject('new BfsProblem', options);
    const device = graph.device;
    this.loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
    const variant = variantOf(graph, options);
    const n = Math.max(1, graph.vertexCount);
    this.depths = device.array('u32', n, { label: 'bfs depths' });
    this.parents = options.parents ? device.array('u32', n, { label: 'bfs parents' }) : undefined;
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'bfs frontier' });
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
    this.variant = variant?.(this);
    // The engine binds each chunk of the targets, beside its own buffers: on a chunked graph 'auto' leaves it
    // off, and 'on' runs it where the stage has the storage buffers (else a DeviceLimitError).
    const chunkedAuto = graph.chunked && (options.smallFrontier ?? 'auto') === 'auto';
    const tuning = chunkedAuto ? undefined : smallFrontierOf(options, variant !== undefined, graph.device);
    this.smallFrontier = tuning && {
      tuning,
      state: new SmallFrontierState(device, { label: 'bfs small frontier' }),
      levels: device.array('u32', 2, { label: 'bfs levels' }),
    };
  }

  /** Records the start from `source` (a vertex: the caller checks). */
  async reset(rec: Recorder, source: number): Promise<void> {
    await rec.fill(this.depths, UNREACHED);
    if (this.parents) await rec.fill(this.parents, UNREACHED);
    await recordSet(rec, this.depths, source, 0);
    await this.queue.recordSingle(rec, source);
    await this.variant?.reset(rec, source);
    if (this.smallFrontier) {
      await this.smallFrontier.state.recordReset(rec);
      rec.clear(this.smallFrontier.levels);
    }
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
    if (this.smallFrontier) {
      await this.smallStep(rec, depth, parent);
    } else if (this.variant) {
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

  /**
   * The engine's levels on `queue.current` in place, then one bulk level on the frontier it left (an
   * overflowing level's output, a level bound's frontier, or one too large to start with), then a count of
   * that bulk level if it had any vertex.
   */
  private async smallStep(rec: Recorder, depth: ReturnType<typeof atomic>, parent: Functor) {
    const { tuning, state, levels } = this.smallFrontier!;
    // One atomic and no plain load first: a load would add a round trip to every edge on a level's
    // critical path, which costs the engine's sparse graphs more than the atomics it saves. In the engine
    // the depth comes from the level index (bulk levels are counted into it), not from depth[src].
    const claimAt = wgsl`(src: u32, dst: u32, edge: u32, level: u32) -> bool {
  if (atomicMin(&${depth}[dst], level + 1u) != ${u32(UNREACHED)}) { return false; }
  ${parent}(dst, src);
  return true;
}`;
    const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (atomicMin(&${depth}[dst], atomicLoad(&${depth}[src]) + 1u) != ${u32(UNREACHED)}) { return false; }
  ${parent}(dst, src);
  return true;
}`;
    await advanceSmallFrontier(rec, this.graph, this.queue.current, claimAt, {
      state,
      withLevel: true,
      ...tuning,
    });
    await advancePush(rec, this.graph, this.queue.current, claim, {
      output: this.queue.next,
      workspace: this.workspace,
      loadBalance: this.loadBalance,
    });
    await state.recordLevelCount(rec, levels, { intoLevelIndex: true });
  }

  active() {
    return this.queue.length;
  }

  /** The frontier's capacity, so the enactor can report an overflow (none is expected: appends are unique). */
  get capacity(): number {
    return this.queue.capacity;
  }

  /** The answer; `levels`, counted on the GPU, with the engine only (without it a step is a level). */
  async result(): Promise<{
    depths: Int32Array;
    parents?: Int32Array;
    pullIterations: number;
    levels?: number;
  }> {
    const n = this.graph.vertexCount;
    const pullIterations = (await this.variant?.pullIterations?.()) ?? 0;
    const read = async (a: DeviceArray<'u32'>) =>
      n === 0 ? new Int32Array(0) : new Int32Array((await a.download(0, n)).buffer);
    // Read back together: one wait for the GPU instead of one per array.
    const [depths, parents, levelWords] = await Promise.all([
      read(this.depths),
      this.parents ? read(this.parents) : undefined,
      this.smallFrontier?.levels.download(1, 1),
    ]);
    const levels = levelWords?.[0];
    return {
      depths,
      ...(parents ? { parents } : {}),
      pullIterations,
      ...(levels === undefined ? {} : { levels }),
    };
  }

  destroy(): void {
    this.depths.destroy();
    this.parents?.destroy();
    this.queue.destroy();
    this.workspace.destroy();
    this.variant?.destroy();
    this.smallFrontier?.state.destroy();
    this.smallFrontier?.levels.destroy();
  }
}

/** Breadth-first search from `source`: depths (and parents), with the enactor's batched submits. */
export async function bfs(
  graph: DeviceGraph | NeighborGraph,
  source: number,
  options: BfsOptions = {},
): Promise<BfsResult> {
  checkOptionsObject('bfs', options);
  if (isNeighborGraph(graph)) {
    checkSource(graph, source);
    return bfsOnNeighbors(graph, source, options);
  }
  checkDeviceGraph(graph);
  checkSource(graph, source);
  if (bfsStrategy(graph, options) === 'blocks') {
    // Blocks run no advance, so nothing else refuses a loadBalance typo on this path.
    checkLoadBalance(options.loadBalance);
    return bfsByBlocks(graph, source, options);
  }
  await prepareLoadBalance(graph, options.loadBalance);
  // A trace logs one frontier a level: the engine, which runs many levels a step, stays off for it.
  const mode = options.smallFrontier ?? 'auto';
  if (options.trace && mode !== 'auto' && mode !== 'off') {
    throw new InputError('a traced BFS logs every level: leave smallFrontier off', 'smallFrontier');
  }
  const problem = new BfsProblem(graph, options.trace ? { ...options, smallFrontier: 'off' } : options);
  const run = await runProblem(graph, problem, (rec) => problem.reset(rec, source), options);
  const { levels, ...result } = run.result;
  return {
    ...result,
    iterations: levels ?? run.iterations,
    steps: run.iterations,
    ...(run.trace ? { trace: run.trace } : {}),
  };
}

/** Options the frontier path has and block-local rounds do not, with the value each must keep for blocks. */
const FRONTIER_ONLY = [
  ['parents', undefined],
  ['trace', undefined],
  ['idempotent', undefined],
  ['direction', 'push'],
  ['claim', 'auto'],
  ['smallFrontier', 'auto'],
] as const;

/** The strategy `bfs` runs ({@link searchStrategy}): every option of {@link FRONTIER_ONLY} is refused by blocks. */
function bfsStrategy(graph: DeviceGraph, options: BfsOptions): 'frontier' | 'blocks' {
  const refused = FRONTIER_ONLY.find(
    ([option, plain]) =>
      options[option] !== undefined && options[option] !== false && options[option] !== plain,
  )?.[0];
  return searchStrategy(graph, options.strategy ?? 'auto', true, refused, false);
}

/** `bfs` by block-local rounds over unit weights ({@link searchBlocks}): depths are the distances. */
async function bfsByBlocks(graph: DeviceGraph, source: number, options: BfsOptions): Promise<BfsResult> {
  const auto = (options.strategy ?? 'auto') === 'auto';
  const { blocks, ...run } = options;
  const { distances, rounds } = await searchBlocks(
    graph,
    source,
    { auto, unitWeights: true, ...(blocks ? { blocks } : {}) },
    run,
  );
  const depths = new Int32Array(distances.length);
  let deepest = 0;
  for (let v = 0; v < distances.length; v++) {
    const d = distances[v]!;
    depths[v] = Number.isFinite(d) ? d : -1;
    if (d > deepest && Number.isFinite(d)) deepest = d;
  }
  return { depths, iterations: deepest + 1, steps: rounds, pullIterations: 0 };
}
