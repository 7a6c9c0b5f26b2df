import {
  atomic,
  checkMaxIterations,
  checkOptionsObject,
  type DeviceArray,
  distanceOverflowError,
  type Functor,
  InputError,
  lit,
  type Recorder,
  rw,
  transformItemsPerWorkgroup,
  u32,
  wgsl,
  writeDispatchArgs,
} from '@weft/gpu';
import { FrontierQueue, type FrontierSink } from '@weft/graph';
import { advancePush, compute, enact } from '@weft/operators';
import { checkIdBatch, checkSweepMin, type DynamicGraph, type IdArray } from './dynamic-graph.ts';
import { findEdgeFunctor, forEachSlabEdge, isAliveFunctor, NOT_FOUND } from './neighbors.ts';

/** Distance of an unreached vertex; finite sums saturate one below it. */
const UNREACHED = 0xffffffff;
const SATURATED = UNREACHED - 1;
/** No parent: the source, unreached vertices. */
const NO_PARENT = 0xffffffff;

export interface DynamicSsspOptions {
  /**
   * How an iteration relaxes the frontier: `'vertex'`, `advancePush` (a thread per frontier vertex walking
   * its table); `'slab'`, a thread per slab of the pool whose owner is in the frontier; `'auto'` (default)
   * picks per iteration on the GPU: slabs once the frontier holds `sweepMin` vertices or more.
   */
  relax?: 'auto' | 'vertex' | 'slab';
  /** Frontier length from which `'auto'` sweeps the slabs (default: a 32nd of the vertices, at least 1). */
  sweepMin?: number;
  /** Bound on iterations per run (default vertexCount + 1, Bellman-Ford's bound). */
  maxIterations?: number;
}

export interface DynamicSsspRun {
  /** Iterations of the relaxation loop (0: the seed changed nothing). */
  iterations: number;
  /** False when `maxIterations` stopped the loop first. */
  converged: boolean;
  /** Submits of the enactor (each ends with one read-back of its status). */
  submits: number;
}

/**
 * Single-source shortest paths on a {@link DynamicGraph}, kept up to date under edge insertions and
 * deletions (Falcon's dynamic SSSP, Cheramangalath et al.): after a batch of insertions only the inserted
 * edges that shorten a path seed the frontier ({@link afterInsert}); a batch of deletions drops the
 * distances of the shortest-path subtrees hanging from deleted edges and re-relaxes them
 * ({@link deleteEdges}). A problem on `@weft/operators`' enactor: the seed is iteration 0, then each
 * iteration is one relaxation, `advancePush` over the tables with an `atomicMin` functor appending the
 * improved vertices to a `FrontierQueue`, until the queue comes out empty.
 *
 * Weights: the map variant's u32 values (the set variant weighs every edge 1). Distances are u32, sums
 * saturate at 2^32 - 2, unreached is 2^32 - 1. Deleting vertices or raising an edge's weight can lengthen
 * paths, which relaxation cannot undo: call {@link recompute} after those.
 */
export class DynamicSssp {
  /** Distances as u32 words (one per vertex slot of the graph; `0xffffffff` unreached). */
  distances: DeviceArray<'u32'>;
  /**
   * The stamp of the last frontier each vertex joined: a vertex joins a frontier once (the thread that
   * raises its stamp appends it), and stamps only grow, so this is never cleared.
   */
  #stamp: DeviceArray<'u32'>;
  /** Shortest-path parents, computed when edges are deleted. */
  #parent: DeviceArray<'u32'>;
  #queue: FrontierQueue;
  /** [frontier vertices relaxed by advancePush, slabs swept, tight zero-weight edge seen]. */
  readonly #gates: DeviceArray<'u32'>;
  #capacity: number;
  /** What the last update or recomputation did. */
  lastRun: DynamicSsspRun = { iterations: 0, converged: true, submits: 0 };
  #lastStamp = 0;
  #destroyed = false;

  private constructor(
    readonly graph: DynamicGraph,
    public source: number,
    readonly options: DynamicSsspOptions,
  ) {
    const d = graph.device;
    this.#capacity = graph.vertexCapacity;
    this.distances = d.array('u32', this.#capacity, { label: 'dynamic sssp distances' });
    this.#stamp = d.array('u32', this.#capacity, { label: 'dynamic sssp stamps' });
    this.#parent = d.array('u32', this.#capacity, { label: 'dynamic sssp parents' });
    this.#queue = new FrontierQueue(d, this.#capacity, { label: 'dynamic sssp frontier' });
    // [walk count, slab count, tight zero-weight edge seen, walk dispatch arguments (3), slab arguments (3)].
    this.#gates = d.array('u32', 9, { label: 'dynamic sssp gates', indirect: true });
  }

  /** Distances from `source` computed from scratch. */
  static async create(
    graph: DynamicGraph,
    source: number,
    options: DynamicSsspOptions = {},
  ): Promise<DynamicSssp> {
    checkOptionsObject('DynamicSssp.create', options);
    checkGraph(graph);
    checkOptions(options);
    const s = new DynamicSssp(graph, source, options);
    try {
      await s.#stamp.fill(0);
      await s.recompute(source);
    } catch (e) {
      // A bad source (or anything else the first run rejects) must not keep the arrays just allocated.
      s.destroy();
      throw e;
    }
    return s;
  }

  /** Recomputes from scratch (after deletions or raised weights), from `source` or the current source. */
  async recompute(source = this.source): Promise<DynamicSsspRun> {
    this.#checkOpen();
    if (!this.graph.hasVertex(source)) {
      throw new InputError(`source ${source} is not a vertex of the graph`, 'DynamicSssp source');
    }
    this.source = source;
    await this.#fit();
    return this.#run(async (rec, next, stamp) => {
      await rec.fill(this.distances, UNREACHED);
      await compute(
        rec,
        { all: 1 },
        wgsl`(i: u32) {
  ${rw(this.distances)}[${u32(source)}] = 0u;
  ${rw(this.#stamp)}[${u32(source)}] = ${u32(stamp)};
  ${rw(next.items)}[0] = ${u32(source)};
  ${rw(next.count)}[0] = 1u;
}`,
      );
    });
  }

  /**
   * Updates the distances after `src[i] -> dst[i]` were inserted into the graph (or had their weights
   * lowered): those edges seed the frontier, relaxation does the rest. Pass the batch given to
   * `insertEdges` (for an undirected graph both directions are seeded). New vertices start unreached.
   */
  async afterInsert(src: IdArray, dst: IdArray): Promise<DynamicSsspRun> {
    this.#checkOpen();
    checkIdBatch(src, dst, this.graph.vertexCount, 'DynamicSssp.afterInsert');
    await this.#fit();
    const graph = this.graph;
    return this.#run(async (rec, next, stamp) => {
      const { m, edgeOf } = batchEdges(rec, graph, src, dst);
      if (m === 0) return;
      // Each batch edge relaxes its head with the weight the table now holds (duplicates in the batch and
      // replaced values count as the graph has them).
      const relax = this.#relax(stamp);
      await compute(
        rec,
        { all: m },
        wgsl`(i: u32) {
  let e = ${edgeOf}(i);
  if (!${isAliveFunctor(graph)}(e.x) || e.y >= ${u32(graph.vertexCount)}) { return; }
  let at = ${findEdgeFunctor(graph)}(e.x, e.y);
  if (at != ${lit(`${NOT_FOUND}u`)} && ${relax}(e.x, e.y, at)) { ${appendTo(next)}(e.y); }
}`,
      );
    });
  }

  /**
   * Deletes edges from the graph and updates the distances (the decremental half of Falcon's dynamic SSSP):
   * shortest-path parents are found on the graph before the deletion (a tight in-edge per vertex); after
   * it, a vertex whose parent edge was deleted loses its distance, and so does every vertex below it in
   * the parent tree (an enactor loop of `advancePush` over the tables); one relaxation of every edge from
   * the distances that stayed valid then seeds the usual relaxation loop. When a zero-weight edge is tight
   * (parents could form a cycle), it recomputes from scratch instead.
   */
  async deleteEdges(src: IdArray, dst: IdArray): Promise<DynamicSsspRun> {
    this.#checkOpen();
    checkIdBatch(src, dst, this.graph.vertexCount, 'DynamicSssp.deleteEdges');
    await this.#fit();
    const graph = this.graph;
    const d = graph.device;
    const rec = d.recorder({ label: 'dynamic sssp parents' });
    await rec.fill(this.#parent, NO_PARENT);
    rec.clear(this.#gates);
    await compute(rec, { all: graph.slabCapacity }, forEachSlabEdge(graph, this.#parentOf()));
    await rec.submit();
    const zeroTight = (await this.#gates.download(2, 1))[0] !== 0;
    await graph.deleteEdges(src, dst);
    if (zeroTight) return this.recompute();
    // Invalidation: the heads of deleted parent edges, then their parent-tree descendants.
    const dropped = await this.#run(async (r, next) => {
      const { m, edgeOf } = batchEdges(r, graph, src, dst);
      if (m === 0) return;
      const n = u32(graph.vertexCount);
      await compute(
        r,
        { all: m },
        wgsl`(i: u32) {
  let e = ${edgeOf}(i);
  if (e.x < ${n} && e.y < ${n} && ${this.#unlink()}(e.x, e.y, 0u)) { ${appendTo(next)}(e.y); }
}`,
      );
    }, 'invalidate');
    if (dropped.iterations === 0) return dropped;
    // Every edge relaxed once from the valid distances (every slab's owner counts), then the loop.
    return this.#run(async (r, next, stamp) => {
      await compute(r, { all: graph.slabCapacity }, forEachSlabEdge(graph, this.#relaxInto(0, stamp, next)));
    });
  }

  /**
   * Distances on the host: `Infinity` where unreachable (one entry per vertex id of the graph). A distance
   * that reached 2^32 - 2, where sums saturate, throws an `InputError` naming the lowest such vertex: no
   * distance can be trusted then (as in `@weft/algorithms`' `sssp`).
   */
  async result(): Promise<Float64Array> {
    this.#checkOpen();
    const n = this.graph.vertexCount;
    const raw = await this.distances.download(0, n);
    const saturated = raw.indexOf(SATURATED);
    if (saturated >= 0) throw distanceOverflowError(false, saturated, 'graph values');
    // The typed conversion is exact for u32; unreached words are few to find with a native search.
    const out = new Float64Array(raw);
    for (let v = raw.indexOf(UNREACHED); v >= 0; v = raw.indexOf(UNREACHED, v + 1)) {
      out[v] = Number.POSITIVE_INFINITY;
    }
    return out;
  }

  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const a of [this.distances, this.#stamp, this.#parent, this.#gates]) a.destroy();
    this.#queue.destroy();
  }

  [Symbol.dispose]() {
    this.destroy();
  }

  #checkOpen() {
    if (this.#destroyed) throw new InputError('this DynamicSssp was destroyed', 'DynamicSssp');
    if (this.graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicSssp');
  }

  /** Follows the graph's vertex dictionary when it grew: new vertex slots are unreached, unstamped. */
  async #fit() {
    const capacity = this.graph.vertexCapacity;
    if (capacity <= this.#capacity) return;
    const d = this.graph.device;
    const grow = async (old: DeviceArray<'u32'>, label: string, fill: number, copy: boolean) => {
      const next = d.array('u32', capacity, { label });
      const rec = d.recorder({ label: 'dynamic sssp grow' });
      await rec.fill(next, fill);
      if (copy) rec.copy(old, next, this.#capacity);
      await rec.submit();
      old.destroy();
      return next;
    };
    this.distances = await grow(this.distances, 'dynamic sssp distances', UNREACHED, true);
    this.#stamp = await grow(this.#stamp, 'dynamic sssp stamps', 0, true);
    this.#parent = await grow(this.#parent, 'dynamic sssp parents', NO_PARENT, false);
    this.#queue.destroy();
    this.#queue = new FrontierQueue(d, capacity, { label: 'dynamic sssp frontier' });
    this.#capacity = capacity;
  }

  /** `(e: u32) -> u32`: the weight of the edge in slot `e`. */
  #weight(): Functor {
    return this.graph.valueType === undefined
      ? wgsl`(e: u32) -> u32 { return 1u; }`
      : wgsl`(e: u32) -> u32 { return ${this.graph.values}[e]; }`;
  }

  /**
   * `(src, dst, edge) -> bool`: relaxes `dst` through the edge; true when its distance dropped and this
   * thread raised its stamp to `stamp` (so it joins that frontier once).
   */
  #relax(stamp: number): Functor {
    const dist = atomic(this.distances);
    return wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let d = atomicLoad(&${dist}[src]);
  if (d == ${lit(`${UNREACHED}u`)}) { return false; }
  let s = d + ${this.#weight()}(edge);
  // Saturate below UNREACHED (a sum that wraps or lands on it).
  let nd = select(s, ${lit(`${UNREACHED - 1}u`)}, s < d || s == ${lit(`${UNREACHED}u`)});
  if (nd >= atomicLoad(&${dist}[dst])) { return false; }
  return nd < atomicMin(&${dist}[dst], nd) && atomicMax(&${atomic(this.#stamp)}[dst], ${u32(stamp)}) < ${u32(stamp)};
}`;
  }

  /**
   * `(src, dst, edge)` for a slab sweep: relaxes the edge when `src` is in the frontier (its stamp is at
   * least `curStamp`; 0: every vertex) and appends `dst` to `next` when it improved. A vertex may already
   * carry the next stamp (improved again during this iteration): relaxing from it is harmless.
   */
  #relaxInto(curStamp: number, stamp: number, next: FrontierSink): Functor {
    return wgsl`(src: u32, dst: u32, edge: u32) {
  if (atomicLoad(&${atomic(this.#stamp)}[src]) >= ${u32(curStamp)} && ${this.#relax(stamp)}(src, dst, edge)) { ${appendTo(next)}(dst); }
}`;
  }

  /**
   * `(src, dst, edge)`, before a deletion: `parent[dst] = src` when the edge is tight. A tight zero-weight
   * edge (or a saturated sum) raises gate 2: parents could then form a cycle, and the host recomputes.
   */
  #parentOf(): Functor {
    const dist = atomic(this.distances);
    return wgsl`(src: u32, dst: u32, edge: u32) {
  if (dst == ${u32(this.source)}) { return; }
  let d = atomicLoad(&${dist}[src]);
  if (d == ${lit(`${UNREACHED}u`)}) { return; }
  let w = ${this.#weight()}(edge);
  let s = d + w;
  let nd = select(s, ${lit(`${UNREACHED - 1}u`)}, s < d || s == ${lit(`${UNREACHED}u`)});
  if (nd == atomicLoad(&${dist}[dst])) {
    atomicStore(&${atomic(this.#parent)}[dst], src);
    if (w == 0u || nd == ${lit(`${UNREACHED - 1}u`)}) { ${rw(this.#gates)}[2] = 1u; }
  }
}`;
  }

  /**
   * `(src, dst, edge) -> bool`: `dst` loses its distance when its parent is `src` (its shortest path used
   * the deleted or invalidated edge); true for the one thread that dropped it, so it joins once.
   */
  #unlink(): Functor {
    const parent = atomic(this.#parent);
    return wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (atomicLoad(&${parent}[dst]) != src) { return false; }
  if (atomicExchange(&${atomic(this.distances)}[dst], ${lit(`${UNREACHED}u`)}) == ${lit(`${UNREACHED}u`)}) {
    return false;
  }
  atomicStore(&${parent}[dst], ${lit(`${NO_PARENT}u`)});
  return true;
}`;
  }

  #sweepMin(): number {
    const mode = this.options.relax ?? 'auto';
    if (mode === 'vertex') return 0xffffffff;
    if (mode === 'slab') return 0;
    return this.options.sweepMin ?? Math.max(1, Math.ceil(this.graph.vertexCount / 32));
  }

  /**
   * One relaxation of the frontier into `queue.next`: `advancePush` over the tables for a frontier below
   * `sweepMin`, else a thread per slab (balanced over hubs); a one-thread kernel sizes both on the GPU
   * (the unchosen one gets zero workgroups).
   */
  async #relaxStep(rec: Recorder, curStamp: number, stamp: number): Promise<void> {
    const graph = this.graph;
    const queue = this.#queue;
    const sweepMin = this.#sweepMin();
    if (sweepMin === 0xffffffff) {
      await zeroCount(rec, queue.next);
      await advancePush(rec, graph, queue.current, this.#relax(stamp), { output: queue.next, append: true });
      return;
    }
    const gates = this.#gates;
    const length = queue.length;
    // The gate sizes both relaxations' dispatches itself: advancePush on a dynamic graph runs a thread per
    // vertex, `compute` over the slabs at the transform's default.
    const walk = writeDispatchArgs(gates, 3, transformItemsPerWorkgroup(0, { itemsPerThread: 1 }));
    const sweepCount = { array: gates, index: 1 };
    const slabs = writeDispatchArgs(gates, 6, transformItemsPerWorkgroup(sweepCount));
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  let n = ${length.array}[${u32(length.index)}];
  let sweep = n >= ${u32(sweepMin)};
  let walked = select(n, 0u, sweep);
  let swept = select(0u, min(${graph.alloc}[0], ${u32(graph.slabCapacity)}), sweep && n > 0u);
  ${rw(gates)}[0] = walked;
  ${rw(gates)}[1] = swept;
  ${rw(queue.next.count)}[0] = 0u;
  ${walk.write}(walked);
  ${slabs.write}(swept);
}`,
    );
    const current = { items: queue.current.items, length: { array: gates, index: 0, args: walk.args } };
    await advancePush(rec, graph, current, this.#relax(stamp), { output: queue.next, append: true });
    await compute(
      rec,
      { all: { ...sweepCount, args: slabs.args } },
      forEachSlabEdge(graph, this.#relaxInto(curStamp, stamp, queue.next)),
    );
  }

  /**
   * Runs the enactor: iteration 0 records `seed` (which appends the first frontier to the queue's `next`,
   * its vertices stamped `stamp`), each later one relaxes (or, for `'invalidate'`, drops the parent-tree
   * children of) the current frontier, until the frontier comes out empty.
   */
  async #run(
    seed: (rec: Recorder, next: FrontierSink, stamp: number) => Promise<void>,
    mode: 'relax' | 'invalidate' = 'relax',
  ): Promise<DynamicSsspRun> {
    const graph = this.graph;
    const queue = this.#queue;
    const maxIterations = this.options.maxIterations ?? graph.vertexCount + 1;
    let curStamp = 0;
    const run = await enact(
      graph.device,
      {
        step: async (rec, iteration) => {
          const stamp = ++this.#lastStamp;
          if (iteration === 0) {
            rec.clear(queue.next.count);
            await seed(rec, queue.next, stamp);
          } else if (mode === 'invalidate') {
            await zeroCount(rec, queue.next);
            await advancePush(rec, graph, queue.current, this.#unlink(), {
              output: queue.next,
              append: true,
            });
          } else {
            await this.#relaxStep(rec, curStamp, stamp);
          }
          queue.swap();
          curStamp = stamp;
        },
        active: () => queue.length,
        capacity: queue.capacity,
      },
      { maxIterations: maxIterations + 1 },
    );
    // The seed is the enactor's iteration 0, not a relaxation.
    this.lastRun = {
      iterations: Math.max(0, run.iterations - 1),
      converged: run.converged,
      submits: run.submits,
    };
    return this.lastRun;
  }
}

/**
 * Records `sink.count = 0` as a one-thread dispatch: a buffer clear would end the compute pass that the
 * loop's dispatches otherwise share.
 */
async function zeroCount(rec: Recorder, sink: FrontierSink): Promise<void> {
  await compute(rec, { all: 1 }, wgsl`(i: u32) { ${rw(sink.count)}[0] = 0u; }`);
}

/** `(v: u32)`: appends `v` to `sink` (a vertex joins once per frontier, so it cannot overflow). */
function appendTo(sink: FrontierSink): Functor {
  return wgsl`(v: u32) {
  let slot = atomicAdd(&${atomic(sink.count)}[0], 1u);
  if (slot < ${u32(sink.items.length)}) { ${rw(sink.items)}[slot] = v; }
}`;
}

/**
 * A batch's edges on the GPU: `m` and `(i: u32) -> vec2<u32>`, the i-th (tail, head); an undirected
 * graph's batch lists each edge in both directions.
 */
function batchEdges(rec: Recorder, graph: DynamicGraph, src: IdArray, dst: IdArray) {
  const onDevice = (a: IdArray, label: string) => (ArrayBuffer.isView(a) ? rec.upload('u32', a, label) : a);
  const s = onDevice(src, 'sssp batch sources');
  const t = onDevice(dst, 'sssp batch targets');
  const edgeOf = graph.directed
    ? wgsl`(i: u32) -> vec2<u32> { return vec2<u32>(${s}[i], ${t}[i]); }`
    : wgsl`(i: u32) -> vec2<u32> {
  let e = i >> 1u;
  if ((i & 1u) == 1u) { return vec2<u32>(${t}[e], ${s}[e]); }
  return vec2<u32>(${s}[e], ${t}[e]);
}`;
  return { m: graph.directed ? src.length : 2 * src.length, edgeOf };
}

function checkGraph(graph: DynamicGraph) {
  if (graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicSssp');
  if (graph.valueType !== undefined && graph.valueType !== 'u32') {
    throw new InputError(
      `SSSP takes u32 edge values as weights, the graph stores ${graph.valueType}`,
      'DynamicSssp graph',
    );
  }
}

function checkOptions(options: DynamicSsspOptions) {
  const where = 'DynamicSssp options';
  const relax = options.relax ?? 'auto';
  if (relax !== 'auto' && relax !== 'vertex' && relax !== 'slab') {
    throw new InputError(`relax must be 'auto', 'vertex' or 'slab', got ${String(relax)}`, where);
  }
  checkSweepMin(options.sweepMin, where);
  if (options.maxIterations !== undefined) checkMaxIterations(options.maxIterations, false, where);
}

/**
 * Shortest-path distances from `source` on a dynamic graph, from scratch (`Infinity` unreachable). Keep a
 * {@link DynamicSssp} instead to update them after insertions.
 */
export async function dynamicSssp(
  graph: DynamicGraph,
  source: number,
  options: DynamicSsspOptions = {},
): Promise<{ distances: Float64Array } & DynamicSsspRun> {
  checkOptionsObject('dynamicSssp', options);
  const s = await DynamicSssp.create(graph, source, options);
  try {
    const run = s.lastRun;
    return { distances: await s.result(), ...run };
  } finally {
    s.destroy();
  }
}
