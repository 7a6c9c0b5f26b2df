import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type GpuCount,
  InputError,
  type Kernel,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  compute,
  type LoadBalance,
  neighborFunctor,
  queueDrainWgsl,
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
  /** Steps: with `peel: 'local'` a dispatch a level (levels without vertices to peel are mostly skipped). */
  iterations: number;
}

export interface CoreNumberOptions extends RunOptions, LoadBalanceOption {
  /**
   * How a level's peeling spreads. `'local'` (default): one dispatch a level; each workgroup takes the
   * remaining vertices of its share whose degree fell below k and peels the cascade they start itself, so
   * a level costs one dispatch however long its cascades. `'advance'`: a frontier step a cascade round
   * (advance from the leaving vertices with `loadBalance`, then a refill when the frontier is empty); the
   * path for graphs whose arcs are stored in chunks.
   */
  peel?: 'local' | 'advance';
}

/**
 * Threads of a local-peeling workgroup, and the vertices one drain of its queue holds: a small queue
 * overflows early, and the level's rerun spreads the pending vertices over every workgroup instead of one
 * workgroup carrying a large cascade alone.
 */
const PEEL_WORKGROUP = 256;
const PEEL_QUEUE = 256;
/** Core values of vertices claimed but not yet walked (their workgroup's queue was full). */
const PENDING = 0x80000000;

/**
 * Core numbers with one dispatch a level: at level k each workgroup scans its share of the vertices left,
 * claims (compare-exchange on `core`) each one of degree below k, and walks the claimed vertices' edges
 * from a queue in workgroup memory, decrementing neighbors' degrees; a neighbor whose degree falls from k to
 * k - 1 is claimed and queued by the same workgroup, so cascades finish inside the dispatch without any
 * workgroup waiting on another. The vertices that stay are written to the next level's list, so a level
 * scans only what is left. A vertex that finds its workgroup's queue full keeps a pending mark, joins the
 * next list and the level runs again. Levels with no vertex to peel are skipped: each dispatch also takes
 * the smallest degree it saw among the vertices left (never above the true smallest) and the next level
 * starts just above it. `graph` must be undirected and simple.
 */
export class LocalCoreNumberProblem implements Problem<{ core: Uint32Array; maxCore: number }> {
  /** Per vertex: its core number, 0xffffffff until peeled. */
  readonly core: DeviceArray<'u32'>;
  /** Per vertex: its degree among the vertices not yet peeled (peeled ones may lag). */
  readonly degree: DeviceArray<'u32'>;
  /**
   * [level k, vertices not yet walked, smallest degree seen left, a queue overflowed, length of list 0,
   * length of list 1].
   */
  readonly #state: DeviceArray<'u32'>;
  /** The vertices left, read by even steps and written by odd ones (list 0), and the other way round. */
  readonly #lists: [DeviceArray<'u32'>, DeviceArray<'u32'>];
  readonly #workgroups: number;
  readonly #queue: number;
  #kernel: Kernel | undefined;

  /** `queue`: the vertices a workgroup's queue holds (tests shrink it to make levels overflow). */
  constructor(
    readonly graph: DeviceGraph,
    options: { queue?: number } = {},
  ) {
    checkOptionsObject('new LocalCoreNumberProblem', options);
    const device = graph.device;
    const n = Math.max(1, graph.vertexCount);
    this.core = device.array('u32', n, { label: 'kcore core' });
    this.degree = device.array('u32', n, { label: 'kcore degree' });
    this.#state = device.array('u32', 6, { label: 'kcore state' });
    // A vertex is listed once as left and at most once more as pending: 2n entries suffice.
    this.#lists = [
      device.array('u32', 2 * n, { label: 'kcore vertices left 0' }),
      device.array('u32', 2 * n, { label: 'kcore vertices left 1' }),
    ];
    // About a few workgroups per multiprocessor on large GPUs; each scans its chunks strided over the grid.
    this.#workgroups = Math.max(1, Math.min(1024, Math.ceil(graph.vertexCount / PEEL_WORKGROUP)));
    this.#queue = options.queue ?? PEEL_QUEUE;
  }

  async reset(rec: Recorder): Promise<void> {
    const { offsets } = this.graph;
    await transform(
      rec,
      this.graph.vertexCount,
      wgsl`(v: u32) {
  ${rw(this.degree)}[v] = ${offsets}[v + 1u] - ${offsets}[v];
  ${rw(this.core)}[v] = ${u32(NONE)};
  ${rw(this.#lists[0])}[v] = v;
}`,
    );
    const n = u32(this.graph.vertexCount);
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  ${rw(this.#state)}[0] = 0u;
  ${rw(this.#state)}[1] = ${n};
  ${rw(this.#state)}[2] = 0u;
  ${rw(this.#state)}[3] = 0u;
  ${rw(this.#state)}[4] = ${n};
  ${rw(this.#state)}[5] = 0u;
}`,
    );
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) return;
    const parity = iteration % 2;
    const state = rw(this.#state);
    // The next level: the same one again after an overflow, else just above the smallest degree left.
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  if (${state}[3] != 0u) {
    ${state}[3] = 0u;
  } else {
    let k = ${state}[0];
    let low = ${state}[2];
    ${state}[0] = select(max(k + 1u, low + 1u), k + 1u, low == ${u32(NONE)});
  }
  ${state}[2] = ${u32(NONE)};
  ${state}[${u32(5 - parity)}] = 0u;
}`,
    );
    const chunked = this.graph.chunked;
    this.#kernel ??= await localPeelKernel(rec.device, this.#queue, this.graph);
    rec.dispatch(this.#kernel, {
      bindings: {
        offsets: this.graph.offsets,
        ...(chunked ? {} : { neighbors: this.graph.targets }),
        core: this.core,
        degree: this.degree,
        state: this.#state,
        list_in: this.#lists[parity]!,
        list_out: this.#lists[1 - parity]!,
      },
      params: { in_count: 4 + parity, out_count: 5 - parity },
      workgroups: this.#workgroups,
    });
  }

  active(): GpuCount {
    return { array: this.#state, index: 1 };
  }

  async result(): Promise<{ core: Uint32Array; maxCore: number }> {
    return coreResult(this.core, this.graph.vertexCount);
  }

  destroy(): void {
    for (const a of [this.core, this.degree, this.#state, ...this.#lists]) a.destroy();
  }
}

function localPeelKernel(device: WeftDevice, queue: number, graph: DeviceGraph): Promise<Kernel> {
  // Targets in chunks are read through the chunk accessor; one array stays a plain binding.
  const chunked = graph.chunked;
  return device.kernel({
    label: 'kcore local peel',
    params: { in_count: 'u32', out_count: 'u32' },
    ...(chunked ? { functors: { weft_neighbor: neighborFunctor(graph.chunkedTargets) } } : {}),
    bindings: {
      offsets: { type: 'array<u32>', access: 'read' },
      ...(chunked ? {} : { neighbors: { type: 'array<u32>', access: 'read' } }),
      core: { type: 'array<atomic<u32>>', access: 'read_write' },
      degree: { type: 'array<atomic<u32>>', access: 'read_write' },
      state: { type: 'array<atomic<u32>>', access: 'read_write' },
      list_in: { type: 'array<u32>', access: 'read' },
      list_out: { type: 'array<u32>', access: 'read_write' },
    },
    code: localPeelWgsl(queue, chunked),
  });
}

/**
 * The queue (`queueDrainWgsl`) is drained after each scanned chunk, so it only has to hold one chunk's
 * cascades. Claimed vertices are counted off `state[1]` once they are sure to be walked in this dispatch (or
 * have no edges). A chunk's vertices that stay are appended to the next list with one atomic per chunk; a
 * pending vertex is appended by the thread that marked it, and a compare-exchange takes it, so a second
 * listing of it is harmless.
 */
function localPeelWgsl(queue: number, chunked: boolean): string {
  return /* wgsl */ `${queueDrainWgsl(PEEL_WORKGROUP, queue, false, chunked)}
const NONE = ${NONE}u;
const PENDING = ${PENDING}u;

var<workgroup> low: atomic<u32>;
var<workgroup> walked: atomic<u32>;
var<workgroup> kept: atomic<u32>;
var<private> level: u32;

fn claim(v: u32, k: u32) -> bool {
  loop {
    let r = atomicCompareExchangeWeak(&core[v], NONE, k - 1u);
    if (r.exchanged) { return true; }
    if (r.old_value != NONE) { break; }
  }
  return false;
}

fn take_pending(v: u32, k: u32) -> bool {
  loop {
    let r = atomicCompareExchangeWeak(&core[v], (k - 1u) | PENDING, k - 1u);
    if (r.exchanged) { return true; }
    if (r.old_value != ((k - 1u) | PENDING)) { break; }
  }
  return false;
}

fn enqueue(v: u32, k: u32) {
  if (offsets[v + 1u] == offsets[v]) {
    atomicAdd(&walked, 1u);
    return;
  }
  let slot = atomicAdd(&tail, 1u);
  if (slot < CAP) {
    queue[slot] = v;
    atomicAdd(&walked, 1u);
  } else {
    atomicStore(&core[v], (k - 1u) | PENDING);
    atomicStore(&state[3], 1u);
    let at = atomicAdd(&state[params.out_count], 1u);
    if (at < arrayLength(&list_out)) { list_out[at] = v; }
  }
}

fn weft_visit(src: u32, dst: u32, e: u32) {
  let k = level;
  if (atomicLoad(&core[dst]) != NONE) { return; }
  let old = atomicSub(&degree[dst], 1u);
  if (old == k) {
    if (claim(dst, k)) { enqueue(dst, k); }
  } else if (old > k) {
    atomicMin(&low, old - 1u);
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  if (lid == 0u) {
    atomicStore(&low, NONE);
    uniform_word = atomicLoad(&state[params.in_count]);
  }
  let length = workgroupUniformLoad(&uniform_word);
  let k = atomicLoad(&state[0]);
  level = k;
  let chunks = (length + WG - 1u) / WG;
  for (var chunk = wid.x; chunk < chunks; chunk += nwg.x) {
    let i = chunk * WG + lid;
    var stays = false;
    var v = 0u;
    if (i < length) {
      v = list_in[i];
      let c = atomicLoad(&core[v]);
      if (c == NONE) {
        let d = atomicLoad(&degree[v]);
        if (d < k) {
          if (claim(v, k)) { enqueue(v, k); }
        } else {
          stays = true;
          atomicMin(&low, d);
        }
      } else if (c == ((k - 1u) | PENDING)) {
        if (take_pending(v, k)) { enqueue(v, k); }
      }
    }
    var at = 0u;
    if (stays) { at = atomicAdd(&kept, 1u); }
    workgroupBarrier();
    if (lid == 0u) {
      uniform_word = atomicAdd(&state[params.out_count], atomicLoad(&kept));
      atomicStore(&kept, 0u);
    }
    let base = workgroupUniformLoad(&uniform_word);
    if (stays && base + at < arrayLength(&list_out)) { list_out[base + at] = v; }
    drain_queue(lid);
  }
  workgroupBarrier();
  if (lid == 0u) {
    atomicMin(&state[2], atomicLoad(&low));
    atomicSub(&state[1], atomicLoad(&walked));
  }
}`;
}

async function coreResult(
  core: DeviceArray<'u32'>,
  n: number,
): Promise<{ core: Uint32Array; maxCore: number }> {
  const values = n === 0 ? new Uint32Array(0) : await core.download(0, n);
  let maxCore = 0;
  for (let v = 0; v < n; v++) maxCore = Math.max(maxCore, values[v]!);
  return { core: values, maxCore };
}

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
    checkOptionsObject('new CoreNumberProblem', options);
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
    return coreResult(this.core, this.graph.vertexCount);
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
  checkOptionsObject('coreNumber', options);
  checkDeviceGraph(graph);
  const peel = options.peel ?? 'local';
  if (peel !== 'local' && peel !== 'advance') {
    throw new InputError(`coreNumber: peel must be 'local' or 'advance', got '${peel}'`, 'peel');
  }
  const simple = await simpleUndirectedGraph(graph);
  try {
    const local = peel === 'local';
    if (!local) await prepareLoadBalance(simple, options.loadBalance);
    const problem = local ? new LocalCoreNumberProblem(simple) : new CoreNumberProblem(simple, options);
    const run = await runProblem(simple, problem, (rec) => problem.reset(rec), options);
    return { ...run.result, undirected: graph.directed, iterations: run.iterations };
  } finally {
    if (simple !== graph) simple.destroy();
  }
}
