import {
  atomic,
  type DeviceArray,
  type Functor,
  InputError,
  type Recorder,
  rw,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  Cascade,
  compute,
  enact,
  type LoadBalance,
  neighborhoodReduce,
  resolveLoadBalance,
} from '@weft/operators';
import { reduce } from '@weft/scan';
import { type LoadBalanceOption, prepareLoadBalance, type RunOptions } from './common.ts';
import { connectedComponents } from './components.ts';

const NONE = 0xffffffff;

export interface SccResult {
  /** Each vertex's strongly connected component, named by its smallest vertex id. */
  labels: Uint32Array;
  count: number;
  /** Rounds of trimming, colouring and backward search (at least one). */
  rounds: number;
  /** Enactor iterations over all phases of all rounds. */
  iterations: number;
}

export type SccOptions = RunOptions & LoadBalanceOption;

/**
 * Strongly connected components by trimming and colouring (Orzan; Slota et al.'s Multistep without the
 * single forward-backward step). Each round, among the vertices not yet labelled:
 * 1. trim: a vertex without in- or out-neighbors is its own component; peeling it decrements its
 *    neighbors' counts atomically, and a count reaching 0 trims that neighbor next (a chain of one-vertex
 *    components goes in one round);
 * 2. colour: every vertex takes the smallest id that reaches it, by pushing `atomicMin` along out-edges
 *    from every vertex whose colour changed until nothing changes (a `Cascade`: each workgroup carries the
 *    changes it starts as far as they go inside one dispatch);
 * 3. a vertex whose colour is its own id is a root; a backward search from each root through in-edges,
 *    within its colour, reaches exactly its component (every vertex of that colour that reaches the root),
 *    and labels it with the root, its smallest vertex.
 * The remaining vertex of smallest id is always a root, so each round labels at least one component. Each
 * phase is an enactor loop (no read-back per iteration); one count is read back per round.
 */
class SccRun {
  readonly device: WeftDevice;
  readonly n: number;
  /** Per vertex: its component, 0xffffffff while not yet found. */
  readonly labels: DeviceArray<'u32'>;
  readonly colors: DeviceArray<'u32'>;
  readonly outCount: DeviceArray<'u32'>;
  readonly inCount: DeviceArray<'u32'>;
  readonly remaining: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  readonly space: AdvanceWorkspace;
  readonly loadBalance: Exclude<LoadBalance, 'auto'>;
  iterations = 0;

  constructor(
    readonly graph: DeviceGraph,
    readonly options: SccOptions,
  ) {
    const device = graph.device;
    this.device = device;
    this.n = graph.vertexCount;
    const array = (label: string) => device.array('u32', Math.max(1, this.n), { label: `scc ${label}` });
    this.labels = array('labels');
    this.colors = array('colors');
    this.outCount = array('out-neighbors left');
    this.inCount = array('in-neighbors left');
    this.remaining = device.array('u32', 1, { label: 'scc remaining' });
    this.queue = new FrontierQueue(device, this.n, { label: 'scc frontier' });
    this.space = new AdvanceWorkspace(device, this.queue.capacity);
    this.loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
  }

  /** Records: the current frontier becomes the vertices for which `pick(v: u32) -> bool` holds. */
  async #seed(rec: Recorder, pick: Functor): Promise<void> {
    const { items, length } = this.queue.current;
    this.queue.recordClear(rec);
    await compute(
      rec,
      { all: this.n },
      wgsl`(v: u32) {
  if (${pick}(v)) {
    let slot = atomicAdd(&${atomic(length.array)}[0], 1u);
    ${rw(items)}[slot] = v;
  }
}`,
    );
  }

  /**
   * Runs one phase to convergence: iteration 0 seeds the frontier with `seed`, then every iteration
   * advances from it along `advances` (a direction and an edge functor each) into the next frontier.
   */
  async #phase(seed: (rec: Recorder) => Promise<void>, advances: ['out' | 'in', Functor][]): Promise<void> {
    const queue = this.queue;
    const run = await enact(
      this.device,
      {
        step: async (rec, iteration) => {
          if (iteration === 0) await seed(rec);
          for (const [i, [direction, functor]] of advances.entries()) {
            await advancePush(rec, this.graph, queue.current, functor, {
              output: queue.next,
              append: i > 0,
              direction,
              workspace: this.space,
              loadBalance: this.loadBalance,
            });
          }
          queue.swap();
        },
        active: () => queue.length,
        capacity: queue.capacity,
      },
      this.options,
    );
    this.iterations += run.iterations;
  }

  async run(): Promise<SccResult> {
    const n = this.n;
    const labels = this.labels;
    await labels.fill(NONE);
    let rounds = 0;
    let left = n;
    while (left > 0) {
      rounds++;
      await this.#trim();
      await this.#color();
      await this.#backward();
      left = await this.#unlabelled();
    }
    const host = n === 0 ? new Uint32Array(0) : await labels.download(0, n);
    let count = 0;
    for (let v = 0; v < n; v++) if (host[v] === v) count++;
    return { labels: host, count, rounds, iterations: this.iterations };
  }

  async #trim(): Promise<void> {
    const label = this.labels;
    const live = wgsl`(v: u32, w: u32, edge: u32) -> u32 { return select(0u, 1u, w != v && ${label}[w] == ${u32(NONE)}); }`;
    const count = async (rec: Recorder) => {
      await neighborhoodReduce(rec, this.graph, 'all', live, this.outCount);
      await neighborhoodReduce(rec, this.graph, 'all', live, this.inCount, { direction: 'in' });
    };
    const lone = wgsl`(v: u32) -> bool {
  if (${rw(label)}[v] != ${u32(NONE)} || (${this.outCount}[v] != 0u && ${this.inCount}[v] != 0u)) { return false; }
  ${rw(label)}[v] = v;
  return true;
}`;
    // A peeled vertex's neighbors lose one in- (out-edges) or out-neighbor (in-edges): at 0 they are trimmed.
    const peel = (left: DeviceArray<'u32'>) => wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (dst == src || atomicLoad(&${atomic(label)}[dst]) != ${u32(NONE)}) { return false; }
  if (atomicSub(&${atomic(left)}[dst], 1u) != 1u) { return false; }
  return atomicMin(&${atomic(label)}[dst], dst) == ${u32(NONE)};
}`;
    await this.#phase(
      async (rec) => {
        await count(rec);
        await this.#seed(rec, lone);
      },
      [
        ['out', peel(this.inCount)],
        ['in', peel(this.outCount)],
      ],
    );
  }

  /** Runs `edge` from the vertices where `seed` holds to its fixed point (see `Cascade`). */
  async #cascade(seed: Functor, edge: Functor, direction: 'out' | 'in'): Promise<void> {
    const cascade = new Cascade(this.graph, seed, edge, { direction });
    try {
      const run = await enact(this.device, cascade, this.options);
      this.iterations += run.iterations;
    } finally {
      cascade.destroy();
    }
  }

  async #color(): Promise<void> {
    const label = this.labels;
    const color = atomic(this.colors);
    await compute(this.device, { all: this.n }, wgsl`(v: u32) { atomicStore(&${color}[v], v); }`);
    const start = wgsl`(v: u32) -> bool { return ${label}[v] == ${u32(NONE)}; }`;
    const spread = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (${label}[dst] != ${u32(NONE)}) { return false; }
  let c = atomicLoad(&${color}[src]);
  if (c >= atomicLoad(&${color}[dst])) { return false; }
  return c < atomicMin(&${color}[dst], c);
}`;
    await this.#cascade(start, spread, 'out');
  }

  async #backward(): Promise<void> {
    const label = atomic(this.labels);
    const color = this.colors;
    const root = wgsl`(v: u32) -> bool {
  if (atomicLoad(&${label}[v]) != ${u32(NONE)} || ${color}[v] != v) { return false; }
  return atomicMin(&${label}[v], v) == ${u32(NONE)};
}`;
    // Every claimant of a vertex writes the same label, its colour: the first atomicMin claims it.
    const reach = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (atomicLoad(&${label}[dst]) != ${u32(NONE)}) { return false; }
  let c = ${color}[src];
  if (${color}[dst] != c) { return false; }
  return atomicMin(&${label}[dst], c) == ${u32(NONE)};
}`;
    await this.#cascade(root, reach, 'in');
  }

  /** The vertices still unlabelled (one read-back); `outCount` is free until the next trim. */
  async #unlabelled(): Promise<number> {
    const rec = this.device.recorder({ label: 'scc unlabelled' });
    const flag = wgsl`(v: u32) { ${rw(this.outCount)}[v] = select(0u, 1u, ${this.labels}[v] == ${u32(NONE)}); }`;
    await compute(rec, { all: this.n }, flag);
    await reduce(rec, this.outCount, this.remaining, { count: this.n });
    await rec.submit();
    return (await this.remaining.download())[0]!;
  }

  destroy(): void {
    for (const a of [this.labels, this.colors, this.outCount, this.inCount, this.remaining]) a.destroy();
    this.queue.destroy();
    this.space.destroy();
  }
}

/**
 * Strongly connected components of a directed graph (an undirected one's are its connected components):
 * labels (the smallest vertex id of each component) and their count. A directed graph needs its in-edges:
 * `uploadGraph(..., { csc: true })`.
 */
export async function stronglyConnectedComponents(
  graph: DeviceGraph,
  options: SccOptions = {},
): Promise<SccResult> {
  checkDeviceGraph(graph);
  if (graph.directed && !graph.csc) {
    throw new InputError(
      'strongly connected components of a directed graph need its in-edges: uploadGraph(..., { csc: true })',
      'graph',
    );
  }
  if (!graph.directed) {
    // An undirected graph's strongly connected components are its connected components: union-find takes
    // a few passes where colouring would take as many iterations as the diameter.
    const cc = await connectedComponents(graph, options.signal ? { signal: options.signal } : {});
    return { labels: cc.labels, count: cc.count, rounds: 1, iterations: cc.iterations };
  }
  await prepareLoadBalance(graph, options.loadBalance);
  const run = new SccRun(graph, options);
  try {
    return await run.run();
  } finally {
    run.destroy();
  }
}
