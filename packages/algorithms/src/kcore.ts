import { atomic, type DeviceArray, type GpuCount, type Recorder, rw, transform, u32, wgsl } from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  compute,
  type LoadBalance,
  resolveLoadBalance,
} from '@weft/operators';
import {
  type LoadBalanceOption,
  type Problem,
  prepareLoadBalance,
  type RunOptions,
  runProblem,
} from './common.ts';
import { simpleUndirectedGraph } from './undirected.ts';

const NONE = 0xffffffff;

export interface CoreNumberResult {
  /** Each vertex's core number: the largest k such that it belongs to a subgraph of minimum degree k. */
  core: Uint32Array;
  /** The largest core number (0 for a graph without edges). */
  maxCore: number;
  /** True when `graph` was directed and its arcs were read as undirected edges. */
  undirected: boolean;
  /** Peeling iterations: at least one per core value. */
  iterations: number;
}

export type CoreNumberOptions = RunOptions & LoadBalanceOption;

/**
 * Core numbers by parallel peeling: at level k, every remaining vertex of degree below k gets core k - 1
 * and leaves; an advance from the leaving vertices decrements their neighbors' degrees atomically, and a
 * neighbor whose degree falls from k to k - 1 (exactly one decrement sees that) leaves next, at the same
 * level. When a level's frontier is empty, k grows and a compute over the remaining vertices refills it,
 * dispatched indirectly so that it costs nothing while the frontier is not empty. Nothing is read back per
 * iteration: the enactor watches the count of vertices not yet peeled. `graph` must be undirected and
 * simple (`coreNumber` builds that graph from any input).
 */
export class CoreNumberProblem implements Problem<{ core: Uint32Array; maxCore: number }> {
  /** Per vertex: its core number, 0xffffffff until peeled. */
  readonly core: DeviceArray<'u32'>;
  /** Per vertex: its degree among the vertices not yet peeled (peeled ones may lag). */
  readonly degree: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  /** [level k, vertices not yet taken from a frontier]. */
  readonly #state: DeviceArray<'u32'>;
  /** The refill's dispatch count: the vertex count when the frontier is empty, else 0. */
  readonly #refill: DeviceArray<'u32'>;
  readonly #space: AdvanceWorkspace;
  readonly #loadBalance: Exclude<LoadBalance, 'auto'>;

  /** With `loadBalance` `'auto'` (default) the largest out-degree must be known. */
  constructor(
    readonly graph: DeviceGraph,
    options: LoadBalanceOption = {},
  ) {
    const device = graph.device;
    const n = Math.max(1, graph.vertexCount);
    this.#loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
    this.core = device.array('u32', n, { label: 'kcore core' });
    this.degree = device.array('u32', n, { label: 'kcore degree' });
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'kcore frontier' });
    this.#state = device.array('u32', 2, { label: 'kcore state' });
    this.#refill = device.array('u32', 1, { label: 'kcore refill' });
    this.#space = new AdvanceWorkspace(device, this.queue.capacity);
  }

  async reset(rec: Recorder): Promise<void> {
    const { offsets } = this.graph;
    await transform(
      rec,
      this.graph.vertexCount,
      wgsl`(v: u32) {
  ${rw(this.degree)}[v] = ${offsets}[v + 1u] - ${offsets}[v];
  ${rw(this.core)}[v] = ${u32(NONE)};
}`,
    );
    await transform(
      rec,
      1,
      wgsl`(i: u32) { ${rw(this.#state)}[0] = 0u; ${rw(this.#state)}[1] = ${u32(this.graph.vertexCount)}; }`,
    );
    this.queue.recordClear(rec);
  }

  async step(rec: Recorder): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) return;
    const state = this.#state;
    const current = this.queue.current;
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  let refill = ${current.length.array}[0] == 0u && ${rw(state)}[1] > 0u;
  if (refill) { ${rw(state)}[0] += 1u; }
  ${rw(this.#refill)}[0] = select(0u, ${u32(n)}, refill);
}`,
    );
    const core = rw(this.core);
    await compute(
      rec,
      { all: { array: this.#refill, index: 0 } },
      wgsl`(v: u32) {
  let k = ${state}[0];
  if (${core}[v] == ${u32(NONE)} && ${this.degree}[v] < k) {
    ${core}[v] = k - 1u;
    let slot = atomicAdd(&${atomic(current.length.array)}[0], 1u);
    ${rw(current.items)}[slot] = v;
  }
}`,
    );
    const peel = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let k = ${state}[0];
  if (atomicSub(&${atomic(this.degree)}[dst], 1u) != k) { return false; }
  ${core}[dst] = k - 1u;
  return true;
}`;
    await advancePush(rec, this.graph, current, peel, {
      output: this.queue.next,
      workspace: this.#space,
      loadBalance: this.#loadBalance,
    });
    await transform(rec, 1, wgsl`(i: u32) { ${rw(state)}[1] -= ${current.length.array}[0]; }`);
    this.queue.swap();
  }

  active(): GpuCount {
    return { array: this.#state, index: 1 };
  }

  async result(): Promise<{ core: Uint32Array; maxCore: number }> {
    const n = this.graph.vertexCount;
    const core = n === 0 ? new Uint32Array(0) : await this.core.download(0, n);
    let maxCore = 0;
    for (let v = 0; v < n; v++) maxCore = Math.max(maxCore, core[v]!);
    return { core, maxCore };
  }

  destroy(): void {
    for (const a of [this.core, this.degree, this.#state, this.#refill]) a.destroy();
    this.queue.destroy();
    this.#space.destroy();
  }
}

/**
 * Core numbers (networkx `core_number`) of an undirected graph. A directed graph, self-loops and parallel
 * edges are read as the simple undirected graph of the arcs, built on the GPU first.
 */
export async function coreNumber(
  graph: DeviceGraph,
  options: CoreNumberOptions = {},
): Promise<CoreNumberResult> {
  checkDeviceGraph(graph);
  const simple = await simpleUndirectedGraph(graph);
  try {
    await prepareLoadBalance(simple, options.loadBalance);
    const problem = new CoreNumberProblem(simple, options);
    const run = await runProblem(simple, problem, (rec) => problem.reset(rec), options);
    return { ...run.result, undirected: graph.directed, iterations: run.iterations };
  } finally {
    if (simple !== graph) simple.destroy();
  }
}
