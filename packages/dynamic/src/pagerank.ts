import {
  atomic,
  type DeviceArray,
  type Functor,
  f32,
  InputError,
  lit,
  max,
  type Recorder,
  rw,
  transformItemsPerWorkgroup,
  u32,
  wgsl,
  writeDispatchArgs,
} from '@weft/gpu';
import { compute, enact } from '@weft/operators';
import { reduce } from '@weft/scan';
import type { DynamicGraph } from './dynamic-graph.ts';
import { A_BUMP, COLLISION, KEY_SLOTS, NO_OWNER, OWNER_WORD, SLAB_WORDS, TOMBSTONE } from './layout.ts';

export interface DynamicPageRankOptions {
  /** Damping factor (default 0.85). */
  alpha?: number;
  /**
   * Stop when no vertex's rank changes by more than this, relative to the rank, in an iteration (default
   * 1e-5, as `@weft/algorithms`' `pageRank`).
   */
  tolerance?: number;
  /** Bound on iterations per run (default 100). */
  maxIterations?: number;
}

export interface DynamicPageRankRun {
  /** Power iterations of the last run. */
  iterations: number;
  /** False when `maxIterations` stopped it first. */
  converged: boolean;
  /** Submits of the enactor (each ends with one read-back of its status). */
  submits: number;
}

/**
 * PageRank on a {@link DynamicGraph} (networkx's definition, as `@weft/algorithms`' `pageRank`: uniform
 * teleport, dangling rank spread evenly), power iteration straight over the slab tables: a thread per slab
 * adds its keys' shares, pulled into the owner with one f32 add per slab on an undirected graph, pushed to
 * each key's vertex on a directed one. {@link update} starts from the ranks of the previous run (warm
 * start), which after a small batch of changes is already close to the new fixed point, so it converges
 * in fewer iterations than {@link recompute} from the uniform vector. The iteration contracts by `alpha`
 * from any start, so every change to the graph (edges, vertices) is allowed between runs.
 *
 * Every vertex id below the graph's `vertexCount` takes part (deleted and never-inserted ids as isolated
 * vertices), as in the graph's CSR snapshot; ids new since the last run start at `1 / vertexCount`.
 */
export class DynamicPageRank {
  /** f32 ranks, one per vertex slot (the first `vertexCount` meaningful). */
  ranks: DeviceArray<'f32'>;
  #contrib: DeviceArray<'f32'>;
  #dangling: DeviceArray<'f32'>;
  #change: DeviceArray<'f32'>;
  /** The sums of shares as f32 bits, for the compare-exchange add (WGSL has no f32 atomics). */
  #sums: DeviceArray<'u32'>;
  /** Element 0: the dangling rank sum; element 1: the largest relative change. */
  readonly #totals: DeviceArray<'f32'>;
  /**
   * [active, vertices this iteration, slabs this iteration, vertex dispatch arguments (3), slab dispatch
   * arguments (3)]: once converged, the counts are 0 and later iterations of a submit dispatch nothing.
   */
  readonly #gates: DeviceArray<'u32'>;
  readonly alpha: number;
  readonly tolerance: number;
  readonly maxIterations: number;
  /** Vertex ids the ranks cover (the graph's `vertexCount` at the last run). */
  #ranked = 0;
  /** What the last run did. */
  lastRun: DynamicPageRankRun = { iterations: 0, converged: true, submits: 0 };
  #destroyed = false;

  private constructor(
    readonly graph: DynamicGraph,
    options: DynamicPageRankOptions,
  ) {
    this.alpha = options.alpha ?? 0.85;
    this.tolerance = options.tolerance ?? 1e-5;
    this.maxIterations = options.maxIterations ?? 100;
    if (!(this.alpha >= 0 && this.alpha <= 1))
      throw new InputError(`alpha must be in [0, 1], got ${this.alpha}`, 'alpha');
    if (!(this.tolerance >= 0))
      throw new InputError(`tolerance must be >= 0, got ${this.tolerance}`, 'tolerance');
    if (!(this.maxIterations >= 0 && Number.isFinite(this.maxIterations))) {
      throw new InputError(
        `maxIterations must be a finite number >= 0, got ${this.maxIterations}`,
        'maxIterations',
      );
    }
    const d = graph.device;
    const n = graph.vertexCapacity;
    this.ranks = d.array('f32', n, { label: 'dynamic pagerank ranks' });
    this.#contrib = d.array('f32', n, { label: 'dynamic pagerank contributions' });
    this.#dangling = d.array('f32', n, { label: 'dynamic pagerank dangling' });
    this.#change = d.array('f32', n, { label: 'dynamic pagerank change' });
    this.#sums = d.array('u32', n, { label: 'dynamic pagerank sums' });
    this.#totals = d.array('f32', 2, { label: 'dynamic pagerank totals' });
    this.#gates = d.array('u32', 9, { label: 'dynamic pagerank gates', indirect: true });
  }

  /** Ranks of `graph` computed from the uniform vector. */
  static async create(graph: DynamicGraph, options: DynamicPageRankOptions = {}): Promise<DynamicPageRank> {
    if (graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicPageRank');
    const p = new DynamicPageRank(graph, options);
    await p.recompute();
    return p;
  }

  /** Runs from the uniform vector (a cold start). */
  async recompute(): Promise<DynamicPageRankRun> {
    this.#checkOpen();
    this.#ranked = 0;
    return this.#run();
  }

  /** Runs from the previous ranks (a warm start), after any batch of changes to the graph. */
  async update(): Promise<DynamicPageRankRun> {
    this.#checkOpen();
    return this.#run();
  }

  /** Ranks on the host, one per vertex id of the graph. */
  async result(): Promise<Float32Array> {
    this.#checkOpen();
    const n = this.graph.vertexCount;
    return n === 0 ? new Float32Array(0) : this.ranks.download(0, n);
  }

  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const a of this.#arrays()) a.destroy();
    this.#totals.destroy();
    this.#gates.destroy();
  }

  [Symbol.dispose]() {
    this.destroy();
  }

  #arrays(): DeviceArray[] {
    return [this.ranks, this.#contrib, this.#dangling, this.#change, this.#sums];
  }

  #checkOpen() {
    if (this.#destroyed) throw new InputError('this DynamicPageRank was destroyed', 'DynamicPageRank');
    if (this.graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicPageRank');
  }

  /** Follows the graph's vertex dictionary when it grew (the ranks are kept, the rest is scratch). */
  async #fit() {
    const capacity = this.graph.vertexCapacity;
    if (capacity <= this.ranks.length) return;
    const d = this.graph.device;
    const ranks = d.array('f32', capacity, { label: 'dynamic pagerank ranks' });
    const rec = d.recorder({ label: 'dynamic pagerank grow' });
    rec.copy(this.ranks, ranks, Math.min(this.#ranked, this.ranks.length));
    await rec.submit();
    for (const a of this.#arrays()) a.destroy();
    this.ranks = ranks;
    this.#contrib = d.array('f32', capacity, { label: 'dynamic pagerank contributions' });
    this.#dangling = d.array('f32', capacity, { label: 'dynamic pagerank dangling' });
    this.#change = d.array('f32', capacity, { label: 'dynamic pagerank change' });
    this.#sums = d.array('u32', capacity, { label: 'dynamic pagerank sums' });
  }

  async #run(): Promise<DynamicPageRankRun> {
    await this.#fit();
    const graph = this.graph;
    const n = graph.vertexCount;
    if (n === 0) {
      this.lastRun = { iterations: 0, converged: true, submits: 0 };
      return this.lastRun;
    }
    const from = Math.min(this.#ranked, n);
    const seed = graph.device.recorder({ label: 'dynamic pagerank seed' });
    // Ids new since the last run (all of them on a cold start) start at 1 / n and the others keep their
    // share, scaled so the ranks still sum to 1: the teleport term changed for every vertex, and an error
    // spread over the whole graph would take as many iterations to fade as a cold start.
    await compute(
      seed,
      { all: n },
      wgsl`(v: u32) {
  let r = ${rw(this.ranks)}[v];
  ${rw(this.ranks)}[v] = select(${f32(1 / n)}, r * ${f32(from / n)}, v < ${u32(from)});
}`,
    );
    await compute(seed, { all: 1 }, wgsl`(i: u32) { ${rw(this.#gates)}[0] = 1u; }`);
    await seed.submit();
    this.#ranked = n;
    const run = await enact(
      graph.device,
      {
        step: (rec) => this.#step(rec, n),
        active: () => ({ array: this.#gates, index: 0 }),
      },
      { maxIterations: this.maxIterations, batch: 4, maxBatch: 16 },
    );
    this.lastRun = { iterations: run.iterations, converged: run.converged, submits: run.submits };
    return this.lastRun;
  }

  /** One power iteration over `n` vertices; it dispatches nothing once the run has converged. */
  async #step(rec: Recorder, n: number) {
    const graph = this.graph;
    const gates = this.#gates;
    const vertexCount = { array: gates, index: 1 };
    const slabCount = { array: gates, index: 2 };
    const vertexArgs = writeDispatchArgs(gates, 3, transformItemsPerWorkgroup(vertexCount));
    const slabArgs = writeDispatchArgs(gates, 6, transformItemsPerWorkgroup(slabCount));
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  let on = ${rw(gates)}[0] != 0u;
  let vertices = select(0u, ${u32(n)}, on);
  let slabs = select(0u, min(${graph.alloc}[${lit(`${A_BUMP}u`)}], ${u32(graph.slabCapacity)}), on);
  ${rw(gates)}[1] = vertices;
  ${rw(gates)}[2] = slabs;
  ${vertexArgs.write}(vertices);
  ${slabArgs.write}(slabs);
}`,
    );
    const vertices = { all: { ...vertexCount, args: vertexArgs.args } };
    await compute(
      rec,
      vertices,
      wgsl`(v: u32) {
  let deg = ${graph.degree()}(v);
  let r = ${this.ranks}[v];
  ${rw(this.#contrib)}[v] = select(0.0, r / f32(deg), deg > 0u);
  ${rw(this.#dangling)}[v] = select(r, 0.0, deg > 0u);
  ${rw(this.#sums)}[v] = 0u;
}`,
    );
    await reduce(rec, this.#dangling, { array: this.#totals, index: 0 }, { count: vertexCount });
    await compute(rec, { all: { ...slabCount, args: slabArgs.args } }, this.#gather());
    await compute(
      rec,
      vertices,
      wgsl`(v: u32) {
  let sum = bitcast<f32>(${this.#sums}[v]);
  let next = ${f32((1 - this.alpha) / n)} + ${f32(this.alpha)} * (sum + ${this.#totals}[0] * ${f32(1 / n)});
  let old = ${this.ranks}[v];
  ${rw(this.#change)}[v] = abs(next - old) / max(next, 1e-30);
  ${rw(this.ranks)}[v] = next;
}`,
    );
    await reduce(
      rec,
      this.#change,
      { array: this.#totals, index: 1 },
      { monoid: max('f32'), count: vertexCount },
    );
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  if (${rw(gates)}[1] != 0u && ${this.#totals}[1] < ${f32(this.tolerance)}) { ${rw(gates)}[0] = 0u; }
}`,
    );
  }

  /**
   * `(slab: u32)`: adds the shares of one slab's edges. Undirected: the owner's in-neighbours are its
   * out-neighbours, so the slab's shares are summed in the thread and added to the owner once; directed:
   * the owner's share goes to each key.
   */
  #gather(): Functor {
    const graph = this.graph;
    const slabs = graph.slabs;
    const sums = atomic(this.#sums);
    const add = wgsl`(v: u32, x: f32) {
  var old = atomicLoad(&${sums}[v]);
  loop {
    let r = atomicCompareExchangeWeak(&${sums}[v], old, bitcast<u32>(bitcast<f32>(old) + x));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}`;
    const contrib = this.#contrib;
    const perKey = graph.directed
      ? wgsl`(u: u32, k: u32, acc: f32) -> f32 { ${add}(k, ${contrib}[u]); return acc; }`
      : wgsl`(u: u32, k: u32, acc: f32) -> f32 { return acc + ${contrib}[k]; }`;
    const finish = graph.directed
      ? wgsl`(u: u32, acc: f32, keys: u32) { }`
      : wgsl`(u: u32, acc: f32, keys: u32) { if (keys > 0u) { ${add}(u, acc); } }`;
    return wgsl`(slab: u32) {
  let at = slab * ${lit(`${SLAB_WORDS}u`)};
  let owner = ${slabs}[at + ${lit(`${OWNER_WORD}u`)}];
  if (owner == ${lit(`${NO_OWNER}u`)}) { return; }
  let u = owner & ~${lit(`${COLLISION}u`)};
  if (u >= ${u32(graph.vertexCount)}) { return; }
  var acc = 0.0;
  var keys = 0u;
  for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)}; lane++) {
    let k = ${slabs}[at + lane];
    if (k < ${lit(`${TOMBSTONE}u`)}) {
      acc = ${perKey}(u, k, acc);
      keys++;
    }
  }
  ${finish}(u, acc, keys);
}`;
  }
}

/**
 * PageRank of a dynamic graph from the uniform vector: ranks and the run's iterations. Keep a
 * {@link DynamicPageRank} instead to warm-start after batches.
 */
export async function dynamicPageRank(
  graph: DynamicGraph,
  options: DynamicPageRankOptions = {},
): Promise<{ ranks: Float32Array } & DynamicPageRankRun> {
  const p = await DynamicPageRank.create(graph, options);
  try {
    return { ranks: await p.result(), ...p.lastRun };
  } finally {
    p.destroy();
  }
}
