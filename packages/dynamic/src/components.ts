import {
  atomic,
  type DeviceArray,
  type Functor,
  InputError,
  lit,
  onTarget,
  type Recorder,
  rw,
  type Target,
  transformItemsPerWorkgroup,
  u32,
  WeftError,
  wgsl,
  writeDispatchArgs,
} from '@weft/gpu';
import { compute, DisjointSets, UNION_MAX_RETRIES } from '@weft/operators';
import type { DynamicGraph, IdArray } from './dynamic-graph.ts';
import { KEY_SLOTS, SLAB_WORDS, TOMBSTONE, V_BASE, VERTEX_WORDS } from './layout.ts';
import { forEachSlabEdge, hasEdgeFunctor, isAliveFunctor } from './neighbors.ts';

/** Keys of a vertex's first slab that phase 1 of a repair unions it with. */
const FIRST_KEYS = 4;
type Scratch = [
  DeviceArray<'u32'>,
  DeviceArray<'u32'>,
  DeviceArray<'u32'>,
  DeviceArray<'u32'>,
  DeviceArray<'u32'>,
  DeviceArray<'u32'>,
  DeviceArray<'u32'>,
];
/** No main set yet. */
const NONE = 0xffffffff;
/** The gates' word counting the vertices left outside their old component's main set. */
const G_LEFT = 9;

export interface DynamicComponentsOptions {
  /**
   * How a deletion re-links the edges of the vertices left outside their component's main set (phase 2 of
   * a repair): `'vertex'`, a thread per such vertex walking its table; `'slab'`, a thread per slab of the
   * pool whose owner is one; `'auto'` (default) picks on the GPU: slabs once `sweepMin` vertices or more
   * are left over. Directed graphs always sweep (their tables hold no in-edges).
   */
  relink?: 'auto' | 'vertex' | 'slab';
  /** Left-over vertices from which `'auto'` sweeps the slabs (default: a 32nd of the vertices, at least 1). */
  sweepMin?: number;
}

/** Where an update records its work: a recorder (submitted by the caller), else one submit of its own. */
export interface ComponentsUpdateOptions {
  recorder?: Recorder;
}

/**
 * Weakly connected components of a {@link DynamicGraph}, kept up to date under batches of updates (Falcon's
 * morph style) with a spanning forest beside the labels: every link of the union-find records the edge
 * that made it at the root it hooked, so the recorded edges of the non-roots span each component. An
 * insertion batch unions its edges' ends ({@link afterInsert}, nothing recomputed). A deletion batch
 * ({@link deleteEdges}) touches only the components that lost a forest edge: deleting other edges cannot
 * disconnect anything, and most deleted edges are not in the forest (it holds fewer edges than vertices).
 * A touched component (also any holding a vertex of {@link deleteVertices}) is reset to singletons and
 * re-linked: its surviving forest edges and a few edges a vertex first, which rebuild all of it but the
 * pieces the deleted forest edges cut off, then every edge of the vertices left outside the largest set so
 * formed, so splits come out right while a giant component loses only its cut-off pieces' work.
 *
 * `labels[v]` is the smallest vertex id of `v`'s component (a union-find root: every parent is smaller than
 * its child), for every id below the graph's `vertexCount`; deleted and never-inserted ids are singletons.
 * A graph changed without telling this object (e.g. `graph.deleteEdges` called directly) needs
 * {@link recompute}.
 */
export class DynamicComponents {
  /** One label per vertex slot of the graph: the smallest vertex id of its component. */
  labels: DeviceArray<'u32'>;
  #sets: DisjointSets;
  /**
   * The epoch of the last deletion that touched each root (marked before the deletion) and each vertex it
   * reset: epochs only grow, so this is never cleared.
   */
  #stamp: DeviceArray<'u32'>;
  /** The vertices the last deletion reset. */
  #touched: DeviceArray<'u32'>;
  /** Per reset vertex, its label before the deletion (its old component). */
  #old: DeviceArray<'u32'>;
  /** Per phase-1 root, its set's size; per old component, the largest size and its smallest root. */
  #size: DeviceArray<'u32'>;
  #best: DeviceArray<'u32'>;
  #main: DeviceArray<'u32'>;
  /** The epoch of the last repair that left each vertex outside its main set (never cleared). */
  #left: DeviceArray<'u32'>;
  /**
   * Per non-root (`labels[v] != v`), the edge `tails[v] -> heads[v]` whose union hooked `v` (it joined v's
   * set to another): these edges span each component. A root's entries are stale.
   */
  #tails: DeviceArray<'u32'>;
  #heads: DeviceArray<'u32'>;
  /** The epoch of the last edge deletion with an edge at each vertex (never cleared). */
  #ends: DeviceArray<'u32'>;
  /** Per reset vertex, its forest edge if it survived the deletion (`NONE` otherwise). */
  #keptTails: DeviceArray<'u32'>;
  #keptHeads: DeviceArray<'u32'>;
  /** The vertices the last repair left outside their main sets, and their count. */
  #leftover: DeviceArray<'u32'>;
  readonly #leftCount: DeviceArray<'u32'>;
  /**
   * [touched, walked, swept, walk dispatch arguments (3), sweep dispatch arguments (3), left over].
   */
  readonly #gates: DeviceArray<'u32'>;
  #capacity: number;
  #epoch = 0;
  #destroyed = false;

  private constructor(
    readonly graph: DynamicGraph,
    readonly options: DynamicComponentsOptions,
  ) {
    const d = graph.device;
    this.#capacity = graph.vertexCapacity;
    this.labels = d.array('u32', this.#capacity, { label: 'dynamic cc labels' });
    this.#stamp = d.array('u32', this.#capacity, { label: 'dynamic cc stamps' });
    this.#touched = d.array('u32', this.#capacity, { label: 'dynamic cc touched' });
    this.#left = d.array('u32', this.#capacity, { label: 'dynamic cc left over' });
    this.#tails = d.array('u32', this.#capacity, { label: 'dynamic cc forest tails' });
    this.#heads = d.array('u32', this.#capacity, { label: 'dynamic cc forest heads' });
    this.#ends = d.array('u32', this.#capacity, { label: 'dynamic cc deleted edge ends' });
    [this.#old, this.#size, this.#best, this.#main, this.#leftover, this.#keptTails, this.#keptHeads] =
      this.#scratch(this.#capacity);
    this.#sets = new DisjointSets(d, this.#capacity, { parents: this.labels, label: 'dynamic cc' });
    this.#gates = d.array('u32', 10, { label: 'dynamic cc gates', indirect: true });
    this.#leftCount = d.array('u32', 1, { label: 'dynamic cc left over count' });
  }

  /** Components of `graph` computed from scratch. */
  static async create(
    graph: DynamicGraph,
    options: DynamicComponentsOptions = {},
  ): Promise<DynamicComponents> {
    if (graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicComponents');
    const relink = options.relink ?? 'auto';
    if (relink !== 'auto' && relink !== 'vertex' && relink !== 'slab') {
      throw new InputError(`relink must be 'auto', 'vertex' or 'slab', got '${String(relink)}'`, 'relink');
    }
    const c = new DynamicComponents(graph, options);
    await c.#stamp.fill(0);
    await c.#left.fill(0);
    await c.#ends.fill(0);
    await c.recompute();
    return c;
  }

  /** Recomputes every label from scratch: one union per edge over all slabs, then a compression. */
  async recompute(options: ComponentsUpdateOptions = {}): Promise<void> {
    this.#checkOpen();
    await this.#fit();
    const graph = this.graph;
    await onTarget(this.#target(options), 'dynamic cc recompute', async (rec) => {
      await this.#sets.recordReset(rec);
      await compute(rec, { all: graph.slabCapacity }, forEachSlabEdge(graph, this.#link(false)));
      await this.#sets.recordCompress(rec);
    });
  }

  /**
   * Updates the labels after `src[i] -> dst[i]` were inserted into the graph: one union per batch edge
   * whose ends are vertices (self-loops and edges the graph ignored change nothing), then every vertex
   * points at its root again. Pass the batch given to `insertEdges`.
   */
  async afterInsert(src: IdArray, dst: IdArray, options: ComponentsUpdateOptions = {}): Promise<void> {
    this.#checkOpen();
    this.#checkBatch(src, dst, 'afterInsert');
    await this.#fit();
    if (src.length === 0) return;
    const alive = isAliveFunctor(this.graph);
    await onTarget(this.#target(options), 'dynamic cc after insert', async (rec) => {
      const { s, t } = onDevice(rec, src, dst);
      await compute(
        rec,
        { all: src.length },
        wgsl`(i: u32) {
  let u = ${s}[i];
  let v = ${t}[i];
  if (u != v && ${alive}(u) && ${alive}(v)) { ${this.#union()}(u, v); }
}`,
      );
      await this.#sets.recordCompress(rec);
    });
  }

  /**
   * Deletes edges `src[i] -> dst[i]` from the graph (both directions when undirected) and repairs the
   * labels: the components that lost a forest edge are reset and re-linked; other deleted edges, absent
   * edges and self-loops touch nothing.
   */
  async deleteEdges(src: IdArray, dst: IdArray, options: ComponentsUpdateOptions = {}): Promise<void> {
    this.#checkOpen();
    this.#checkBatch(src, dst, 'deleteEdges');
    await this.#fit();
    const graph = this.graph;
    const epoch = ++this.#epoch;
    await onTarget(this.#target(options), 'dynamic cc delete edges', async (rec) => {
      rec.clear(this.#gates);
      rec.clear(this.#leftCount);
      if (src.length > 0) {
        const { s, t } = onDevice(rec, src, dst);
        const ends = atomic(this.#ends);
        await compute(
          rec,
          { all: src.length },
          wgsl`(i: u32) {
  let u = ${s}[i];
  let v = ${t}[i];
  if (u == v || u >= ${u32(graph.vertexCount)} || v >= ${u32(graph.vertexCount)}) { return; }
  atomicStore(&${ends}[u], ${u32(epoch)});
  atomicStore(&${ends}[v], ${u32(epoch)});
}`,
        );
        await graph.deleteEdges(s, t, { recorder: rec });
        // A forest edge is gone only if both its ends were in the batch: one probe of the table then.
        await compute(
          rec,
          { all: graph.vertexCount },
          wgsl`(v: u32) {
  let root = ${this.labels}[v];
  if (root == v) { return; }
  if (${this.#lost(epoch)}(v)) { atomicStore(&${atomic(this.#stamp)}[root], ${u32(epoch)}); }
}`,
        );
      }
      await this.#repair(rec, epoch);
    });
  }

  /** Deletes vertices (and every edge touching them) from the graph and repairs the labels. */
  async deleteVertices(ids: ArrayLike<number>, options: ComponentsUpdateOptions = {}): Promise<void> {
    this.#checkOpen();
    await this.#fit();
    const graph = this.graph;
    const list = [...new Set(Array.from(ids))].filter((v) => graph.hasVertex(v));
    const epoch = ++this.#epoch;
    await onTarget(this.#target(options), 'dynamic cc delete vertices', async (rec) => {
      rec.clear(this.#gates);
      rec.clear(this.#leftCount);
      if (list.length > 0) {
        const idArr = rec.scratch('u32', list.length, 'cc deleted vertices').upload(list);
        await compute(
          rec,
          { all: list.length },
          wgsl`(i: u32) { atomicStore(&${atomic(this.#stamp)}[${this.labels}[${idArr}[i]]], ${u32(epoch)}); }`,
        );
        await graph.deleteVertices(list, { recorder: rec });
      }
      await this.#repair(rec, epoch);
    });
  }

  /** Labels on the host, one per vertex id of the graph (the smallest id of each component). */
  async result(): Promise<Uint32Array> {
    this.#checkOpen();
    if (!(await this.#sets.finished())) {
      throw new WeftError('union-find gave up on a link after too many failed compare-exchanges');
    }
    const n = this.graph.vertexCount;
    return n === 0 ? new Uint32Array(0) : this.labels.download(0, n);
  }

  /** How many vertices the last deletion reset (read back from the GPU). */
  async touched(): Promise<number> {
    this.#checkOpen();
    return (await this.#gates.download(0, 1))[0]!;
  }

  /**
   * How many of them the last deletion re-linked edge by edge (those outside their old component's main
   * set after phase 1; read back from the GPU).
   */
  async relinked(): Promise<number> {
    this.#checkOpen();
    return (await this.#gates.download(G_LEFT, 1))[0]!;
  }

  /**
   * The arrays that hold this object's state between updates, `labels` first: copying them back (while
   * the graph is back as it was too) restores a state, e.g. to time the same batch again.
   */
  get state(): readonly DeviceArray<'u32'>[] {
    return [this.labels, this.#tails, this.#heads];
  }

  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#sets.destroy();
    for (const a of [this.labels, this.#stamp, this.#touched, this.#left, this.#gates, this.#leftCount]) {
      a.destroy();
    }
    for (const a of [this.#tails, this.#heads, this.#ends]) a.destroy();
    for (const a of this.#scratchArrays()) a.destroy();
  }

  /** Per-repair arrays, written before they are read: [old, size, best, main, leftover, kept tails, heads]. */
  #scratch(capacity: number): Scratch {
    const d = this.graph.device;
    const one = (what: string) => d.array('u32', capacity, { label: `dynamic cc ${what}` });
    return [
      one('old labels'),
      one('set sizes'),
      one('largest sets'),
      one('main sets'),
      one('left over list'),
      one('kept forest tails'),
      one('kept forest heads'),
    ];
  }

  #scratchArrays(): Scratch {
    return [this.#old, this.#size, this.#best, this.#main, this.#leftover, this.#keptTails, this.#keptHeads];
  }

  [Symbol.dispose]() {
    this.destroy();
  }

  #target(options: ComponentsUpdateOptions): Target {
    return options.recorder ?? this.graph.device;
  }

  #checkOpen() {
    if (this.#destroyed) throw new InputError('this DynamicComponents was destroyed', 'DynamicComponents');
    if (this.graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicComponents');
  }

  #checkBatch(src: IdArray, dst: IdArray, where: string) {
    if (src.length !== dst.length) {
      throw new InputError(`src has ${src.length} entries but dst has ${dst.length}`, where);
    }
    const n = this.graph.vertexCount;
    for (const [name, ids] of [
      ['src', src],
      ['dst', dst],
    ] as const) {
      if (!(ids instanceof Uint32Array)) continue;
      for (let i = 0; i < ids.length; i++) {
        if (ids[i]! >= n) {
          throw new InputError(`${name}[${i}] = ${ids[i]} is not a vertex id (vertexCount is ${n})`, where);
        }
      }
    }
  }

  /** Follows the graph's vertex dictionary when it grew: new vertex slots are singletons. */
  async #fit() {
    const capacity = this.graph.vertexCapacity;
    if (capacity <= this.#capacity) return;
    const d = this.graph.device;
    const old = this.#capacity;
    const labels = d.array('u32', capacity, { label: 'dynamic cc labels' });
    const stamp = d.array('u32', capacity, { label: 'dynamic cc stamps' });
    const left = d.array('u32', capacity, { label: 'dynamic cc left over' });
    const tails = d.array('u32', capacity, { label: 'dynamic cc forest tails' });
    const heads = d.array('u32', capacity, { label: 'dynamic cc forest heads' });
    const ends = d.array('u32', capacity, { label: 'dynamic cc deleted edge ends' });
    const rec = d.recorder({ label: 'dynamic cc grow' });
    rec.clear(stamp);
    rec.clear(left);
    rec.clear(ends);
    rec.copy(this.labels, labels, old);
    rec.copy(this.#stamp, stamp, old);
    rec.copy(this.#left, left, old);
    rec.copy(this.#tails, tails, old);
    rec.copy(this.#heads, heads, old);
    rec.copy(this.#ends, ends, old);
    await compute(
      rec,
      { all: capacity - old },
      wgsl`(i: u32) { ${rw(labels)}[i + ${u32(old)}] = i + ${u32(old)}; }`,
    );
    await rec.submit();
    this.#sets.destroy();
    for (const a of [this.labels, this.#stamp, this.#touched, this.#left]) a.destroy();
    for (const a of [this.#tails, this.#heads, this.#ends]) a.destroy();
    for (const a of this.#scratchArrays()) a.destroy();
    this.labels = labels;
    this.#stamp = stamp;
    this.#left = left;
    this.#tails = tails;
    this.#heads = heads;
    this.#ends = ends;
    this.#touched = d.array('u32', capacity, { label: 'dynamic cc touched' });
    [this.#old, this.#size, this.#best, this.#main, this.#leftover, this.#keptTails, this.#keptHeads] =
      this.#scratch(capacity);
    this.#sets = new DisjointSets(d, capacity, { parents: labels, label: 'dynamic cc' });
    this.#capacity = capacity;
  }

  /**
   * `(src, dst, edge)`: unions the edge's ends, each undirected edge once (from its smaller end); with
   * `touchedOnly`, only edges whose tail the current deletion reset (their heads were reset too).
   */
  #link(touchedOnly: boolean, epoch = 0): Functor {
    const keep = this.graph.directed
      ? wgsl`(u: u32, v: u32) -> bool { return u != v; }`
      : wgsl`(u: u32, v: u32) -> bool { return u < v; }`;
    const gate = touchedOnly
      ? wgsl`(u: u32) -> bool { return atomicLoad(&${atomic(this.#stamp)}[u]) == ${u32(epoch)}; }`
      : wgsl`(u: u32) -> bool { return true; }`;
    return wgsl`(src: u32, dst: u32, edge: u32) {
  if (${keep}(src, dst) && ${gate}(src)) { ${this.#union()}(src, dst); }
}`;
  }

  /**
   * `(u: u32, v: u32) -> bool`: `DisjointSets`' union (the larger root hooked under the smaller) that also
   * records `u -> v` at the root it hooked; `u -> v` must be an edge of the graph.
   */
  #union(): Functor {
    const p = atomic(this.labels);
    const find = this.#sets.find();
    return wgsl`(u: u32, v: u32) -> bool {
  var a = ${find}(u);
  var b = ${find}(v);
  for (var retry = 0u; retry < ${lit(`${UNION_MAX_RETRIES}u`)}; retry++) {
    if (a == b) { return false; }
    if (a > b) {
      let t = a;
      a = b;
      b = t;
    }
    let r = atomicCompareExchangeWeak(&${p}[b], b, a);
    if (r.exchanged) {
      ${rw(this.#tails)}[b] = u;
      ${rw(this.#heads)}[b] = v;
      return true;
    }
    b = ${find}(r.old_value);
    a = ${find}(a);
  }
  atomicStore(&${atomic(this.#sets.status)}[0], 1u);
  return false;
}`;
  }

  /**
   * `(v: u32) -> bool`, for a non-root `v`: whether the deletion of `epoch` removed v's forest edge (only
   * possible when both its ends were ends of the batch).
   */
  #lost(epoch: number): Functor {
    const ends = atomic(this.#ends);
    return wgsl`(v: u32) -> bool {
  let a = ${this.#tails}[v];
  let b = ${this.#heads}[v];
  if (atomicLoad(&${ends}[a]) != ${u32(epoch)} || atomicLoad(&${ends}[b]) != ${u32(epoch)}) { return false; }
  return !${hasEdgeFunctor(this.graph)}(a, b);
}`;
  }

  /**
   * After a deletion recorded into `rec` whose touched roots carry `epoch`: resets every vertex of those
   * roots' components to a singleton (listing it, with its old label and its forest edge if that edge is
   * still in the graph), then re-links in two phases. Phase 1 unions each listed vertex's kept forest edge
   * and the first keys of its first slab (a few edges a vertex, one slab read): the kept forest edges alone
   * rebuild each old component but for the pieces its deleted forest edges cut off. In each old component
   * the set with the most vertices is its main set. Phase 2 unions every edge of the vertices outside the
   * main sets (their tables, or a sweep of the slabs chosen on the GPU from their count; directed graphs
   * sweep, as in-edges are not in the tables). Exact: every set is connected, an edge between two vertices
   * of one main set joins nothing new, and every other edge of the old components is unioned.
   */
  async #repair(rec: Recorder, epoch: number) {
    const graph = this.graph;
    const gates = this.#gates;
    const stamp = atomic(this.#stamp);
    const none = lit(`${NONE}u`);
    const alive = isAliveFunctor(graph);
    await compute(
      rec,
      { all: graph.vertexCount },
      wgsl`(v: u32) {
  let old = ${this.labels}[v];
  if (atomicLoad(&${stamp}[old]) != ${u32(epoch)}) { return; }
  var tail = ${none};
  if (old != v) {
    let a = ${this.#tails}[v];
    let b = ${this.#heads}[v];
    if (${alive}(a) && ${alive}(b) && !${this.#lost(epoch)}(v)) { tail = a; }
  }
  ${rw(this.#keptTails)}[v] = tail;
  ${rw(this.#keptHeads)}[v] = ${this.#heads}[v];
  ${rw(this.labels)}[v] = v;
  ${rw(this.#old)}[v] = old;
  atomicStore(&${atomic(this.#size)}[v], 0u);
  atomicStore(&${atomic(this.#best)}[v], 0u);
  atomicStore(&${atomic(this.#main)}[v], ${none});
  atomicStore(&${stamp}[v], ${u32(epoch)});
  let slot = atomicAdd(&${atomic(gates)}[0], 1u);
  ${rw(this.#touched)}[slot] = v;
}`,
    );
    const touched = { items: this.#touched, length: { array: gates, index: 0 } };
    const slabs = graph.slabs;
    const word = (field: number) => lit(`v * ${VERTEX_WORDS}u + ${field}u`);
    const union = this.#union();
    await compute(
      rec,
      touched,
      wgsl`(v: u32) {
  let tail = ${this.#keptTails}[v];
  if (tail != ${none}) { _ = ${union}(tail, ${this.#keptHeads}[v]); }
  let at = ${graph.vertices}[${word(V_BASE)}] * ${lit(`${SLAB_WORDS}u`)};
  var linked = 0u;
  for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)} && linked < ${lit(`${FIRST_KEYS}u`)}; lane++) {
    let k = ${slabs}[at + lane];
    if (k < ${lit(`${TOMBSTONE}u`)}) {
      _ = ${union}(v, k);
      linked++;
    }
  }
}`,
    );
    const find = this.#sets.find();
    await compute(rec, touched, wgsl`(v: u32) { atomicStore(&${atomic(this.labels)}[v], ${find}(v)); }`);
    await compute(rec, touched, wgsl`(v: u32) { atomicAdd(&${atomic(this.#size)}[${this.labels}[v]], 1u); }`);
    await compute(
      rec,
      touched,
      wgsl`(v: u32) {
  if (${this.labels}[v] == v) { atomicMax(&${atomic(this.#best)}[${this.#old}[v]], atomicLoad(&${atomic(this.#size)}[v])); }
}`,
    );
    await compute(
      rec,
      touched,
      wgsl`(v: u32) {
  let c = ${this.#old}[v];
  if (${this.labels}[v] == v && atomicLoad(&${atomic(this.#size)}[v]) == atomicLoad(&${atomic(this.#best)}[c])) {
    atomicMin(&${atomic(this.#main)}[c], v);
  }
}`,
    );
    const left = atomic(this.#left);
    await compute(
      rec,
      touched,
      wgsl`(v: u32) {
  if (${this.labels}[v] == atomicLoad(&${atomic(this.#main)}[${this.#old}[v]])) { return; }
  atomicStore(&${left}[v], ${u32(epoch)});
  let slot = atomicAdd(&${atomic(this.#leftCount)}[0], 1u);
  ${rw(this.#leftover)}[slot] = v;
}`,
    );
    const sweepMin = this.#sweepMin();
    const walkCount = { array: gates, index: 1 };
    const sweepCount = { array: gates, index: 2 };
    const walk = writeDispatchArgs(gates, 3, transformItemsPerWorkgroup(walkCount));
    const sweep = writeDispatchArgs(gates, 6, transformItemsPerWorkgroup(sweepCount));
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  let n = ${this.#leftCount}[0];
  ${rw(gates)}[${lit(`${G_LEFT}u`)}] = n;
  let swept = n >= ${u32(graph.directed ? 1 : sweepMin)};
  let walked = select(n, 0u, swept);
  let slabs = select(0u, min(${graph.alloc}[0], ${u32(graph.slabCapacity)}), swept && n > 0u);
  ${rw(gates)}[1] = walked;
  ${rw(gates)}[2] = slabs;
  ${walk.write}(walked);
  ${sweep.write}(slabs);
}`,
    );
    const isLeft = wgsl`(u: u32) -> bool { return atomicLoad(&${left}[u]) == ${u32(epoch)}; }`;
    // Undirected: each edge once when both ends are left over, from the left-over end otherwise.
    const relink = graph.directed
      ? wgsl`(src: u32, dst: u32, edge: u32) {
  if (src != dst && (${isLeft}(src) || ${isLeft}(dst))) { _ = ${union}(src, dst); }
}`
      : wgsl`(src: u32, dst: u32, edge: u32) {
  if (${isLeft}(src) && (src < dst || !${isLeft}(dst))) { _ = ${union}(src, dst); }
}`;
    await compute(
      rec,
      { items: this.#leftover, length: { ...walkCount, args: walk.args } },
      graph.forEachNeighbor(relink),
    );
    await compute(rec, { all: { ...sweepCount, args: sweep.args } }, forEachSlabEdge(graph, relink));
    await compute(rec, touched, wgsl`(v: u32) { atomicStore(&${atomic(this.labels)}[v], ${find}(v)); }`);
  }

  #sweepMin(): number {
    const mode = this.options.relink ?? 'auto';
    if (mode === 'vertex') return 0xffffffff;
    if (mode === 'slab') return 0;
    return this.options.sweepMin ?? Math.max(1, Math.ceil(this.graph.vertexCount / 32));
  }
}

function onDevice(rec: Recorder, src: IdArray, dst: IdArray) {
  const up = (a: IdArray, label: string) =>
    ArrayBuffer.isView(a) ? rec.scratch('u32', Math.max(1, a.length), label).upload(a) : a;
  return { s: up(src, 'cc batch sources'), t: up(dst, 'cc batch targets') };
}

/**
 * Connected components of a dynamic graph from scratch (weakly connected when directed): labels (the
 * smallest vertex id of each component) and their count. Keep a {@link DynamicComponents} instead to
 * update them after batches.
 */
export async function dynamicConnectedComponents(
  graph: DynamicGraph,
): Promise<{ labels: Uint32Array; count: number }> {
  const c = await DynamicComponents.create(graph);
  try {
    const labels = await c.result();
    let count = 0;
    for (let v = 0; v < labels.length; v++) if (labels[v] === v) count++;
    return { labels, count };
  } finally {
    c.destroy();
  }
}
