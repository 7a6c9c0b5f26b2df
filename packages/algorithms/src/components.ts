import {
  atomic,
  type DeviceArray,
  type GpuCount,
  InputError,
  type Recorder,
  rw,
  transform,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, FrontierBitmap, FrontierQueue } from '@weft/graph';
import { AdvanceWorkspace, advancePush, IterationLog, type IterationTrace } from '@weft/operators';
import {
  advanceBalance,
  enactTraced,
  type LoadBalance,
  type LoadBalanceOption,
  type RunOptions,
  resolveLoadBalance,
  type TraceOption,
} from './common.ts';

export interface ComponentsResult {
  /** Each vertex's component, named by its smallest vertex id. */
  labels: Uint32Array;
  count: number;
  iterations: number;
  /** With `trace: true`: per iteration, the vertices whose label changed and their out- (and in-) degrees. */
  trace?: IterationTrace;
}

/**
 * Weakly connected components by label propagation: every vertex starts with its own id; each iteration
 * pushes the labels of the vertices that changed to their neighbors with `atomicMin` (both edge directions
 * of a directed graph, which needs its CSC), until no label changes. Converges in about the diameter.
 */
export class ComponentsProblem {
  readonly labels: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  readonly #changed: FrontierBitmap;
  readonly #space: AdvanceWorkspace;
  /** When set, each step logs its input frontier length and the edges it walks here. */
  log: IterationLog | undefined;

  constructor(
    readonly device: WeftDevice,
    readonly graph: DeviceGraph,
    readonly options: { loadBalance?: LoadBalance } = {},
  ) {
    this.labels = device.array('u32', Math.max(1, graph.vertexCount), { label: 'cc labels' });
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'cc frontier' });
    this.#changed = new FrontierBitmap(device, graph.vertexCount, 'cc changed');
    this.#space = new AdvanceWorkspace(device, this.queue.capacity);
  }

  async reset(rec: Recorder): Promise<void> {
    await transform(rec, this.graph.vertexCount, wgsl`(v: u32) { ${rw(this.labels)}[v] = v; }`);
    await this.queue.recordAll(rec);
  }

  /** Records one iteration; `iteration` (0-based) is needed only with a {@link ComponentsProblem.log}. */
  async step(rec: Recorder, iteration = 0): Promise<void> {
    if (this.log) {
      await this.log.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
      const inOffsets = this.graph.csc?.inOffsets;
      if (this.graph.directed && inOffsets) {
        await this.log.addDegrees(rec, this.log.slot(iteration).edges, this.queue.current, inOffsets);
      }
    }
    const label = atomic(this.labels);
    const spread = wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  let l = atomicLoad(&${label}[src]);
  if (l >= atomicLoad(&${label}[dst])) { return false; }
  return l < atomicMin(&${label}[dst], l);
}`;
    this.#changed.recordClear(rec);
    const common = {
      output: this.queue.next,
      visited: this.#changed,
      workspace: this.#space,
      loadBalance: advanceBalance(this.options.loadBalance ?? 'merge-path'),
    };
    await advancePush(rec, this.graph, this.queue.current, spread, common);
    if (this.graph.directed) {
      await advancePush(rec, this.graph, this.queue.current, spread, {
        ...common,
        direction: 'in',
        append: true,
      });
    }
    this.queue.swap();
  }

  active(): GpuCount {
    return this.queue.length;
  }

  /** The frontier's capacity, so the enactor can report an overflow (none is expected: appends are unique). */
  get capacity(): number {
    return this.queue.capacity;
  }

  async result(): Promise<{ labels: Uint32Array; count: number }> {
    const n = this.graph.vertexCount;
    const labels = n === 0 ? new Uint32Array(0) : await this.labels.download(0, n);
    let count = 0;
    for (let v = 0; v < n; v++) if (labels[v] === v) count++;
    return { labels, count };
  }

  destroy(): void {
    this.labels.destroy();
    this.queue.destroy();
    this.#changed.destroy();
    this.#space.destroy();
  }
}

/** Weakly connected components: labels (the smallest vertex id of each component) and their count. */
export async function connectedComponents(
  device: WeftDevice,
  graph: DeviceGraph,
  options: RunOptions & LoadBalanceOption & TraceOption = {},
): Promise<ComponentsResult> {
  if (graph.directed && !graph.csc) {
    throw new InputError(
      'weak components of a directed graph need its in-edges: uploadGraph(..., { csc: true })',
      'graph',
    );
  }
  const loadBalance = await resolveLoadBalance(device, graph, options.loadBalance);
  const problem = new ComponentsProblem(device, graph, { loadBalance });
  try {
    const rec = device.recorder({ label: 'cc reset' });
    await problem.reset(rec);
    await rec.submit();
    if (options.trace) problem.log = new IterationLog(device);
    const { iterations, trace } = await enactTraced(
      device,
      { step: (r, i) => problem.step(r, i), active: () => problem.active(), capacity: problem.capacity },
      problem.log,
      options,
    );
    return { ...(await problem.result()), iterations, ...(trace ? { trace } : {}) };
  } finally {
    problem.log?.destroy();
    problem.destroy();
  }
}
