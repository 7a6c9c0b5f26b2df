import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type DispatchArgs,
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
import { compute, DisjointSets } from '@weft/operators';
import { checkIdBatch, checkSweepMin, type DynamicGraph, type IdArray } from './dynamic-graph.ts';
import { KEY_SLOTS, SLAB_WORDS, TOMBSTONE, V_BASE, VERTEX_WORDS } from './layout.ts';
import { everySlabNeighbor, forEachSlabEdge, hasEdgeFunctor, isAliveFunctor } from './neighbors.ts';

/** Keys of a vertex's first slab that phase 1 of a directed repair unions it with. */
const FIRST_KEYS = 4;
/** No main set yet; no forest edge kept; no neighbour found. */
const NONE = 0xffffffff;
/** A vertex without a parent in the spanning tree (its `settled` word). */
const UNSETTLED = 0xffffffff;
/**
 * Vertices a cut-off piece may hold: one thread gathers it in private memory; a larger one re-links its
 * whole component instead.
 */
const PIECE_MAX = 64;
/** Parents followed to prove a neighbour's path to its root intact (deeper paths count as broken). */
const PATH_HOPS = 64;
/** Rounds in which re-linked vertices take a settled neighbour as parent, one tree level a round. */
const SETTLE_ROUNDS = 4;
/** Rounds `create` runs between checks that the spanning trees are whole. */
const BUILD_ROUNDS = 8;
/** A bound on those rounds (a tree this deep is left to finish during updates). */
const BUILD_MAX_ROUNDS = 4096;

// The gates' words.
/** Vertices reset by the last deletion (listed in `touched`). */
const G_TOUCHED = 0;
const G_WALKED = 1;
const G_SWEPT = 2;
const G_WALK_ARGS = 3;
const G_SWEEP_ARGS = 6;
/** Vertices re-linked edge by edge. */
const G_LEFT = 9;
/** Tree edges the last deletion cut (listed in `cuts`). */
const G_CUTS = 10;
/** Dispatch arguments over the `touched` list. */
const G_LIST_ARGS = 11;
/** Set when a build round settled a vertex. */
const G_SETTLED = 14;
const GATE_WORDS = 15;

/** Per-vertex arrays kept between updates, and what a vertex slot added by growth holds. */
const KEPT = {
  labels: 'id',
  stamp: 0,
  left: 0,
  ends: 0,
  tails: 0,
  heads: 0,
  parent: 'id',
  settled: 0,
  cut: 0,
  loose: 0,
  hit: 0,
} as const;
type Kept = keyof typeof KEPT;
/** Per-update arrays only directed graphs use. */
const DIRECTED_SCRATCH = ['size', 'best', 'main', 'leftover', 'keptTails', 'keptHeads'] as const;
/** Arrays only one kind of graph uses (the other gets one word each). */
const DIRECTED_ONLY = new Set<string>(['ends', 'tails', 'heads', ...DIRECTED_SCRATCH]);
const UNDIRECTED_ONLY = new Set(['parent', 'settled', 'cut', 'loose', 'hit', 'cuts']);
const SCRATCH = ['touched', 'old', ...DIRECTED_SCRATCH, 'cuts'] as const;
type Scratch = (typeof SCRATCH)[number];

export interface DynamicComponentsOptions {
  /**
   * How a deletion re-links the edges of the vertices it lists (those left outside their component's main
   * set, or cut off from their spanning tree): `'vertex'`, a thread per such vertex walking its table;
   * `'slab'`, a thread per slab of the pool whose owner is one; `'auto'` (default) picks on the GPU: slabs
   * once `sweepMin` vertices or more are listed. Directed graphs always sweep (their tables hold no
   * in-edges).
   */
  relink?: 'auto' | 'vertex' | 'slab';
  /** Listed vertices from which `'auto'` sweeps the slabs (default: a 32nd of the vertices, at least 1). */
  sweepMin?: number;
}

/** Where an update records its work: a recorder (submitted by the caller), else one submit of its own. */
export interface ComponentsUpdateOptions {
  recorder?: Recorder;
}

/** Components from scratch without spanning trees, for {@link dynamicConnectedComponents}. */
let labelsOnce: (graph: DynamicGraph) => Promise<DynamicComponents>;

/**
 * Weakly connected components of a {@link DynamicGraph}, kept up to date under batches of updates (Falcon's
 * morph style). An insertion batch unions its edges' ends ({@link afterInsert}, nothing recomputed).
 *
 * Undirected graphs keep a spanning tree of each component beside the labels: every vertex but the root
 * (its smallest id) has a parent along an edge. Deleting an edge outside the trees (most of them: the trees
 * hold fewer edges than vertices) costs nothing. A deleted tree edge cuts its child's subtree off: the
 * child takes another neighbour whose path to the root is intact as its parent, or else its subtree (up to
 * 64 vertices, found from the child through the tables) is reset and re-linked edge by edge, so the work
 * follows the cut-off pieces, not the component. Vertices whose trees merged in an insertion, or that were
 * re-linked, take a neighbour already in a tree as parent, one level a round for a few rounds; a component
 * left with vertices outside its tree (or a piece too large) is re-linked whole by the deletion that next
 * touches it, as are the components of {@link deleteVertices}.
 *
 * Directed graphs (whose tables hold no in-edges) keep, per union-find root that was hooked, the edge that
 * hooked it: those edges span each component, so a deletion touches only the components that lost one of
 * them. A touched component is reset to singletons and re-linked: its surviving forest edges and a few edges
 * a vertex first, then every edge of the vertices left outside the largest set so formed (a slab sweep).
 *
 * `labels[v]` is the smallest vertex id of `v`'s component (a union-find root: every parent is smaller than
 * its child), for every id below the graph's `vertexCount`; deleted and never-inserted ids are singletons.
 * A graph changed without telling this object (e.g. `graph.deleteEdges` called directly) needs
 * {@link recompute}, after which undirected trees regrow as later deletions re-link the components.
 */
export class DynamicComponents {
  /** One label per vertex slot of the graph: the smallest vertex id of its component. */
  labels: DeviceArray<'u32'>;
  #sets: DisjointSets;
  /**
   * Per vertex, kept between updates (epochs and rounds only grow, so none is ever cleared):
   * `stamp`, the last deletion that reset each root's whole component (and, directed, each vertex it
   * reset); `left`, the last deletion that re-linked each vertex edge by edge; directed: `tails -> heads`,
   * per non-root, the edge whose union hooked it (a root's entries are stale), and `ends`, the last deletion
   * with an edge at each vertex; undirected: `parent` in the spanning tree, `settled`, the round each vertex
   * took it (`UNSETTLED`: none yet), `cut`, the last deletion that cut each vertex's tree edge, `loose`,
   * the last deletion during which each root's component held unsettled vertices, `hit`, the last deletion
   * with an edge in each loose component.
   */
  #kept: Record<Exclude<Kept, 'labels'>, DeviceArray<'u32'>>;
  /**
   * Per-update arrays, written before they are read: `touched`, the vertices the last deletion reset (or
   * re-linked); directed: each reset vertex's `old` label, phase-1 set `size`s, per old component the
   * `best` size and its `main` set, the `leftover` vertices outside it, the kept forest edges; undirected:
   * `old` labels before an insertion, the `cuts` of a deletion.
   */
  #scratch: Record<Scratch, DeviceArray<'u32'>>;
  readonly #leftCount: DeviceArray<'u32'>;
  /**
   * A count of vertices and dispatch arguments over them, zero unless armed: `#scan`, by a deletion that
   * re-links a whole component or hits a loose one (the pass that lists their vertices runs only then);
   * `#looseScan`, kept, by any update that leaves a vertex unsettled (the pass that marks loose components
   * runs only then; a build that settles every vertex disarms it).
   */
  readonly #scan: DeviceArray<'u32'>;
  readonly #looseScan: DeviceArray<'u32'>;
  /** See the `G_*` constants. */
  readonly #gates: DeviceArray<'u32'>;
  #capacity: number;
  #epoch = 0;
  #tick = 0;
  #destroyed = false;

  private constructor(
    readonly graph: DynamicGraph,
    readonly options: DynamicComponentsOptions,
  ) {
    const d = graph.device;
    this.#capacity = graph.vertexCapacity;
    this.labels = d.array('u32', this.#capacity, { label: 'dynamic cc labels' });
    this.#kept = this.#keptArrays(this.#capacity);
    this.#scratch = this.#scratchArrays(this.#capacity);
    this.#sets = new DisjointSets(d, this.#capacity, { parents: this.labels, label: 'dynamic cc' });
    this.#gates = d.array('u32', GATE_WORDS, { label: 'dynamic cc gates', indirect: true });
    this.#leftCount = d.array('u32', 1, { label: 'dynamic cc left over count' });
    this.#scan = d.array('u32', 4, { label: 'dynamic cc scan gate', indirect: true });
    this.#looseScan = d.array('u32', 4, { label: 'dynamic cc loose scan gate', indirect: true });
  }

  /** Components of `graph` computed from scratch (with their spanning trees when undirected). */
  static async create(
    graph: DynamicGraph,
    options: DynamicComponentsOptions = {},
  ): Promise<DynamicComponents> {
    checkOptionsObject('DynamicComponents.create', options);
    if (graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicComponents');
    const relink = options.relink ?? 'auto';
    if (relink !== 'auto' && relink !== 'vertex' && relink !== 'slab') {
      throw new InputError(`relink must be 'auto', 'vertex' or 'slab', got '${String(relink)}'`, 'relink');
    }
    checkSweepMin(options.sweepMin, 'DynamicComponents');
    const c = await DynamicComponents.#open(graph, options);
    if (!graph.directed) await c.#buildTrees();
    return c;
  }

  static async #open(graph: DynamicGraph, options: DynamicComponentsOptions): Promise<DynamicComponents> {
    const c = new DynamicComponents(graph, options);
    for (const a of Object.values(c.#kept)) await a.fill(0);
    await c.recompute();
    return c;
  }

  static {
    labelsOnce = (graph) => DynamicComponents.#open(graph, {});
  }

  /**
   * Recomputes every label from scratch: one union per edge over all slabs, then a compression. Undirected
   * spanning trees are dropped, to regrow as later deletions re-link the components.
   */
  async recompute(options: ComponentsUpdateOptions = {}): Promise<void> {
    checkOptionsObject('DynamicComponents.recompute', options);
    this.#checkOpen();
    await this.#fit();
    const graph = this.graph;
    await onTarget(this.#target(options), 'dynamic cc recompute', async (rec) => {
      await this.#sets.recordReset(rec);
      await compute(rec, { all: graph.slabCapacity }, forEachSlabEdge(graph, this.#link()));
      await this.#sets.recordCompress(rec);
      if (graph.directed) return;
      await rec.fill(this.#kept.settled, UNSETTLED);
      await compute(rec, { all: 1 }, wgsl`(i: u32) { ${this.#arm(this.#looseScan, this.#capacity)}(); }`);
    });
  }

  /**
   * Updates the labels after `src[i] -> dst[i]` were inserted into the graph: one union per batch edge
   * whose ends are vertices (self-loops and edges the graph ignored change nothing), then every vertex
   * points at its root again; undirected, the vertices of trees that merged into another take parents
   * again. Pass the batch given to `insertEdges`.
   */
  async afterInsert(src: IdArray, dst: IdArray, options: ComponentsUpdateOptions = {}): Promise<void> {
    checkOptionsObject('DynamicComponents.afterInsert', options);
    this.#checkOpen();
    this.#checkBatch(src, dst, 'afterInsert');
    await this.#fit();
    if (src.length === 0) return;
    const graph = this.graph;
    const alive = isAliveFunctor(graph);
    await onTarget(this.#target(options), 'dynamic cc after insert', async (rec) => {
      const { s, t } = onDevice(rec, src, dst);
      const old = this.#scratch.old;
      if (!graph.directed) {
        rec.clear(this.#gates);
        rec.copy(this.labels, old);
      }
      await compute(
        rec,
        { all: src.length },
        wgsl`(i: u32) {
  let u = ${s}[i];
  let v = ${t}[i];
  if (u != v && ${alive}(u) && ${alive}(v)) { ${this.#joiner()}(u, v); }
}`,
      );
      await this.#sets.recordCompress(rec);
      if (graph.directed) return;
      // A tree whose root was hooked under another root holds exactly the vertices whose label changed.
      await compute(
        rec,
        { all: graph.vertexCount },
        wgsl`(v: u32) { if (${this.labels}[v] != ${old}[v]) { ${this.#listVertex(this.#epoch)}(v); } }`,
      );
      const args = await this.#recordListGate(rec);
      await this.#recordSettle(rec, args);
    });
  }

  /**
   * Deletes edges `src[i] -> dst[i]` from the graph (both directions when undirected) and repairs the
   * labels. Undirected, only the pieces cut off from their spanning trees (and loose components the batch
   * touches) are re-linked; directed, the components that lost a forest edge are reset and re-linked.
   * Absent edges and self-loops change nothing.
   */
  async deleteEdges(src: IdArray, dst: IdArray, options: ComponentsUpdateOptions = {}): Promise<void> {
    checkOptionsObject('DynamicComponents.deleteEdges', options);
    this.#checkOpen();
    this.#checkBatch(src, dst, 'deleteEdges');
    await this.#fit();
    const graph = this.graph;
    const epoch = ++this.#epoch;
    await onTarget(this.#target(options), 'dynamic cc delete edges', async (rec) => {
      rec.clear(this.#gates);
      rec.clear(this.#leftCount);
      rec.clear(this.#scan);
      if (src.length > 0) {
        const { s, t } = onDevice(rec, src, dst);
        if (graph.directed) await this.#cutForestEdges(rec, s, t, src.length, epoch);
        else await this.#cutTreeEdges(rec, s, t, src.length, epoch);
      }
      if (graph.directed) await this.#repair(rec, epoch);
      else await this.#relinkListed(rec, epoch);
    });
  }

  /** Deletes vertices (and every edge touching them) from the graph and re-links their components whole. */
  async deleteVertices(ids: ArrayLike<number>, options: ComponentsUpdateOptions = {}): Promise<void> {
    checkOptionsObject('DynamicComponents.deleteVertices', options);
    this.#checkOpen();
    await this.#fit();
    const graph = this.graph;
    const list = [...new Set(Array.from(ids))].filter((v) => graph.hasVertex(v));
    const epoch = ++this.#epoch;
    await onTarget(this.#target(options), 'dynamic cc delete vertices', async (rec) => {
      rec.clear(this.#gates);
      rec.clear(this.#leftCount);
      rec.clear(this.#scan);
      if (list.length > 0) {
        const idArr = rec.upload('u32', list, 'cc deleted vertices');
        await compute(
          rec,
          { all: list.length },
          wgsl`(i: u32) {
  atomicStore(&${atomic(this.#kept.stamp)}[${this.labels}[${idArr}[i]]], ${u32(epoch)});
  ${this.#arm(this.#scan, graph.vertexCount)}();
}`,
        );
        await graph.deleteVertices(list, { recorder: rec });
      }
      if (graph.directed) await this.#repair(rec, epoch);
      else await this.#relinkListed(rec, epoch);
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

  /**
   * How many vertices the last deletion reset (read back from the GPU); undirected, after an insertion, how
   * many it took out of their trees to settle again (those of the trees it merged into others).
   */
  async touched(): Promise<number> {
    this.#checkOpen();
    return (await this.#gates.download(G_TOUCHED, 1))[0]!;
  }

  /**
   * How many of them the last deletion re-linked edge by edge (undirected: all of them; directed: those
   * outside their old component's main set after phase 1; read back from the GPU).
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
    const k = this.#kept;
    if (this.graph.directed) return [this.labels, k.tails, k.heads];
    return [this.labels, k.parent, k.settled, this.#looseScan];
  }

  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    this.#sets.destroy();
    this.#destroyArrays();
    for (const a of [this.#gates, this.#leftCount, this.#scan, this.#looseScan]) a.destroy();
  }

  [Symbol.dispose]() {
    this.destroy();
  }

  #keptArrays(capacity: number): Record<Exclude<Kept, 'labels'>, DeviceArray<'u32'>> {
    const names = Object.keys(KEPT).filter((k) => k !== 'labels') as Exclude<Kept, 'labels'>[];
    return Object.fromEntries(names.map((k) => [k, this.#perVertex(k, capacity)])) as Record<
      Exclude<Kept, 'labels'>,
      DeviceArray<'u32'>
    >;
  }

  #scratchArrays(capacity: number): Record<Scratch, DeviceArray<'u32'>> {
    return Object.fromEntries(SCRATCH.map((k) => [k, this.#perVertex(k, capacity)])) as Record<
      Scratch,
      DeviceArray<'u32'>
    >;
  }

  #perVertex(name: string, capacity: number): DeviceArray<'u32'> {
    const unused = (this.graph.directed ? UNDIRECTED_ONLY : DIRECTED_ONLY).has(name);
    return this.graph.device.array('u32', unused ? 1 : capacity, { label: `dynamic cc ${name}` });
  }

  #destroyArrays() {
    this.labels.destroy();
    for (const a of Object.values(this.#kept)) a.destroy();
    for (const a of Object.values(this.#scratch)) a.destroy();
  }

  #target(options: ComponentsUpdateOptions): Target {
    return options.recorder ?? this.graph.device;
  }

  #checkOpen() {
    if (this.#destroyed) throw new InputError('this DynamicComponents was destroyed', 'DynamicComponents');
    if (this.graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicComponents');
  }

  #checkBatch(src: IdArray, dst: IdArray, where: string) {
    checkIdBatch(src, dst, this.graph.vertexCount, where);
  }

  /** Follows the graph's vertex dictionary when it grew: new vertex slots are singletons, roots of trees. */
  async #fit() {
    const capacity = this.graph.vertexCapacity;
    if (capacity <= this.#capacity) return;
    const d = this.graph.device;
    const old = this.#capacity;
    const labels = d.array('u32', capacity, { label: 'dynamic cc labels' });
    const kept = this.#keptArrays(capacity);
    const rec = d.recorder({ label: 'dynamic cc grow' });
    const grown: [DeviceArray<'u32'>, DeviceArray<'u32'>, Kept][] = [
      [this.labels, labels, 'labels'],
      ...(Object.keys(kept) as Exclude<Kept, 'labels'>[]).map(
        (k) => [this.#kept[k], kept[k], k] as [DeviceArray<'u32'>, DeviceArray<'u32'>, Kept],
      ),
    ];
    for (const [from, to, name] of grown) {
      if (to.length < capacity) continue;
      rec.copy(from, to, old);
      const fresh =
        KEPT[name] === 'id' ? wgsl`(i: u32) -> u32 { return i; }` : wgsl`(i: u32) -> u32 { return 0u; }`;
      await compute(
        rec,
        { all: capacity - old },
        wgsl`(i: u32) { ${rw(to)}[i + ${u32(old)}] = ${fresh}(i + ${u32(old)}); }`,
      );
    }
    await rec.submit();
    this.#sets.destroy();
    this.#destroyArrays();
    this.labels = labels;
    this.#kept = kept;
    this.#scratch = this.#scratchArrays(capacity);
    this.#sets = new DisjointSets(d, capacity, { parents: labels, label: 'dynamic cc' });
    this.#capacity = capacity;
  }

  /** `(src, dst, edge)`: unions the edge's ends, each undirected edge once (from its smaller end). */
  #link(): Functor {
    const keep = this.graph.directed
      ? wgsl`(u: u32, v: u32) -> bool { return u != v; }`
      : wgsl`(u: u32, v: u32) -> bool { return u < v; }`;
    return wgsl`(src: u32, dst: u32, edge: u32) {
  if (${keep}(src, dst)) { ${this.#joiner()}(src, dst); }
}`;
  }

  /** `(u: u32, v: u32) -> bool`, the union every link goes through: directed, one that records its edge. */
  #joiner(): Functor {
    return this.graph.directed ? this.#union() : this.#sets.union();
  }

  /**
   * `(u: u32, v: u32) -> bool`: `DisjointSets`' union (the larger root hooked under the smaller) that also
   * records `u -> v` at the root it hooked; `u -> v` must be an edge of the graph.
   */
  #union(): Functor {
    return this.#sets.unionWith(wgsl`(root: u32, u: u32, v: u32) {
  ${rw(this.#kept.tails)}[root] = u;
  ${rw(this.#kept.heads)}[root] = v;
}`);
  }

  /**
   * `(i: u32)`: calls `edge(u: u32, v: u32)` for the `i`th batch edge `s[i] -> t[i]` unless it is a self-loop
   * or an end is not a vertex id.
   */
  #batchEdge(s: DeviceArray<'u32'>, t: DeviceArray<'u32'>, edge: Functor): Functor {
    const n = u32(this.graph.vertexCount);
    return wgsl`(i: u32) {
  let u = ${s}[i];
  let v = ${t}[i];
  if (u == v || u >= ${n} || v >= ${n}) { return; }
  ${edge}(u, v);
}`;
  }

  // ---- directed: a forest of the edges that hooked each root ----

  /**
   * Marks the ends of the batch, deletes it from the graph, then stamps the root of each component that lost
   * a forest edge (one table probe per forest edge with both ends in the batch).
   */
  async #cutForestEdges(
    rec: Recorder,
    s: DeviceArray<'u32'>,
    t: DeviceArray<'u32'>,
    m: number,
    epoch: number,
  ) {
    const graph = this.graph;
    const ends = atomic(this.#kept.ends);
    await compute(
      rec,
      { all: m },
      this.#batchEdge(
        s,
        t,
        wgsl`(u: u32, v: u32) {
  atomicStore(&${ends}[u], ${u32(epoch)});
  atomicStore(&${ends}[v], ${u32(epoch)});
}`,
      ),
    );
    await graph.deleteEdges(s, t, { recorder: rec });
    await compute(
      rec,
      { all: graph.vertexCount },
      wgsl`(v: u32) {
  let root = ${this.labels}[v];
  if (root == v) { return; }
  if (${this.#lost(epoch)}(v)) { atomicStore(&${atomic(this.#kept.stamp)}[root], ${u32(epoch)}); }
}`,
    );
  }

  /**
   * `(v: u32) -> bool`, for a non-root `v`: whether the deletion of `epoch` removed v's forest edge (only
   * possible when both its ends were ends of the batch).
   */
  #lost(epoch: number): Functor {
    const ends = atomic(this.#kept.ends);
    return wgsl`(v: u32) -> bool {
  let a = ${this.#kept.tails}[v];
  let b = ${this.#kept.heads}[v];
  if (atomicLoad(&${ends}[a]) != ${u32(epoch)} || atomicLoad(&${ends}[b]) != ${u32(epoch)}) { return false; }
  return !${hasEdgeFunctor(this.graph)}(a, b);
}`;
  }

  /**
   * After a deletion recorded into `rec` whose touched roots carry `epoch`: resets every vertex of those
   * roots' components to a singleton (listing it, with its old label and its forest edge if that edge is
   * still in the graph), then re-links in two phases. Phase 1 unions each listed vertex's kept forest edge
   * and the first keys of its first slab: the kept forest edges alone rebuild each old component but for
   * the pieces its deleted forest edges cut off. In each old component the set with the most vertices is its
   * main set. Phase 2 unions every edge of the vertices outside the main sets (a sweep of the slabs, as
   * in-edges are not in the tables). Exact: every set is connected, an edge between two vertices of one main
   * set joins nothing new, and every other edge of the old components is unioned.
   */
  async #repair(rec: Recorder, epoch: number) {
    const graph = this.graph;
    const gates = this.#gates;
    const { touched, old, size, best, main, leftover, keptTails, keptHeads } = this.#scratch;
    const stamp = atomic(this.#kept.stamp);
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
    let a = ${this.#kept.tails}[v];
    let b = ${this.#kept.heads}[v];
    if (${alive}(a) && ${alive}(b) && !${this.#lost(epoch)}(v)) { tail = a; }
  }
  ${rw(keptTails)}[v] = tail;
  ${rw(keptHeads)}[v] = ${this.#kept.heads}[v];
  ${rw(this.labels)}[v] = v;
  ${rw(old)}[v] = old;
  atomicStore(&${atomic(size)}[v], 0u);
  atomicStore(&${atomic(best)}[v], 0u);
  atomicStore(&${atomic(main)}[v], ${none});
  atomicStore(&${stamp}[v], ${u32(epoch)});
  let slot = atomicAdd(&${atomic(gates)}[${lit(`${G_TOUCHED}u`)}], 1u);
  ${rw(touched)}[slot] = v;
}`,
    );
    const list = { items: touched, length: { array: gates, index: G_TOUCHED } };
    const slabs = graph.slabs;
    const word = (field: number) => lit(`v * ${VERTEX_WORDS}u + ${field}u`);
    const union = this.#union();
    await compute(
      rec,
      list,
      wgsl`(v: u32) {
  let tail = ${keptTails}[v];
  if (tail != ${none}) { _ = ${union}(tail, ${keptHeads}[v]); }
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
    await compute(rec, list, wgsl`(v: u32) { atomicStore(&${atomic(this.labels)}[v], ${find}(v)); }`);
    await compute(rec, list, wgsl`(v: u32) { atomicAdd(&${atomic(size)}[${this.labels}[v]], 1u); }`);
    await compute(
      rec,
      list,
      wgsl`(v: u32) {
  if (${this.labels}[v] == v) { atomicMax(&${atomic(best)}[${old}[v]], atomicLoad(&${atomic(size)}[v])); }
}`,
    );
    await compute(
      rec,
      list,
      wgsl`(v: u32) {
  let c = ${old}[v];
  if (${this.labels}[v] == v && atomicLoad(&${atomic(size)}[v]) == atomicLoad(&${atomic(best)}[c])) {
    atomicMin(&${atomic(main)}[c], v);
  }
}`,
    );
    await compute(
      rec,
      list,
      wgsl`(v: u32) {
  if (${this.labels}[v] == atomicLoad(&${atomic(main)}[${old}[v]])) { return; }
  atomicStore(&${atomic(this.#kept.left)}[v], ${u32(epoch)});
  let slot = atomicAdd(&${atomic(this.#leftCount)}[0], 1u);
  ${rw(leftover)}[slot] = v;
}`,
    );
    await this.#recordRelink(rec, epoch, leftover, this.#leftCount, 0);
    await compute(rec, list, wgsl`(v: u32) { atomicStore(&${atomic(this.labels)}[v], ${find}(v)); }`);
  }

  // ---- undirected: spanning trees along edges ----

  /**
   * Builds the spanning trees of every component (every vertex slot) from its root outwards, checking on the
   * host between rounds.
   */
  async #buildTrees() {
    const d = this.graph.device;
    for (let round = 0; round < BUILD_MAX_ROUNDS; round += BUILD_ROUNDS) {
      const rec = d.recorder({ label: 'dynamic cc spanning trees' });
      rec.clear(this.#gates);
      for (let k = 0; k < BUILD_ROUNDS; k++) {
        const settle = this.#settle(++this.#tick, true);
        await compute(rec, { all: this.#capacity }, wgsl`(v: u32) { ${settle}(v, ${this.labels}[v]); }`);
      }
      await rec.submit();
      if ((await this.#gates.download(G_SETTLED, 1))[0] === 0) {
        // No round settled a vertex: every vertex is settled (each unsettled one would have a settled
        // neighbour on its path from its root).
        await this.#looseScan.fill(0);
        return;
      }
    }
  }

  /**
   * Marks the components that held unsettled vertices, deletes the batch from the graph, lists each child of
   * a deleted tree edge once (in `cuts`), then repairs each cut: the child takes a neighbour whose path to
   * the root is intact as parent; else its subtree is listed for re-linking (reset to singletons), or the
   * whole component's root is stamped when the subtree is larger than a piece may be.
   */
  async #cutTreeEdges(rec: Recorder, s: DeviceArray<'u32'>, t: DeviceArray<'u32'>, m: number, epoch: number) {
    const graph = this.graph;
    const k = this.#kept;
    const settled = atomic(k.settled);
    const gates = atomic(this.#gates);
    const e = u32(epoch);
    const unsettled = lit(`${UNSETTLED}u`);
    const none = lit(`${NONE}u`);
    await compute(
      rec,
      { all: this.#gateCount(this.#looseScan) },
      wgsl`(v: u32) {
  if (atomicLoad(&${settled}[v]) == ${unsettled}) { atomicStore(&${atomic(k.loose)}[${this.labels}[v]], ${e}); }
}`,
    );
    await graph.deleteEdges(s, t, { recorder: rec });
    await compute(
      rec,
      { all: m },
      this.#batchEdge(
        s,
        t,
        wgsl`(u: u32, v: u32) {
  let root = ${this.labels}[u];
  if (atomicLoad(&${atomic(k.loose)}[root]) == ${e}) {
    atomicStore(&${atomic(k.hit)}[root], ${e});
    ${this.#arm(this.#scan, graph.vertexCount)}();
  }
  var c = ${none};
  if (${k.parent}[u] == v && atomicLoad(&${settled}[u]) != ${unsettled}) { c = u; }
  if (${k.parent}[v] == u && atomicLoad(&${settled}[v]) != ${unsettled}) { c = v; }
  if (c == ${none} || atomicExchange(&${atomic(k.cut)}[c], ${e}) == ${e}) { return; }
  ${rw(this.#scratch.cuts)}[atomicAdd(&${gates}[${lit(`${G_CUTS}u`)}], 1u)] = c;
}`,
      ),
    );
    const cut = atomic(k.cut);
    // Cut flags are all set before this pass, and only cut children's parents change in it, so a path that
    // reaches the root without meeting a cut or unsettled vertex stays intact.
    const intact = wgsl`(w: u32) -> bool {
  var x = w;
  for (var hop = 0u; hop < ${lit(`${PATH_HOPS}u`)}; hop++) {
    if (atomicLoad(&${cut}[x]) == ${e} || atomicLoad(&${settled}[x]) == ${unsettled}) { return false; }
    let p = ${k.parent}[x];
    if (p == x) { return true; }
    x = p;
  }
  return false;
}`;
    const isChild = wgsl`(x: u32, w: u32) -> bool {
  return ${k.parent}[w] == x && atomicLoad(&${settled}[w]) != ${unsettled} && atomicLoad(&${cut}[w]) != ${e};
}`;
    const piece = lit(`array<u32, ${PIECE_MAX}>`);
    const stamp = atomic(k.stamp);
    const touched = rw(this.#scratch.touched);
    await compute(
      rec,
      { all: m },
      wgsl`(i: u32) {
  if (i >= atomicLoad(&${gates}[${lit(`${G_CUTS}u`)}])) { return; }
  let c = ${this.#scratch.cuts}[i];
  let root = ${this.labels}[c];
  if (atomicLoad(&${stamp}[root]) == ${e}) { return; }
  let w = ${this.#firstNeighbor(intact)}(c);
  if (w != ${none}) {
    ${rw(k.parent)}[c] = w;
    return;
  }
  var q: ${piece};
  q[0] = c;
  var n = 1u;
  for (var head = 0u; head < n; head++) {
    if (!${this.#gatherChildren(isChild)}(q[head], &q, &n)) {
      atomicStore(&${stamp}[root], ${e});
      ${this.#arm(this.#scan, graph.vertexCount)}();
      return;
    }
  }
  let base = atomicAdd(&${gates}[${lit(`${G_TOUCHED}u`)}], n);
  for (var j = 0u; j < n; j++) {
    let x = q[j];
    ${rw(this.labels)}[x] = x;
    ${touched}[base + j] = x;
    atomicStore(&${settled}[x], ${unsettled});
    atomicStore(&${atomic(k.left)}[x], ${e});
  }
}`,
    );
  }

  /**
   * Lists (resets to singletons) every vertex of the components stamped whole and the unsettled vertices
   * of the loose components the batch hit, beside the pieces already listed; re-links every edge of the
   * listed vertices, then settles them. Exact: the rest of each old component is connected along its tree
   * (paths intact, or through a child that took a new parent) and keeps its root's label, and every edge at
   * a listed vertex is unioned.
   */
  async #relinkListed(rec: Recorder, epoch: number) {
    const k = this.#kept;
    const e = u32(epoch);
    await compute(
      rec,
      { all: this.#gateCount(this.#scan) },
      wgsl`(v: u32) {
  let root = ${this.labels}[v];
  if (atomicLoad(&${atomic(k.stamp)}[root]) != ${e}) {
    if (atomicLoad(&${atomic(k.settled)}[v]) != ${lit(`${UNSETTLED}u`)}) { return; }
    if (atomicLoad(&${atomic(k.hit)}[root]) != ${e}) { return; }
  }
  ${rw(this.labels)}[v] = v;
  ${this.#listVertex(epoch)}(v);
}`,
    );
    const { touched } = this.#scratch;
    const args = await this.#recordRelink(rec, epoch, touched, this.#gates, G_TOUCHED);
    await this.#recordSettle(rec, args, true);
  }

  /** `(v: u32)`: takes `v` out of its tree and appends it to `touched`. */
  #listVertex(epoch: number): Functor {
    return wgsl`(v: u32) {
  atomicStore(&${atomic(this.#kept.settled)}[v], ${lit(`${UNSETTLED}u`)});
  atomicStore(&${atomic(this.#kept.left)}[v], ${u32(epoch)});
  ${rw(this.#scratch.touched)}[atomicAdd(&${atomic(this.#gates)}[${lit(`${G_TOUCHED}u`)}], 1u)] = v;
}`;
  }

  /** Dispatch arguments over the `touched` list, from its count. */
  async #recordListGate(rec: Recorder) {
    const gates = this.#gates;
    const list = writeDispatchArgs(
      gates,
      G_LIST_ARGS,
      transformItemsPerWorkgroup({ array: gates, index: G_TOUCHED }),
    );
    await compute(rec, { all: 1 }, wgsl`(i: u32) { ${list.write}(${gates}[${lit(`${G_TOUCHED}u`)}]); }`);
    return list.args;
  }

  /**
   * Settling rounds over the `touched` list (vertices still unsettled after them leave their component
   * loose); with `compress`, the first round first points each listed vertex at its root.
   */
  async #recordSettle(rec: Recorder, args: DispatchArgs, compress = false) {
    const list = { items: this.#scratch.touched, length: { array: this.#gates, index: G_TOUCHED, args } };
    const find = this.#sets.find();
    for (let round = 0; round < SETTLE_ROUNDS; round++) {
      const settle = this.#settle(++this.#tick, false, round === SETTLE_ROUNDS - 1);
      await compute(
        rec,
        list,
        round === 0 && compress
          ? wgsl`(v: u32) {
  let root = ${find}(v);
  atomicStore(&${atomic(this.labels)}[v], root);
  ${settle}(v, root);
}`
          : wgsl`(v: u32) { ${settle}(v, ${this.labels}[v]); }`,
      );
    }
  }

  /**
   * `(v: u32, root: u32)`: an unsettled `v` becomes its tree's root if it is its component's `root`, else
   * takes as parent a neighbour settled in an earlier round (whose path to the root is whole), if any; `flag`
   * raises the gates' `G_SETTLED` word when it settles (a dispatch over a list counted in the gates cannot);
   * in the `last` round, a vertex left unsettled arms the loose scan.
   */
  #settle(tick: number, flag: boolean, last = false): Functor {
    const settled = atomic(this.#kept.settled);
    const before = wgsl`(w: u32) -> bool { return atomicLoad(&${settled}[w]) < ${u32(tick)}; }`;
    return wgsl`(v: u32, root: u32) {
  if (atomicLoad(&${settled}[v]) != ${lit(`${UNSETTLED}u`)}) { return; }
  var p = v;
  if (root != v) { p = ${this.#firstNeighbor(before)}(v); }
  if (p == ${lit(`${NONE}u`)}) {
    ${last ? this.#arm(this.#looseScan, this.#capacity) : wgsl`() {}`}();
    return;
  }
  ${rw(this.#kept.parent)}[v] = p;
  atomicStore(&${settled}[v], ${u32(tick)});
  ${flag ? wgsl`(i: u32) { atomicStore(&${atomic(this.#gates)}[i], 1u); }` : wgsl`(i: u32) {}`}(${lit(`${G_SETTLED}u`)});
}`;
  }

  /** `(v: u32) -> u32`: the first key of v's table for which `accept(w: u32) -> bool` holds, else `NONE`. */
  #firstNeighbor(accept: Functor): Functor {
    const take = wgsl`(v: u32, w: u32, edge: u32, found: ptr<function, u32>) -> bool {
  if (!${accept}(w)) { return true; }
  *found = w;
  return false;
}`;
    const walk = everySlabNeighbor(this.graph, take, [['found', 'ptr<function, u32>']]);
    return wgsl`(v: u32) -> u32 {
  var found = ${lit(`${NONE}u`)};
  _ = ${walk}(v, &found);
  return found;
}`;
  }

  /**
   * `(x: u32, q: ptr<function, array<u32, PIECE_MAX>>, n: ptr<function, u32>) -> bool`: appends to `q` the
   * keys `w` of x's table with `isChild(x, w)`; false when `q` would overflow.
   */
  #gatherChildren(isChild: Functor): Functor {
    const piece = `ptr<function, array<u32, ${PIECE_MAX}>>`;
    const add = wgsl`(x: u32, w: u32, edge: u32, q: ${lit(piece)}, n: ptr<function, u32>) -> bool {
  if (!${isChild}(x, w)) { return true; }
  if (*n == ${lit(`${PIECE_MAX}u`)}) { return false; }
  (*q)[*n] = w;
  *n = *n + 1u;
  return true;
}`;
    return everySlabNeighbor(this.graph, add, [
      ['q', piece],
      ['n', 'ptr<function, u32>'],
    ]);
  }

  /** `()`: sets `gate` to the count `n` and dispatch arguments over it (host-computed constants). */
  #arm(gate: DeviceArray<'u32'>, n: number): Functor {
    const groups = Math.ceil(n / transformItemsPerWorkgroup({ array: gate, index: 0 }));
    const x = Math.min(groups, this.graph.device.limits.maxComputeWorkgroupsPerDimension);
    const y = x > 0 ? Math.ceil(groups / x) : 1;
    const g = atomic(gate);
    return wgsl`() {
  atomicStore(&${g}[0], ${u32(n)});
  atomicStore(&${g}[1], ${u32(x)});
  atomicStore(&${g}[2], ${u32(y)});
  atomicStore(&${g}[3], 1u);
}`;
  }

  /** The count a gate holds, with the dispatch arguments beside it. */
  #gateCount(gate: DeviceArray<'u32'>) {
    const perWorkgroup = transformItemsPerWorkgroup({ array: gate, index: 0 });
    return { array: gate, index: 0, args: { array: gate, index: 1, perWorkgroup } };
  }

  // ---- both ----

  /**
   * Unions every edge at a vertex of `list` (marked in `left` with `epoch`; their count at `count[index]`):
   * a thread per listed vertex walking its table, or a sweep of the slabs, chosen on the GPU from the count
   * (directed graphs sweep, as in-edges are not in the tables). Returns dispatch arguments over `touched`.
   */
  async #recordRelink(
    rec: Recorder,
    epoch: number,
    list: DeviceArray<'u32'>,
    count: DeviceArray<'u32'>,
    index: number,
  ): Promise<DispatchArgs> {
    const graph = this.graph;
    const gates = this.#gates;
    const walkCount = { array: gates, index: G_WALKED };
    const sweepCount = { array: gates, index: G_SWEPT };
    const walk = writeDispatchArgs(gates, G_WALK_ARGS, transformItemsPerWorkgroup(walkCount));
    const sweep = writeDispatchArgs(gates, G_SWEEP_ARGS, transformItemsPerWorkgroup(sweepCount));
    const listed = writeDispatchArgs(
      gates,
      G_LIST_ARGS,
      transformItemsPerWorkgroup({ array: gates, index: G_TOUCHED }),
    );
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  let n = ${count}[${u32(index)}];
  ${rw(gates)}[${lit(`${G_LEFT}u`)}] = n;
  let swept = n >= ${u32(graph.directed ? 1 : this.#sweepMin())};
  let walked = select(n, 0u, swept);
  let slabs = select(0u, min(${graph.alloc}[0], ${u32(graph.slabCapacity)}), swept && n > 0u);
  ${rw(gates)}[${lit(`${G_WALKED}u`)}] = walked;
  ${rw(gates)}[${lit(`${G_SWEPT}u`)}] = slabs;
  ${walk.write}(walked);
  ${sweep.write}(slabs);
  ${listed.write}(${gates}[${lit(`${G_TOUCHED}u`)}]);
}`,
    );
    const left = atomic(this.#kept.left);
    const isLeft = wgsl`(u: u32) -> bool { return atomicLoad(&${left}[u]) == ${u32(epoch)}; }`;
    const union = this.#joiner();
    // Undirected: each edge once when both ends are listed, from the listed end otherwise.
    const relink = graph.directed
      ? wgsl`(src: u32, dst: u32, edge: u32) {
  if (src != dst && (${isLeft}(src) || ${isLeft}(dst))) { _ = ${union}(src, dst); }
}`
      : wgsl`(src: u32, dst: u32, edge: u32) {
  if (${isLeft}(src) && (src < dst || !${isLeft}(dst))) { _ = ${union}(src, dst); }
}`;
    await compute(
      rec,
      { items: list, length: { ...walkCount, args: walk.args } },
      graph.forEachNeighbor(relink),
    );
    await compute(rec, { all: { ...sweepCount, args: sweep.args } }, forEachSlabEdge(graph, relink));
    return listed.args;
  }

  #sweepMin(): number {
    const mode = this.options.relink ?? 'auto';
    if (mode === 'vertex') return 0xffffffff;
    if (mode === 'slab') return 0;
    return this.options.sweepMin ?? Math.max(1, Math.ceil(this.graph.vertexCount / 32));
  }
}

function onDevice(rec: Recorder, src: IdArray, dst: IdArray) {
  const up = (a: IdArray, label: string) => (ArrayBuffer.isView(a) ? rec.upload('u32', a, label) : a);
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
  if (graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicComponents');
  const c = await labelsOnce(graph);
  try {
    const labels = await c.result();
    let count = 0;
    for (let v = 0; v < labels.length; v++) if (labels[v] === v) count++;
    return { labels, count };
  } finally {
    c.destroy();
  }
}
