import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  InputError,
  rw,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import { Cascade, compute, enact, neighborhoodReduce } from '@weft/operators';
import { reduce } from '@weft/scan';
import type { RunOptions } from './common.ts';
import { connectedComponents } from './components.ts';
import { countRoots } from './roots.ts';

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

export type SccOptions = RunOptions;

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
    const count = await countRoots(labels, n);
    const host = n === 0 ? new Uint32Array(0) : await labels.download(0, n);
    return { labels: host, count, rounds, iterations: this.iterations };
  }

  async #trim(): Promise<void> {
    const plain = this.labels;
    const live = wgsl`(v: u32, w: u32, edge: u32) -> u32 { return select(0u, 1u, w != v && ${plain}[w] == ${u32(NONE)}); }`;
    const rec = this.device.recorder({ label: 'scc trim counts' });
    await neighborhoodReduce(rec, this.graph, 'all', live, this.outCount);
    await neighborhoodReduce(rec, this.graph, 'all', live, this.inCount, { direction: 'in' });
    await rec.submit();
    const label = atomic(this.labels);
    const outLeft = atomic(this.outCount);
    const inLeft = atomic(this.inCount);
    const lone = wgsl`(v: u32) -> bool {
  if (atomicLoad(&${label}[v]) != ${u32(NONE)}) { return false; }
  if (atomicLoad(&${outLeft}[v]) != 0u && atomicLoad(&${inLeft}[v]) != 0u) { return false; }
  return atomicMin(&${label}[v], v) == ${u32(NONE)};
}`;
    // A peeled vertex's neighbors lose one in- (out-edges) or out-neighbor (in-edges): at 0 they are trimmed.
    const peel = (left: typeof inLeft) => wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (dst == src || atomicLoad(&${label}[dst]) != ${u32(NONE)}) { return false; }
  if (atomicSub(&${left}[dst], 1u) != 1u) { return false; }
  return atomicMin(&${label}[dst], dst) == ${u32(NONE)};
}`;
    await this.#cascade(lone, peel(inLeft), 'both', peel(outLeft));
  }

  /** Runs `edge` from the vertices where `seed` holds to its fixed point (see `Cascade`). */
  async #cascade(
    seed: Functor,
    edge: Functor,
    direction: 'out' | 'in' | 'both',
    inEdge?: Functor,
  ): Promise<void> {
    const cascade = new Cascade(this.graph, seed, edge, {
      direction,
      edgeIds: false,
      ...(inEdge ? { inEdge } : {}),
    });
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
  checkOptionsObject('stronglyConnectedComponents', options);
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
  const run = new SccRun(graph, options);
  try {
    return await run.run();
  } finally {
    run.destroy();
  }
}
