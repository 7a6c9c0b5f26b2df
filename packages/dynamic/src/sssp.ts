import { type DeviceArray, InputError, type Recorder } from '@weft/gpu';
import type { DynamicGraph, IdArray } from './dynamic-graph.ts';
import { WORKGROUP } from './layout.ts';
import {
  ARGS_WORDS,
  C_COUNT0,
  C_DONE,
  C_ZERO_TIGHT,
  CTRL_WORDS,
  NO_PARENT,
  NOT_DONE,
  ssspAdvanceKernel,
  ssspRelaxKernel,
  ssspSeedKernel,
  UNREACHED,
} from './sssp-kernels.ts';

export interface DynamicSsspOptions {
  /**
   * How an iteration relaxes the frontier: `'vertex'`, a thread per frontier vertex walking its table;
   * `'slab'`, a thread per slab of the pool whose owner is in the frontier; `'auto'` (default) picks per
   * iteration on the GPU: slabs once the frontier holds `sweepMin` vertices or more.
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
  /** Submits (each ends with one read-back of the status word). */
  submits: number;
}

/**
 * Single-source shortest paths on a {@link DynamicGraph}, kept up to date under edge insertions and
 * deletions (Falcon's dynamic SSSP, Cheramangalath et al.): after a batch of insertions only the inserted
 * edges that shorten a path seed the frontier ({@link afterInsert}); a batch of deletions drops the
 * distances of the shortest-path subtrees hanging from deleted edges and re-relaxes them
 * ({@link deleteEdges}). Relaxation runs over the hash tables (`atomicMin` on distances, a frontier of
 * improved vertices, GPU-resident counts, several iterations per submit, one status read-back per submit).
 *
 * Weights: the map variant's u32 values (the set variant weighs every edge 1). Distances are u32, sums
 * saturate at 2^32 - 2, unreached is 2^32 - 1. Deleting vertices or raising an edge's weight can lengthen
 * paths, which relaxation cannot undo: call {@link recompute} after those.
 */
export class DynamicSssp {
  /** Distances as u32 words (one per vertex slot of the graph; `0xffffffff` unreached). */
  distances: DeviceArray<'u32'>;
  #stamp: DeviceArray<'u32'>;
  /** Shortest-path parents, computed when edges are deleted. */
  #parent: DeviceArray<'u32'>;
  #queues: [DeviceArray<'u32'>, DeviceArray<'u32'>];
  readonly #ctrl: DeviceArray<'u32'>;
  /** Indirect dispatch arguments of the next iteration's two relaxations. */
  readonly #args: DeviceArray<'u32'>;
  #capacity: number;
  /** What the last update or recomputation did. */
  lastRun: DynamicSsspRun = { iterations: 0, converged: true, submits: 0 };
  /** Stamp of the last frontier handed out; stamps only grow, so `#stamp` is never cleared. */
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
    this.#queues = [0, 1].map((k) =>
      d.array('u32', this.#capacity, { label: `dynamic sssp frontier ${k}` }),
    ) as [DeviceArray<'u32'>, DeviceArray<'u32'>];
    this.#ctrl = d.array('u32', CTRL_WORDS, { label: 'dynamic sssp status' });
    this.#args = d.array('u32', ARGS_WORDS, { label: 'dynamic sssp dispatch', indirect: true });
  }

  /** Distances from `source` computed from scratch. */
  static async create(
    graph: DynamicGraph,
    source: number,
    options: DynamicSsspOptions = {},
  ): Promise<DynamicSssp> {
    checkGraph(graph);
    const s = new DynamicSssp(graph, source, options);
    await s.#stamp.fill(0);
    await s.recompute(source);
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
    const rec = this.graph.device.recorder({ label: 'dynamic sssp reset' });
    await rec.fill(this.distances, UNREACHED);
    await rec.submit();
    const stamp = ++this.#lastStamp;
    this.distances.upload([0], source);
    this.#stamp.upload([stamp], source);
    this.#queues[0].upload([source]);
    this.#ctrl.upload([1, 0, NOT_DONE, 0]);
    return this.#run(async () => {}, stamp);
  }

  /**
   * Updates the distances after `src[i] -> dst[i]` were inserted into the graph (or had their weights
   * lowered): those edges seed the frontier, relaxation does the rest. Pass the batch given to
   * `insertEdges` (for an undirected graph both directions are seeded). New vertices start unreached.
   */
  async afterInsert(src: IdArray, dst: IdArray): Promise<DynamicSsspRun> {
    this.#checkOpen();
    if (src.length !== dst.length) {
      throw new InputError(`src has ${src.length} entries but dst has ${dst.length}`, 'afterInsert');
    }
    await this.#fit();
    const m = this.graph.directed ? src.length : 2 * src.length;
    const stamp = ++this.#lastStamp;
    this.#ctrl.upload([0, 0, NOT_DONE, 0]);
    const weighted = this.graph.valueType !== undefined;
    const seed = await this.graph.device.kernel(ssspSeedKernel(weighted));
    return this.#run(async (rec) => {
      if (m === 0) return;
      const onDevice = (a: IdArray, label: string) =>
        ArrayBuffer.isView(a) ? rec.scratch('u32', Math.max(1, a.length), label).upload(a) : a;
      rec.dispatch(seed, {
        bindings: {
          ...this.#tables(),
          queue_cur: this.#queues[1],
          queue_next: this.#queues[0],
          src: onDevice(src, 'sssp seed sources'),
          dst: onDevice(dst, 'sssp seed targets'),
        },
        params: {
          ...this.#loopParams(1, stamp - 1, stamp),
          n: m,
          mirror: this.graph.directed ? 0 : 1,
        },
        workgroups: Math.ceil(m / WORKGROUP),
      });
    }, stamp);
  }

  /**
   * Deletes edges from the graph and updates the distances (the decremental half of Falcon's dynamic SSSP):
   * shortest-path parents are found on the graph before the deletion (a tight in-edge per vertex); after
   * it, a vertex whose parent edge was deleted loses its distance, and so does every vertex below it in
   * the parent tree (a frontier traversal over the tables); one relaxation of every edge from the
   * distances that stayed valid then seeds the usual relaxation loop. When a zero-weight edge is tight
   * (parents could form a cycle), it recomputes from scratch instead.
   */
  async deleteEdges(src: IdArray, dst: IdArray): Promise<DynamicSsspRun> {
    this.#checkOpen();
    if (src.length !== dst.length) {
      throw new InputError(`src has ${src.length} entries but dst has ${dst.length}`, 'deleteEdges');
    }
    await this.#fit();
    const d = this.graph.device;
    const weighted = this.graph.valueType !== undefined;
    const relax = await d.kernel(ssspRelaxKernel(weighted));
    const slabWorkgroups = Math.ceil(this.graph.slabCapacity / WORKGROUP);
    const tables = () => ({ ...this.#tables(), queue_cur: this.#queues[1], queue_next: this.#queues[0] });
    this.#ctrl.upload([0, 0, NOT_DONE, 0]);
    const rec = d.recorder({ label: 'dynamic sssp parents' });
    await rec.fill(this.#parent, NO_PARENT);
    rec.dispatch(relax, {
      entry: 'parents',
      bindings: tables(),
      params: this.#loopParams(1, 0, 0),
      workgroups: slabWorkgroups,
    });
    await rec.submit();
    const zeroTight = (await this.#ctrl.download(C_ZERO_TIGHT, 1))[0] !== 0;
    await this.graph.deleteEdges(src, dst);
    if (zeroTight) return this.recompute();
    const m = this.graph.directed ? src.length : 2 * src.length;
    const seed = await d.kernel(ssspSeedKernel(weighted));
    const onDevice = (r: Recorder, a: IdArray, label: string) =>
      ArrayBuffer.isView(a) ? r.scratch('u32', Math.max(1, a.length), label).upload(a) : a;
    // Invalidation: the heads of deleted parent edges, then their parent-tree descendants.
    let stamp = ++this.#lastStamp;
    this.#ctrl.upload([0, 0, NOT_DONE, 0]);
    const dropped = await this.#run(
      async (r) => {
        if (m === 0) return;
        r.dispatch(seed, {
          entry: 'unlink',
          bindings: {
            ...tables(),
            src: onDevice(r, src, 'sssp deleted sources'),
            dst: onDevice(r, dst, 'sssp deleted targets'),
          },
          params: { ...this.#loopParams(1, stamp - 1, stamp), n: m, mirror: this.graph.directed ? 0 : 1 },
          workgroups: Math.ceil(m / WORKGROUP),
        });
      },
      stamp,
      'invalidate',
    );
    if (dropped.iterations === 0) return dropped;
    // Every edge relaxed once from the valid distances (cur_stamp 0: every owner counts), then the loop.
    stamp = ++this.#lastStamp;
    this.#ctrl.upload([0, 0, NOT_DONE, 0]);
    return this.#run(async (r) => {
      r.dispatch(relax, {
        entry: 'by_slab',
        bindings: tables(),
        params: this.#loopParams(1, 0, stamp),
        workgroups: slabWorkgroups,
      });
    }, stamp);
  }

  /** Distances on the host: `Infinity` where unreachable (one entry per vertex id of the graph). */
  async result(): Promise<Float64Array> {
    this.#checkOpen();
    const n = this.graph.vertexCount;
    const raw = await this.distances.download(0, n);
    return Float64Array.from(raw, (d) => (d === UNREACHED ? Number.POSITIVE_INFINITY : d));
  }

  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const a of [this.distances, this.#stamp, this.#parent, ...this.#queues, this.#ctrl, this.#args]) {
      a.destroy();
    }
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
    this.#queues = [
      await grow(this.#queues[0], 'dynamic sssp frontier 0', 0, false),
      await grow(this.#queues[1], 'dynamic sssp frontier 1', 0, false),
    ];
    this.#capacity = capacity;
  }

  #tables() {
    return {
      slabs: this.graph.slabs,
      values: this.graph.values,
      vertices: this.graph.vertices,
      alloc: this.graph.alloc,
      dist: this.distances,
      stamp: this.#stamp,
      ctrl: this.#ctrl,
      parent: this.#parent,
    };
  }

  #loopParams(cur: number, curStamp: number, nextStamp: number) {
    return {
      ...this.graph.tableParams(),
      cur,
      next: 1 - cur,
      cur_stamp: curStamp,
      next_stamp: nextStamp,
      queue_capacity: this.#capacity,
      source: this.source,
    };
  }

  #sweepMin(): number {
    const mode = this.options.relax ?? 'auto';
    if (mode === 'vertex') return 0xffffffff;
    if (mode === 'slab') return 0;
    return this.options.sweepMin ?? Math.max(1, Math.ceil(this.graph.vertexCount / 32));
  }

  /**
   * The relaxation loop. `seed` records the seeding (frontier 0 gets stamp `stamp`); then batches of
   * iterations, each one a relaxation into the other frontier and an advance, until the status word says
   * the frontier came out empty. Iterations past that point dispatch zero workgroups.
   */
  async #run(
    seed: (rec: Recorder) => Promise<void>,
    stamp: number,
    mode: 'relax' | 'invalidate' = 'relax',
  ): Promise<DynamicSsspRun> {
    const d = this.graph.device;
    const weighted = this.graph.valueType !== undefined;
    const relax = await d.kernel(ssspRelaxKernel(weighted));
    const advance = await d.kernel(ssspAdvanceKernel());
    const maxIterations = this.options.maxIterations ?? this.graph.vertexCount + 1;
    const advanceParams = {
      sweep_min: mode === 'relax' ? this.#sweepMin() : 0xffffffff,
      slab_capacity: this.graph.slabCapacity,
      max_dim: d.limits.maxComputeWorkgroupsPerDimension,
    };
    const recordAdvance = (rec: Recorder, cur: number, iteration: number) =>
      rec.dispatch(advance, {
        bindings: { ctrl: this.#ctrl, args: this.#args, alloc: this.graph.alloc },
        params: { ...advanceParams, cur, next: 1 - cur, iteration },
        workgroups: 1,
      });
    let rec = d.recorder({ label: 'dynamic sssp seed' });
    await seed(rec);
    // The seeding fills frontier 0; the "old" frontier 1 is empty.
    recordAdvance(rec, 1, 0);
    let cur: 0 | 1 = 0;
    let curStamp = stamp;
    let iteration = 0;
    let submits = 0;
    let batch = 4;
    for (;;) {
      const count = Math.min(batch, maxIterations - iteration);
      for (let j = 0; j < count; j++) {
        iteration++;
        const nextStamp = ++this.#lastStamp;
        const bindings = {
          ...this.#tables(),
          queue_cur: this.#queues[cur],
          queue_next: this.#queues[cur === 0 ? 1 : 0],
        };
        const params = this.#loopParams(cur, curStamp, nextStamp);
        const perVertex = mode === 'relax' ? 'by_vertex' : 'invalidate';
        rec.dispatch(relax, { entry: perVertex, bindings, params, workgroups: { indirect: this.#args } });
        if (mode === 'relax') {
          rec.dispatch(relax, {
            entry: 'by_slab',
            bindings,
            params,
            workgroups: { indirect: this.#args, index: 3 },
          });
        }
        recordAdvance(rec, cur, iteration);
        cur = cur === 0 ? 1 : 0;
        curStamp = nextStamp;
      }
      await rec.submit();
      submits++;
      const status = await this.#ctrl.download(C_COUNT0, CTRL_WORDS);
      const doneAt = status[C_DONE]!;
      if (doneAt !== NOT_DONE || iteration >= maxIterations) {
        this.lastRun = { iterations: Math.min(doneAt, iteration), converged: doneAt !== NOT_DONE, submits };
        return this.lastRun;
      }
      batch = Math.min(batch * 2, 64);
      rec = d.recorder({ label: 'dynamic sssp iterations' });
    }
  }
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

/**
 * Shortest-path distances from `source` on a dynamic graph, from scratch (`Infinity` unreachable). Keep a
 * {@link DynamicSssp} instead to update them after insertions.
 */
export async function sssp(
  graph: DynamicGraph,
  source: number,
  options: DynamicSsspOptions = {},
): Promise<{ distances: Float64Array } & DynamicSsspRun> {
  const s = await DynamicSssp.create(graph, source, options);
  try {
    const run = s.lastRun;
    return { distances: await s.result(), ...run };
  } finally {
    s.destroy();
  }
}
