import { atomic, type DeviceArray, type Recorder, rw, u32, wgsl } from '@weft/gpu';
import { type DeviceGraph, FrontierQueue } from '@weft/graph';
import { AdvanceWorkspace, advancePush, type IterationLog, resolveLoadBalance } from '@weft/operators';
import { checkSource, type Problem, prepareLoadBalance, recordSet, runProblem } from '../common.ts';
import { type BfsLevel, type BfsState, UNREACHED } from './level.ts';
import { type BfsOptions, type BfsProblemOptions, type BfsResult, variantOf } from './options.ts';

export type { BfsOptions, BfsProblemOptions, BfsResult } from './options.ts';

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

/** Breadth-first search from `source`: depths (and parents), with the enactor's batched submits. */
export async function bfs(graph: DeviceGraph, source: number, options: BfsOptions = {}): Promise<BfsResult> {
  checkSource(graph, source);
  await prepareLoadBalance(graph, options.loadBalance);
  const problem = new BfsProblem(graph, options);
  const run = await runProblem(graph, problem, (rec) => problem.reset(rec, source), options);
  return { ...run.result, iterations: run.iterations, ...(run.trace ? { trace: run.trace } : {}) };
}
