import {
  atomic,
  checkMaxIterations,
  checkOptionsObject,
  checkTolerance,
  type DeviceArray,
  type DispatchArgs,
  type Functor,
  f32,
  type GpuCount,
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
import { checkIdBatch, type DynamicGraph, type IdArray } from './dynamic-graph.ts';
import {
  A_BUMP,
  COLLISION,
  KEY_SLOTS,
  NEXT_WORD,
  NO_OWNER,
  NULL_SLAB,
  OWNER_WORD,
  SLAB_WORDS,
  TOMBSTONE,
  V_BASE,
  V_BUCKETS,
  VERTEX_WORDS,
  WORKGROUP,
} from './layout.ts';

export interface DynamicPageRankOptions {
  /** Damping factor (default 0.85). */
  alpha?: number;
  /**
   * Power iteration stops when no vertex's rank changes by more than this, relative to the rank, in an
   * iteration (default 1e-5, as `@weft/algorithms`' `pageRank`); the push stops when no residual
   * `1 + alpha P^T y - y` of the scores exceeds this times its vertex's score. The push keeps the residuals
   * as f32 sums of shares; where the shares summed into one dwarf the score left (a hub that loses its
   * edges), their rounding could exceed that bound, so the run computes every residual again from the
   * scores and pushes on (to f32 rounding of the scores and their shares: tolerances near 1e-7 and below
   * are beyond f32).
   */
  tolerance?: number;
  /** Bound on iterations per run (default 100). */
  maxIterations?: number;
  /**
   * Push rounds take shortcuts that keep the residual exact (default true): a vertex whose residuals fade
   * by alpha a round (either sign) pushes the rest of that series at once (a new two-vertex component, path
   * or star otherwise takes about 60 rounds), and, undirected, the residual's sum moves into the scores
   * along the degrees every other round that visits every vertex. False pushes each residual as it is.
   */
  extrapolate?: boolean;
}

export interface DynamicPageRankRun {
  /** Power iterations of the last run, or push rounds (`insertEdges`, `deleteEdges`). */
  iterations: number;
  /** False when `maxIterations` stopped it first. */
  converged: boolean;
  /** Submits of the enactor (each ends with one read-back of its status). */
  submits: number;
}

/** Slabs a sweep covers: a number, or a count on the GPU with the dispatch arguments written for it. */
type SlabCount = number | (GpuCount & { args: DispatchArgs });

/** Words of the push loop's gates (the rest are indirect dispatch arguments). */
const G_PUSHERS = 0;
/** A bound on the next fold's vertices (it reads the exact count from its queue's length). */
const G_FOLD = 1;
const G_SPARSE = 2;
const G_DENSE = 3;
/** 1: this push sweeps after a fold of the queue, so shares left by earlier rounds must be skipped. */
const G_CHECK = 4;
const G_FOLD_ARGS = 5;
const G_SPARSE_ARGS = 8;
const G_DENSE_ARGS = 11;
/** Vertices of the next move of the residual's sum (every vertex, or none), and its dispatch arguments. */
const G_MASS = 14;
const G_MASS_ARGS = 15;
const PUSH_GATE_WORDS = 18;
/**
 * A push round walks only the pushing vertices' buckets until they hold this share of the pool's slabs;
 * past it, a sweep of every slab (the undirected pull adds once per slab, not once per key) costs less.
 */
const DENSE_SHARE = 8;
/**
 * A vertex extrapolates when its residual is alpha^2 times the one two rounds before, within this share: the
 * residual of a small new component (a pair, path or star of isolated vertices joined by a batch) is then a
 * series of ratio alpha plus one of ratio -alpha, about 60 rounds to fade to the tolerance; the last two
 * residuals split it into the two, and the vertex pushes both sums at once.
 */
const STEADY = 0.02;
/** The vertex of a pass's item that has none (past the queue's length). */
const NONE = 0xffffffff;
/** Rounds between two moves of the residual's sum into the scores (only rounds that visit every vertex). */
const MASS_EVERY = 2;
/**
 * f32 units in the last place a residual's sum may be off by, over the magnitudes added into it: where they
 * dwarf the score that is left (a hub losing its in-edges), that error exceeds `tolerance` times the score
 * and the residual is computed again in full.
 */
const DRIFT_ULPS = 16;
/** Full residuals a push run computes at most after scores collapsed. */
const RECHECKS = 3;
/**
 * The word of the push counters a fold sets when the f32 error of a residual it pushed may exceed the
 * tolerance (cleared with the counters before a batch and before each full residual).
 */
const RECHECK = 5;
/**
 * The word of the push counters that is 1 when the next fold visits every vertex (after a sweep or a whole
 * residual), 0 when it visits the touched queue: with the counters the fold binds anyway, not the gates,
 * whose binding the per-thread fold's count already takes apart (a fold within 10 storage buffers).
 */
const ALL = 6;

/**
 * PageRank on a {@link DynamicGraph} (networkx's definition, as `@weft/algorithms`' `pageRank`: uniform
 * teleport, dangling rank spread evenly), kept up to date under batches by pushing residuals.
 *
 * With dangling rank spread like the teleport, the ranks are the normalized solution of the local
 * system `y = 1 + alpha P^T y` in which dangling vertices pass nothing on (Langville and Meyer), so a
 * change of the graph changes the residual `1 + alpha P^T y - y` only at the out-neighbours of the vertices
 * whose out-edges changed. {@link insertEdges} and {@link deleteEdges} take those vertices' shares out of
 * the residual before the batch and put the new shares in after it (a walk of their tables); rounds of
 * pushes then move every residual larger than `tolerance` times its vertex's score into the score and on
 * to the out-neighbours (Andersen, Chung and Lang's push, all vertices of a round at once), a round
 * walking only the pushing vertices' buckets, or every slab once they are many. {@link update} computes
 * the whole residual (one pass over the slabs) and pushes from there, after any change to the graph.
 * {@link recompute} runs power iteration from the uniform vector (a cold start).
 *
 * Every vertex id below the graph's `vertexCount` takes part (deleted and never-inserted ids as isolated
 * vertices), as in the graph's CSR snapshot.
 */
export class DynamicPageRank {
  /** f32 ranks, one per vertex slot (the first `vertexCount` meaningful). */
  ranks: DeviceArray<'f32'>;
  /**
   * The push state: unnormalized scores `y` (ranks are `y / sum(y)`) and their residuals
   * `1 + alpha P^T y - y`, one f32 per vertex slot. Copy both to keep a state and both back to return to it.
   */
  scores: DeviceArray<'f32'>;
  residuals: DeviceArray<'f32'>;
  #dangling: DeviceArray<'f32'>;
  #change: DeviceArray<'f32'>;
  /**
   * Three per-vertex arrays that the fold reads and writes together, one range each of one buffer (a binding
   * fewer, on devices that grant 10 storage buffers a stage), `#slots` words apart:
   * - from 0, each vertex's share of its score for the next push (f32 bits, see {@link #contrib});
   * - from `#slots`, the push in which each vertex last pushed its share;
   * - from `2 * #slots`, the residual each vertex had in the push numbered by the range before (element 2v)
   *   and in the push before (2v + 1), as f32 bits; 0: it did not push then, or it extrapolated and the
   *   series starts again.
   * Four words a slot, as the graph's vertex records: it fits one binding wherever they do.
   */
  #pushState: DeviceArray<'u32'>;
  /** The sums of shares as f32 bits, for the compare-exchange add (WGSL has no f32 atomics). */
  #sums: DeviceArray<'u32'>;
  /** Vertices whose out-edges a wrapped batch may change. */
  #marks: DeviceArray<'u32'>;
  /** First base slabs of the buckets a push round walks (at most one per base slab of the pool). */
  #work: DeviceArray<'u32'>;
  /**
   * Pushers, work items, the two touched queues' lengths and the pushers' out-degrees, in that order: a fold
   * counts pushers, items and degrees, the plan after it reads and resets them; a push appends the vertices
   * it reaches to queue `push % 2`. Then the {@link RECHECK} and {@link ALL} flags.
   */
  readonly #counters: DeviceArray<'u32'>;
  /**
   * The vertices each push reached: two queues, `#slots` words apart in one buffer, as a fold reads one while
   * the next push fills the other.
   */
  #queues: DeviceArray<'u32'>;
  /** The number of the last push that reached each vertex, so that it joins that push's queue once. */
  #stamps: DeviceArray<'u32'>;
  /** Pushes recorded so far (they number the stamps, which are never cleared). */
  #pushes = 0;
  /** Marks and stamps were allocated since the last run (pooled storage is not cleared). */
  #fresh = true;
  /** Element 0: the dangling rank sum; element 1: the largest relative change. */
  readonly #totals: DeviceArray<'f32'>;
  /**
   * [active, vertices this iteration, slabs this iteration, vertex dispatch arguments (3), slab dispatch
   * arguments (3)]: once converged, the counts are 0 and later iterations of a submit dispatch nothing.
   */
  readonly #gates: DeviceArray<'u32'>;
  /** Gates of the push loop: the G_ words above. */
  readonly #pushGates: DeviceArray<'u32'>;
  readonly alpha: number;
  readonly tolerance: number;
  readonly maxIterations: number;
  readonly extrapolate: boolean;
  /** Vertex ids the ranks cover (the graph's `vertexCount` at the last run). */
  #ranked = 0;
  /** Whether `residuals` hold the residual of `scores` on the graph as of the last run. */
  #residualsValid = false;
  /** The graph's `version` after the last run or batch of this object's own. */
  #seen = -1;
  /** What the last run did. */
  lastRun: DynamicPageRankRun = { iterations: 0, converged: true, submits: 0 };
  /**
   * @internal How the vertex passes of a push (the fold, the passes of shares) count pushers and degrees and
   * append buckets and queue entries: summed in each workgroup, one global atomic a workgroup and counter
   * (the default), or one global atomic a vertex (the earlier kernels, kept so that a bench can time both).
   */
  pushAtomics: 'per-workgroup' | 'per-thread' = 'per-workgroup';
  /**
   * @internal Whether a push run computes the whole residual again where f32 rounding may have put a residual
   * past the tolerance (the default); false ends as the earlier runs did, so that a bench can time both.
   */
  recheckResiduals = true;
  #destroyed = false;

  private constructor(
    readonly graph: DynamicGraph,
    options: DynamicPageRankOptions,
  ) {
    this.alpha = options.alpha ?? 0.85;
    this.tolerance = options.tolerance ?? 1e-5;
    this.maxIterations = options.maxIterations ?? 100;
    this.extrapolate = options.extrapolate ?? true;
    if (!(this.alpha >= 0 && this.alpha <= 1))
      throw new InputError(`alpha must be in [0, 1], got ${this.alpha}`, 'alpha');
    checkTolerance(this.tolerance);
    // Finite: with tolerance 0 a run may never converge (f32 ranks can keep changing in their last bit).
    checkMaxIterations(this.maxIterations, false);
    if (typeof this.extrapolate !== 'boolean') {
      throw new InputError(
        `extrapolate must be true or false, got ${String(this.extrapolate)}`,
        'extrapolate',
      );
    }
    const d = graph.device;
    const n = graph.vertexCapacity;
    this.ranks = d.array('f32', n, { label: 'dynamic pagerank ranks' });
    this.scores = d.array('f32', n, { label: 'dynamic pagerank scores' });
    this.residuals = d.array('f32', n, { label: 'dynamic pagerank residuals' });
    this.#dangling = d.array('f32', n, { label: 'dynamic pagerank dangling' });
    this.#change = d.array('f32', n, { label: 'dynamic pagerank change' });
    this.#pushState = d.array('u32', 4 * n, { label: 'dynamic pagerank push state' });
    this.#sums = d.array('u32', n, { label: 'dynamic pagerank sums' });
    this.#marks = d.array('u32', n, { label: 'dynamic pagerank marks' });
    this.#work = d.array('u32', graph.slabCapacity, { label: 'dynamic pagerank push buckets' });
    this.#counters = d.array('u32', ALL + 1, { label: 'dynamic pagerank push counters' });
    this.#queues = d.array('u32', 2 * n, { label: 'dynamic pagerank touched' });
    this.#stamps = d.array('u32', n, { label: 'dynamic pagerank stamps' });
    this.#totals = d.array('f32', 2, { label: 'dynamic pagerank totals' });
    this.#gates = d.array('u32', 9, { label: 'dynamic pagerank gates', indirect: true });
    this.#pushGates = d.array('u32', PUSH_GATE_WORDS, {
      label: 'dynamic pagerank push gates',
      indirect: true,
    });
  }

  /** Ranks of `graph` computed from the uniform vector. */
  static async create(graph: DynamicGraph, options: DynamicPageRankOptions = {}): Promise<DynamicPageRank> {
    checkOptionsObject('DynamicPageRank.create', options);
    if (graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicPageRank');
    const p = new DynamicPageRank(graph, options);
    try {
      await p.recompute();
    } catch (e) {
      p.destroy();
      throw e;
    }
    return p;
  }

  /** Runs power iteration from the uniform vector (a cold start). */
  async recompute(): Promise<DynamicPageRankRun> {
    this.#checkOpen();
    this.#ranked = 0;
    return this.#run();
  }

  /**
   * Runs power iteration from the previous ranks (a warm start), after any changes to the graph (edges,
   * vertices).
   */
  async update(): Promise<DynamicPageRankRun> {
    this.#checkOpen();
    return this.#run();
  }

  /**
   * Inserts edges `src[i] -> dst[i]` into the graph (as `graph.insertEdges`) and updates the ranks from
   * what changed: only the out-neighbours of the batch's sources (both ends when undirected) get a new
   * residual. Falls back to {@link update} after vertex changes made to the graph directly.
   */
  async insertEdges(src: IdArray, dst: IdArray): Promise<DynamicPageRankRun> {
    return this.#wrapped(src, dst, 'insertEdges', () => this.graph.insertEdges(src, dst));
  }

  /** Deletes edges `src[i] -> dst[i]` from the graph (as `graph.deleteEdges`) and updates the ranks. */
  async deleteEdges(src: IdArray, dst: IdArray): Promise<DynamicPageRankRun> {
    return this.#wrapped(src, dst, 'deleteEdges', () => this.graph.deleteEdges(src, dst));
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
    this.#work.destroy();
    this.#counters.destroy();
    this.#totals.destroy();
    this.#gates.destroy();
    this.#pushGates.destroy();
  }

  [Symbol.dispose]() {
    this.destroy();
  }

  #arrays(): DeviceArray[] {
    return [
      this.ranks,
      this.scores,
      this.residuals,
      this.#dangling,
      this.#change,
      this.#pushState,
      this.#sums,
      this.#marks,
      this.#queues,
      this.#stamps,
    ];
  }

  #checkOpen() {
    if (this.#destroyed) throw new InputError('this DynamicPageRank was destroyed', 'DynamicPageRank');
    if (this.graph.destroyed) throw new InputError('the graph was destroyed', 'DynamicPageRank');
  }

  #empty(): DynamicPageRankRun {
    this.#ranked = 0;
    this.#residualsValid = true;
    this.lastRun = { iterations: 0, converged: true, submits: 0 };
    return this.lastRun;
  }

  /**
   * Follows the graph's vertex dictionary when it grew (ranks, scores and residuals are kept, the rest is
   * scratch) and its slab pool (the push rounds' bucket list).
   */
  async #fit() {
    const d = this.graph.device;
    if (this.#work.length < this.graph.slabCapacity) {
      this.#work.destroy();
      this.#work = d.array('u32', this.graph.slabCapacity, { label: 'dynamic pagerank push buckets' });
    }
    const capacity = this.graph.vertexCapacity;
    if (capacity <= this.ranks.length) return;
    const kept = Math.min(this.#ranked, this.ranks.length);
    const grown = [this.ranks, this.scores, this.residuals].map((a) => {
      const b = d.array('f32', capacity, { label: a.label });
      return b;
    });
    const rec = d.recorder({ label: 'dynamic pagerank grow' });
    rec.copy(this.ranks, grown[0]!, kept);
    rec.copy(this.scores, grown[1]!, kept);
    rec.copy(this.residuals, grown[2]!, kept);
    await rec.submit();
    for (const a of this.#arrays()) a.destroy();
    [this.ranks, this.scores, this.residuals] = grown as [
      DeviceArray<'f32'>,
      DeviceArray<'f32'>,
      DeviceArray<'f32'>,
    ];
    this.#dangling = d.array('f32', capacity, { label: 'dynamic pagerank dangling' });
    this.#change = d.array('f32', capacity, { label: 'dynamic pagerank change' });
    this.#pushState = d.array('u32', 4 * capacity, { label: 'dynamic pagerank push state' });
    this.#sums = d.array('u32', capacity, { label: 'dynamic pagerank sums' });
    this.#marks = d.array('u32', capacity, { label: 'dynamic pagerank marks' });
    this.#queues = d.array('u32', 2 * capacity, { label: 'dynamic pagerank touched' });
    this.#stamps = d.array('u32', capacity, { label: 'dynamic pagerank stamps' });
    this.#fresh = true;
  }

  async #run(): Promise<DynamicPageRankRun> {
    await this.#fit();
    const graph = this.graph;
    const n = graph.vertexCount;
    if (n === 0) return this.#empty();
    const from = Math.min(this.#ranked, n);
    const seed = graph.device.recorder({ label: 'dynamic pagerank seed' });
    if (this.#fresh) {
      for (const a of [this.#marks, this.#stamps, this.#pushState]) seed.clear(a);
      this.#fresh = false;
    }
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
    // The scores the ranks stand for: r = s y with s = (1 - alpha + alpha * dangling rank) / n.
    const scale = graph.device.recorder({ label: 'dynamic pagerank scores' });
    const degree = graph.degree();
    await compute(
      scale,
      { all: n },
      wgsl`(v: u32) { ${rw(this.#dangling)}[v] = select(0.0, ${this.ranks}[v], ${degree}(v) == 0u); }`,
    );
    await reduce(scale, this.#dangling, { array: this.#totals, index: 0 }, { count: n });
    await compute(
      scale,
      { all: n },
      wgsl`(v: u32) {
  let s = (${f32(1 - this.alpha)} + ${f32(this.alpha)} * ${this.#totals}[0]) * ${f32(1 / n)};
  ${rw(this.scores)}[v] = ${this.ranks}[v] / s;
}`,
    );
    await scale.submit();
    this.#residualsValid = false;
    this.#seen = graph.version;
    this.lastRun = { iterations: run.iterations, converged: run.converged, submits: run.submits + 2 };
    return this.lastRun;
  }

  async #wrapped(
    src: IdArray,
    dst: IdArray,
    where: 'insertEdges' | 'deleteEdges',
    change: () => Promise<void>,
  ): Promise<DynamicPageRankRun> {
    this.#checkOpen();
    const graph = this.graph;
    const n = graph.vertexCount;
    // Checked before the shares are taken out: a batch the graph rejects must leave the state as it was.
    checkIdBatch(src, dst, n, where);
    // A change made to the graph directly leaves the residuals stale: they are computed again in full.
    if (graph.version !== this.#seen) this.#residualsValid = false;
    if (this.#ranked !== n || n === 0) {
      // Vertices changed since the last run: the scores do not cover the graph's ids.
      await change();
      await this.update();
      this.#residualsValid = false;
      return this.lastRun;
    }
    await this.#fit();
    const d = graph.device;
    const rec = d.recorder({ label: 'dynamic pagerank take out shares' });
    const up = (a: IdArray, label: string) => (ArrayBuffer.isView(a) ? rec.upload('u32', a, label) : a);
    const s = up(src, 'pagerank batch sources');
    const t = up(dst, 'pagerank batch targets');
    rec.clear(this.#counters);
    rec.clear(this.#pushGates);
    if (src.length > 0) {
      await compute(
        rec,
        { all: src.length },
        wgsl`(i: u32) {
  let u = ${s}[i];
  let v = ${t}[i];
  if (u < ${u32(n)}) { ${rw(this.#marks)}[u] = 1u; }
  if (${u32(graph.directed ? 0 : 1)} != 0u && v < ${u32(n)}) { ${rw(this.#marks)}[v] = 1u; }
}`,
      );
    }
    // After a power iteration run the scores stand for its ranks but their residual is not kept.
    if (!this.#residualsValid) await this.#seedResidual(rec, n);
    // Both passes are one push: the vertices either reaches join one queue, once.
    const push = ++this.#pushes;
    await this.#shares(rec, n, -1, push);
    await rec.submit();
    try {
      await change();
      this.#seen = graph.version;
    } catch (e) {
      // The shares taken out stay in the sums: the next batch starts from a whole residual again.
      this.#residualsValid = false;
      throw e;
    }
    await this.#fit();
    const back = d.recorder({ label: 'dynamic pagerank put back shares' });
    await this.#shares(back, n, 1, push);
    await back.submit();
    return this.#push(n, 2);
  }

  /**
   * Pushes `sign` times the marked vertices' shares of their scores to their out-neighbours' residuals
   * (taking them out before a batch, putting them back after it; the second pass clears the marks).
   */
  async #shares(rec: Recorder, n: number, sign: 1 | -1, push: number) {
    const graph = this.graph;
    const item = wgsl`(v: u32) -> vec4<u32> {
  var p = 0.0;
  var out = vec4<u32>(v, 0u, 0u, 0u);
  if (${rw(this.#marks)}[v] != 0u) {
    out.y = 1u;
    let deg = ${graph.degree()}(v);
    if (deg > 0u) {
      p = ${f32(sign * this.alpha)} * ${this.scores}[v] / f32(deg);
      out.z = deg;
      out.w = ${this.#bucketCount()}(v);
    }
    if (${u32(sign === 1 ? 1 : 0)} != 0u) { ${rw(this.#marks)}[v] = 0u; }
  }
  ${this.#setContrib()}(v, p);
  return out;
}`;
    await this.#countAndAppend(rec, item, n, push, 'dynamic pagerank shares');
    await this.#plan(rec, n, push, true);
    await this.#pushShares(rec, push, false);
  }

  /**
   * Undirected, in a round that visits every vertex: moves the residual's sum into the scores along the
   * degrees, which `P^T` keeps (`y += c d / (1 - alpha)` changes the residual by exactly `-c d`), since that
   * sum would otherwise fade only by alpha a round (a batch joining isolated vertices adds to it).
   */
  async #dropMass(rec: Recorder, n: number, first: boolean) {
    // The degrees' sum (element 1) stays put through the rounds of a run.
    if (first) {
      await compute(
        rec,
        { all: n },
        wgsl`(v: u32) { ${rw(this.#dangling)}[v] = f32(${this.graph.degree()}(v)); }`,
        { label: 'dynamic pagerank mass' },
      );
      await reduce(rec, this.#dangling, { array: this.#totals, index: 1 }, { count: n });
    }
    const degree = this.graph.degree();
    const gates = this.#pushGates;
    const per = transformItemsPerWorkgroup(0);
    const args = writeDispatchArgs(gates, G_MASS_ARGS, per);
    const word = (g: number) => lit(`${g}u`);
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  let on = ${rw(gates)}[${word(G_PUSHERS)}] != 0u && ${this.#counters}[${word(ALL)}] != 0u;
  let count = select(0u, ${u32(n)}, on);
  ${rw(gates)}[${word(G_MASS)}] = count;
  ${args.write}(count);
}`,
      { label: 'dynamic pagerank mass' },
    );
    const vertices = { array: gates, index: G_MASS };
    const all = { all: { ...vertices, args: args.args } };
    await compute(
      rec,
      all,
      wgsl`(v: u32) {
  let deg = ${degree}(v);
  ${rw(this.#change)}[v] = select(0.0, ${this.residuals}[v] + bitcast<f32>(${this.#sums}[v]), deg > 0u);
}`,
      { label: 'dynamic pagerank mass' },
    );
    await reduce(rec, this.#change, { array: this.#totals, index: 0 }, { count: vertices });
    await compute(
      rec,
      all,
      wgsl`(v: u32) {
  let deg = f32(${degree}(v));
  let c = select(0.0, ${this.#totals}[0] / ${this.#totals}[1], ${this.#totals}[1] > 0.0);
  ${rw(this.residuals)}[v] = ${rw(this.residuals)}[v] - c * deg;
  ${rw(this.scores)}[v] = ${rw(this.scores)}[v] + c * deg * ${f32(1 / (1 - this.alpha))};
}`,
      { label: 'dynamic pagerank mass' },
    );
  }

  /** `(v: u32) -> u32`: v's base buckets, which a push lists. */
  #bucketCount(): Functor {
    return wgsl`(v: u32) -> u32 { return ${this.graph.vertices}[${lit(`v * ${VERTEX_WORDS}u + ${V_BUCKETS}u`)}]; }`;
  }

  /** `(v: u32, at: u32, count: u32)`: writes v's `count` base buckets to the bucket list from `at`. */
  #listAt(): Functor {
    const base = this.graph.vertices;
    return wgsl`(v: u32, at: u32, count: u32) {
  let first = ${base}[${lit(`v * ${VERTEX_WORDS}u + ${V_BASE}u`)}];
  for (var b = 0u; b < count && at + b < ${u32(this.#work.length)}; b++) { ${rw(this.#work)}[at + b] = first + b; }
}`;
  }

  /**
   * Runs `item(i) -> vec4<u32>` for i in [0, count) and applies what it returns: x the vertex, y bit 0 a pusher
   * and bit 1 a vertex to append to queue `push % 2`, z what to add to the pushers' degrees, w its buckets to
   * list. Per workgroup ({@link #appendPerWorkgroup}) or, as the earlier kernels did, per thread.
   */
  async #countAndAppend(rec: Recorder, item: Functor, count: SlabCount, push: number, label: string) {
    if (this.pushAtomics === 'per-workgroup') {
      await this.#appendPerWorkgroup(rec, item, count, push, label);
      return;
    }
    const q = (push % 2) as 0 | 1;
    const counters = atomic(this.#counters);
    const apply = wgsl`(i: u32) {
  let a = ${item}(i);
  if (a.x == ${lit(`${NONE}u`)}) { return; }
  if ((a.y & 1u) != 0u) { atomicAdd(&${counters}[0], 1u); }
  if (a.z > 0u) { atomicAdd(&${counters}[4], a.z); }
  if (a.w > 0u) { ${this.#listAt()}(a.x, atomicAdd(&${counters}[1], a.w), a.w); }
  if ((a.y & 2u) != 0u) { ${this.#enqueue(q)}(a.x, atomicAdd(&${counters}[${lit(`${2 + q}u`)}], 1u)); }
}`;
    await compute(rec, { all: count }, apply, { label });
  }

  /**
   * {@link #countAndAppend} with the counts summed in workgroup memory and one global atomic a workgroup and
   * counter, its base broadcast back so that each thread writes its buckets and queue entry at base plus its
   * offset: millions of threads adding to one word serialize at the L2. A workgroup takes the transforms'
   * items per workgroup, so that the push gates' dispatch arguments fit it.
   */
  async #appendPerWorkgroup(rec: Recorder, item: Functor, count: SlabCount, push: number, label: string) {
    const q = (push % 2) as 0 | 1;
    const per = transformItemsPerWorkgroup(0);
    const counters = atomic(this.#counters);
    const sub = rec.device.hasSubgroups;
    const kernel = await rec.device.kernel({
      label,
      functors: {
        weft_item: item,
        weft_count:
          typeof count === 'number'
            ? wgsl`() -> u32 { return ${u32(count)}; }`
            : wgsl`() -> u32 { return ${count.array}[${u32(count.index)}]; }`,
        weft_claim: wgsl`(c: u32, x: u32) -> u32 {
  let word = select(select(select(${lit(`${2 + q}u`)}, 1u, c == 2u), 4u, c == 1u), 0u, c == 0u);
  return atomicAdd(&${counters}[word], x);
}`,
        weft_list: this.#listAt(),
        weft_enqueue: this.#enqueue(q),
      },
      code: appendPerWorkgroupWgsl(per / WORKGROUP, sub),
      subgroups: sub,
    });
    await rec.dispatchOver(kernel, count, per, {});
  }

  /**
   * The whole residual `1 + alpha P^T y - y` of the scores (new ids scored 1, as isolated vertices are),
   * the shares gathered over every slab, then the push loop's gates set for a fold of every vertex.
   */
  async #seedResidual(rec: Recorder, n: number) {
    const graph = this.graph;
    const from = Math.min(this.#ranked, n);
    await compute(
      rec,
      { all: n },
      wgsl`(v: u32) {
  var y = ${rw(this.scores)}[v];
  if (v >= ${u32(from)}) {
    y = 1.0;
    ${rw(this.scores)}[v] = y;
  }
  let deg = ${graph.degree()}(v);
  ${this.#setContrib()}(v, select(0.0, ${f32(this.alpha)} * y / f32(deg), deg > 0u));
  ${rw(this.residuals)}[v] = 1.0 - y;
  ${rw(this.#sums)}[v] = 0u;
}`,
    );
    await this.#sweepSlabs(rec, undefined, graph.slabCapacity);
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  ${rw(this.#pushGates)}[${lit(`${G_PUSHERS}u`)}] = 1u;
  ${rw(this.#pushGates)}[${lit(`${G_FOLD}u`)}] = ${u32(n)};
  ${rw(this.#counters)}[${lit(`${ALL}u`)}] = 1u;
}`,
    );
  }

  /**
   * After a fold or a pass of shares: the pushers' count becomes the loop's status, push `push` is sized
   * (the listed buckets, or every slab once they are many) and so is the next fold (every vertex after a
   * sweep, else at most the pushers' out-degrees plus one each). The passes of shares `keep` what a whole
   * residual or the other pass set; a round's plan empties the queue its fold read, which the next round
   * fills (its fold first, with the vertices that extrapolated).
   */
  async #plan(rec: Recorder, n: number, push: number, keep: boolean) {
    const graph = this.graph;
    const gates = this.#pushGates;
    const per = transformItemsPerWorkgroup(0);
    const fold = writeDispatchArgs(gates, G_FOLD_ARGS, per);
    const sparse = writeDispatchArgs(gates, G_SPARSE_ARGS, per);
    const dense = writeDispatchArgs(gates, G_DENSE_ARGS, graph.directed ? per : WORKGROUP);
    const word = (g: number) => lit(`${g}u`);
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  let kept = ${u32(keep ? 1 : 0)} != 0u;
  let pushers = ${rw(this.#counters)}[0];
  let items = min(${rw(this.#counters)}[1], ${u32(this.#work.length)});
  let reach = ${rw(this.#counters)}[4];
  ${rw(this.#counters)}[0] = 0u;
  ${rw(this.#counters)}[1] = 0u;
  ${rw(this.#counters)}[4] = 0u;
  if (!kept) { ${rw(this.#counters)}[${lit(`${2 + ((push + 1) % 2)}u`)}] = 0u; }
  let slabs = min(${graph.alloc}[${lit(`${A_BUMP}u`)}], ${u32(graph.slabCapacity)});
  let sweep = items * ${lit(`${DENSE_SHARE}u`)} > slabs && items > 0u;
  let wasAll = ${rw(this.#counters)}[${word(ALL)}] != 0u;
  let running = select(pushers, max(pushers, ${rw(gates)}[${word(G_PUSHERS)}]), kept);
  let all = sweep || (kept && wasAll);
  let bound = select(min(reach, ${u32(n)}), ${u32(n)}, all);
  let next = select(0u, select(bound, min(${rw(gates)}[${word(G_FOLD)}] + bound, ${u32(n)}), kept && !all), running > 0u);
  let listed = select(items, 0u, sweep);
  let swept = select(0u, slabs, sweep);
  ${rw(gates)}[${word(G_PUSHERS)}] = running;
  ${rw(gates)}[${word(G_FOLD)}] = next;
  ${rw(this.#counters)}[${word(ALL)}] = select(0u, 1u, all);
  ${rw(gates)}[${word(G_CHECK)}] = select(0u, 1u, sweep && !wasAll && !kept);
  ${rw(gates)}[${word(G_SPARSE)}] = listed;
  ${rw(gates)}[${word(G_DENSE)}] = swept;
  ${fold.write}(next);
  ${sparse.write}(listed);
  ${dense.write}(swept);
}`,
      { label: 'dynamic pagerank plan' },
    );
  }

  /**
   * Adds the shares in `#contrib` to the out-neighbours' sums, over the listed buckets (the vertices reached
   * join queue `push % 2`, stamped `push`) or over every slab.
   */
  async #pushShares(rec: Recorder, push: number, round: boolean) {
    const gates = this.#pushGates;
    const per = transformItemsPerWorkgroup(0);
    const listed = {
      all: { array: gates, index: G_SPARSE, args: { array: gates, index: G_SPARSE_ARGS, perWorkgroup: per } },
    };
    const label = 'dynamic pagerank push buckets';
    if (this.pushAtomics === 'per-workgroup')
      await this.#pushBucketsPerWorkgroup(rec, push, listed.all, label);
    else await compute(rec, listed, this.#pushBucket(push), { label });
    // A fold writes the shares of the vertices it visits only: a sweep takes those of this round's pushers.
    const share = round
      ? wgsl`(v: u32) -> f32 {
  if (${gates}[${lit(`${G_CHECK}u`)}] == 0u) { return ${this.#contrib()}(v); }
  return select(0.0, ${this.#contrib()}(v), ${this.#pushState}[${u32(this.#slots)} + v] == ${u32(push)});
}`
      : undefined;
    const perWorkgroup = this.graph.directed ? per : WORKGROUP;
    const args = { array: gates, index: G_DENSE_ARGS, perWorkgroup };
    await this.#sweepSlabs(rec, share, { array: gates, index: G_DENSE, args });
  }

  /** `(i: u32)`: adds the owner's share to every key of the i-th listed bucket's chain. */
  #pushBucket(push: number): Functor {
    const graph = this.graph;
    const slabs = graph.slabs;
    const reach = this.#reach(push);
    return wgsl`(i: u32) {
  var slab = ${this.#work}[i];
  let u = ${slabs}[slab * ${lit(`${SLAB_WORDS}u`)} + ${lit(`${OWNER_WORD}u`)}] & ~${lit(`${COLLISION}u`)};
  let p = ${this.#contrib()}(u);
  if (p == 0.0) { return; }
  for (var hop = 0u; hop <= ${u32(graph.slabCapacity)} && slab != ${lit(`${NULL_SLAB}u`)}; hop++) {
    let at = slab * ${lit(`${SLAB_WORDS}u`)};
    for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)}; lane++) {
      let k = ${slabs}[at + lane];
      if (k < ${lit(`${TOMBSTONE}u`)}) {
        ${this.#addShare()}(k, p);
        ${reach}(k);
      }
    }
    slab = ${slabs}[at + ${lit(`${NEXT_WORD}u`)}];
  }
}`;
  }

  /**
   * {@link #pushBucket} with the queue appends of a workgroup gathered: the keys a slab's walk reaches first
   * (a mask of its lanes) go to a stash in workgroup memory, and one thread adds the stash's length to the
   * queue's, which the workgroup then copies it to; a slab that no longer fits takes its own global add.
   */
  async #pushBucketsPerWorkgroup(rec: Recorder, push: number, listed: SlabCount, label: string) {
    const graph = this.graph;
    const q = (push % 2) as 0 | 1;
    const per = transformItemsPerWorkgroup(0);
    const length = lit(`${2 + q}u`);
    const kernel = await rec.device.kernel({
      label,
      bindings: { slabs: { type: 'array<u32>', access: 'read' } },
      params: { slab_capacity: 'u32' },
      functors: {
        weft_count:
          typeof listed === 'number'
            ? wgsl`() -> u32 { return ${u32(listed)}; }`
            : wgsl`() -> u32 { return ${listed.array}[${u32(listed.index)}]; }`,
        weft_bucket: wgsl`(i: u32) -> u32 { return ${this.#work}[i]; }`,
        weft_share: this.#contrib(),
        weft_add: this.#addShare(),
        weft_claim: this.#claim(push),
        weft_reserve: wgsl`(c: u32) -> u32 { return atomicAdd(&${atomic(this.#counters)}[${length}], c); }`,
        weft_enqueue: wgsl`(at: u32, k: u32) { ${this.#enqueue(q)}(k, at); }`,
      },
      code: pushBucketsWgsl(per / WORKGROUP),
    });
    await rec.dispatchOver(kernel, listed, per, {
      bindings: { slabs: graph.slabs },
      params: { slab_capacity: graph.slabCapacity },
    });
  }

  /** `(k: u32) -> bool`: stamps k with push `push`; true when no thread of that push did before. */
  #claim(push: number): Functor {
    const stamps = atomic(this.#stamps);
    return wgsl`(k: u32) -> bool {
  return atomicLoad(&${stamps}[k]) < ${u32(push)} && atomicMax(&${stamps}[k], ${u32(push)}) < ${u32(push)};
}`;
  }

  /** `(k: u32)`: appends k to queue `push % 2` unless push `push` already did. */
  #reach(push: number): Functor {
    const q = (push % 2) as 0 | 1;
    return wgsl`(k: u32) {
  if (${this.#claim(push)}(k)) {
    let at = atomicAdd(&${atomic(this.#counters)}[${lit(`${2 + q}u`)}], 1u);
    ${this.#enqueue(q)}(k, at);
  }
}`;
  }

  /** Vertex slots of the per-vertex arrays: the offset of each range after the first in `#pushState`. */
  get #slots(): number {
    return this.#stamps.length;
  }

  /** `(v: u32) -> f32`: v's share for the next push. */
  #contrib(): Functor {
    return wgsl`(v: u32) -> f32 { return bitcast<f32>(${this.#pushState}[v]); }`;
  }

  /** `(v: u32, x: f32)`: sets v's share for the next push. */
  #setContrib(): Functor {
    return wgsl`(v: u32, x: f32) { ${rw(this.#pushState)}[v] = bitcast<u32>(x); }`;
  }

  /** `(v: u32, at: u32)`: writes v at position `at` of queue q. */
  #enqueue(q: 0 | 1): Functor {
    return wgsl`(v: u32, at: u32) { ${rw(this.#queues)}[${u32(q * this.#slots)} + at] = v; }`;
  }

  /** `(v: u32, x: f32)`: adds x to v's sum (a compare-exchange loop on the f32 bits). */
  #addShare(): Functor {
    const sums = atomic(this.#sums);
    return wgsl`(v: u32, x: f32) {
  var old = atomicLoad(&${sums}[v]);
  loop {
    let r = atomicCompareExchangeWeak(&${sums}[v], old, bitcast<u32>(bitcast<f32>(old) + x));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}`;
  }

  /**
   * Push rounds until no residual exceeds `tolerance` times its score, then the ranks normalized. A round
   * folds the sums into the residuals of the vertices the last push reached (every vertex after a sweep),
   * moves each residual over the threshold into its score and lists its buckets, then pushes. A vertex that
   * extrapolates moves more than its residual and keeps the difference, so it joins the next queue itself
   * (none of its in-neighbours may push again to put it there). A fold that pushes a residual summed from
   * magnitudes {@link DRIFT_ULPS} ulps of which exceed the tolerance times the new score flags the run, which
   * then computes the whole residual and pushes again, at most {@link RECHECKS} times.
   */
  async #push(n: number, seedSubmits: number): Promise<DynamicPageRankRun> {
    const graph = this.graph;
    const gates = this.#pushGates;
    const per = transformItemsPerWorkgroup(0);
    const folded = {
      array: gates,
      index: G_FOLD,
      args: { array: gates, index: G_FOLD_ARGS, perWorkgroup: per },
    };
    let start = this.#pushes;
    const state = this.#pushState;
    const slots = this.#slots;
    const fold = (q: 0 | 1, push: number) => {
      return wgsl`(i: u32) -> vec4<u32> {
  let all = atomicLoad(&${atomic(this.#counters)}[${lit(`${ALL}u`)}]) != 0u;
  if (!all && i >= atomicLoad(&${atomic(this.#counters)}[${lit(`${2 + q}u`)}])) { return vec4<u32>(${lit(`${NONE}u`)}, 0u, 0u, 0u); }
  let v = select(${this.#queues}[${u32(q * this.#slots)} + i], i, all);
  let before = ${rw(this.residuals)}[v];
  let sum = bitcast<f32>(${rw(this.#sums)}[v]);
  let r = before + sum;
  ${rw(this.#sums)}[v] = 0u;
  let y = ${rw(this.scores)}[v];
  var p = 0.0;
  var left = r;
  var out = vec4<u32>(v, 0u, 0u, 0u);
  if (abs(r) > ${f32(this.tolerance)} * y) {
    out.y = 1u;
    let deg = ${graph.degree()}(v);
    let last = ${rw(state)}[${u32(slots)} + v] + 1u == ${u32(push)};
    let prev = select(0.0, bitcast<f32>(${rw(state)}[${u32(2 * slots)} + 2u * v]), last);
    let prev2 = select(0.0, bitcast<f32>(${rw(state)}[${u32(2 * slots)} + 2u * v + 1u]), last);
    let a = ${f32(this.alpha)};
    let on = ${u32(this.extrapolate && this.alpha < 1 ? 1 : 0)} != 0u && deg > 0u && prev != 0.0 && prev2 != 0.0;
    let steady = on && abs(r - a * a * prev2) <= ${f32(STEADY)} * abs(a * a * prev2);
    var d = r;
    if (steady) { d = 0.5 * (r + a * prev) / (1.0 - a) + 0.5 * (r - a * prev) / (1.0 + a); }
    ${rw(this.scores)}[v] = y + d;
    left = r - d;
    if (${f32(DRIFT_ULPS * 2 ** -23)} * (abs(before) + abs(sum)) > ${f32(this.tolerance)} * abs(y + d)) {
      atomicStore(&${atomic(this.#counters)}[${lit(`${RECHECK}u`)}], 1u);
    }
    if (deg > 0u) {
      p = ${f32(this.alpha)} * d / f32(deg);
      out.z = deg + 1u;
      out.w = ${this.#bucketCount()}(v);
      ${rw(state)}[${u32(slots)} + v] = ${u32(push)};
      ${rw(state)}[${u32(2 * slots)} + 2u * v] = bitcast<u32>(select(r, 0.0, steady));
      ${rw(state)}[${u32(2 * slots)} + 2u * v + 1u] = bitcast<u32>(prev);
    }
    if (steady && ${this.#claim(push)}(v)) { out.y |= 2u; }
  }
  ${rw(this.residuals)}[v] = left;
  ${this.#setContrib()}(v, p);
  return out;
}`;
    };
    const step = async (rec: Recorder, it: number) => {
      // Push `start + it` filled queue q; this round's push fills the other one.
      const q = ((start + it) % 2) as 0 | 1;
      const push = start + it + 1;
      this.#pushes = Math.max(this.#pushes, push);
      if (this.extrapolate && !graph.directed && this.alpha < 1 && it % MASS_EVERY === 0) {
        await this.#dropMass(rec, n, it === 0);
      }
      await this.#countAndAppend(rec, fold(q, push), folded, push, 'dynamic pagerank fold');
      await this.#plan(rec, n, push, false);
      await this.#pushShares(rec, push, true);
    };
    const loop = { step, active: () => ({ array: gates, index: G_PUSHERS }), report: this.#counters };
    let run = await enact(graph.device, loop, { maxIterations: this.maxIterations, batch: 8, maxBatch: 64 });
    let iterations = run.iterations;
    let submits = seedSubmits + run.submits + 1;
    // A collapsed score's residual may be off by more than the rule allows: the whole residual summed afresh
    // from the scores as they are (terms no larger than the scores) is exact enough to push from again.
    let converged = run.converged;
    for (
      let check = 0;
      check < RECHECKS && this.recheckResiduals && converged && run.report?.[RECHECK];
      check++
    ) {
      if (iterations >= this.maxIterations) {
        converged = false;
        break;
      }
      const rec = graph.device.recorder({ label: 'dynamic pagerank recheck' });
      rec.clear(this.#counters);
      rec.clear(this.#pushGates);
      await this.#seedResidual(rec, n);
      await this.#plan(rec, n, this.#pushes, true);
      await rec.submit();
      // One push number skipped: the extrapolation's history restarts on the whole residual.
      this.#pushes += 1;
      start = this.#pushes;
      run = await enact(graph.device, loop, {
        maxIterations: this.maxIterations - iterations,
        batch: 8,
        maxBatch: 64,
      });
      iterations += run.iterations;
      submits += run.submits + 1;
      converged = run.converged;
    }
    const rec = graph.device.recorder({ label: 'dynamic pagerank normalize' });
    await reduce(rec, this.scores, { array: this.#totals, index: 0 }, { count: n });
    await compute(
      rec,
      { all: n },
      wgsl`(v: u32) { ${rw(this.ranks)}[v] = ${this.scores}[v] / ${this.#totals}[0]; }`,
    );
    await rec.submit();
    this.#ranked = n;
    this.#residualsValid = true;
    this.lastRun = { iterations, converged, submits };
    return this.lastRun;
  }

  /** One power iteration over `n` vertices; it dispatches nothing once the run has converged. */
  async #step(rec: Recorder, n: number) {
    const graph = this.graph;
    const gates = this.#gates;
    const vertexCount = { array: gates, index: 1 };
    const slabCount = { array: gates, index: 2 };
    const vertexArgs = writeDispatchArgs(gates, 3, transformItemsPerWorkgroup(vertexCount));
    const slabArgs = writeDispatchArgs(
      gates,
      6,
      graph.directed ? transformItemsPerWorkgroup(slabCount) : WORKGROUP,
    );
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
  ${this.#setContrib()}(v, select(0.0, r / f32(deg), deg > 0u));
  ${rw(this.#dangling)}[v] = select(r, 0.0, deg > 0u);
  ${rw(this.#sums)}[v] = 0u;
}`,
    );
    await reduce(rec, this.#dangling, { array: this.#totals, index: 0 }, { count: vertexCount });
    await this.#sweepSlabs(rec, undefined, { ...slabCount, args: slabArgs.args });
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
   * An undirected sweep of the first `count` slabs: a thread sums one slab's shares (`share(k)` of each key,
   * `#contrib` by default), then the slabs of one owner side by side in the workgroup (a hub's base slabs
   * are) add up in workgroup memory, so the owner's sum takes a compare-exchange a run, not one a slab:
   * thousands of slabs adding to one hub's sum serialize on its word.
   */
  async #sweep(rec: Recorder, share: Functor | undefined, slabs: SlabCount) {
    const graph = this.graph;
    const count =
      typeof slabs === 'number'
        ? wgsl`() -> u32 { return ${u32(slabs)}; }`
        : wgsl`() -> u32 { return ${slabs.array}[${u32(slabs.index)}]; }`;
    const kernel = await rec.device.kernel({
      label: 'dynamic pagerank sweep',
      bindings: { slabs: { type: 'array<u32>', access: 'read' } },
      params: { vertex_count: 'u32' },
      functors: {
        weft_share: share ?? this.#contrib(),
        weft_add: this.#addShare(),
        weft_count: count,
      },
      code: /* wgsl */ `
var<workgroup> owners: array<u32, ${WORKGROUP}>;
var<workgroup> partial: array<f32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  let slab = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  var u = 0xffffffffu;
  var acc = 0.0;
  if (slab < weft_count()) {
    let at = slab * ${SLAB_WORDS}u;
    let owner = slabs[at + ${OWNER_WORD}u];
    let o = owner & ~${COLLISION}u;
    if (owner != ${NO_OWNER}u && o < params.vertex_count) {
      var keys = 0u;
      for (var lane = 0u; lane < ${KEY_SLOTS}u; lane++) {
        let k = slabs[at + lane];
        if (k < ${TOMBSTONE}u) {
          acc += weft_share(k);
          keys++;
        }
      }
      if (keys > 0u) { u = o; }
    }
  }
  owners[lid] = u;
  partial[lid] = acc;
  workgroupBarrier();
  if (u != 0xffffffffu && (lid == 0u || owners[lid - 1u] != u)) {
    var total = acc;
    for (var t = lid + 1u; t < ${WORKGROUP}u && owners[t] == u; t++) { total += partial[t]; }
    weft_add(u, total);
  }
}`,
    });
    rec.dispatch(kernel, {
      bindings: { slabs: graph.slabs },
      params: { vertex_count: graph.vertexCount },
      workgroups:
        typeof slabs === 'number'
          ? Math.ceil(slabs / WORKGROUP)
          : { indirect: slabs.args.array, index: slabs.args.index },
    });
  }

  /**
   * Adds every slab's shares (`share(k)` of each key, `#contrib` by default) of the first `slabs` slabs, a
   * number or a count on the GPU with its dispatch arguments (at {@link WORKGROUP} slabs a workgroup when
   * undirected): undirected, into the owners' sums ({@link #sweep}); directed, into each key's.
   */
  async #sweepSlabs(rec: Recorder, share: Functor | undefined, slabs: SlabCount) {
    if (!this.graph.directed) {
      await this.#sweep(rec, share, slabs);
      return;
    }
    await compute(rec, { all: slabs }, this.#gather(share), { label: 'dynamic pagerank gather' });
  }

  /** `(slab: u32)`, directed: the owner's share (`share(u)`, `#contrib` by default) goes to each key's sum. */
  #gather(share?: Functor): Functor {
    const graph = this.graph;
    const slabs = graph.slabs;
    const add = this.#addShare();
    const of = share ?? this.#contrib();
    return wgsl`(slab: u32) {
  let at = slab * ${lit(`${SLAB_WORDS}u`)};
  let owner = ${slabs}[at + ${lit(`${OWNER_WORD}u`)}];
  if (owner == ${lit(`${NO_OWNER}u`)}) { return; }
  let u = owner & ~${lit(`${COLLISION}u`)};
  if (u >= ${u32(graph.vertexCount)}) { return; }
  for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)}; lane++) {
    let k = ${slabs}[at + lane];
    if (k < ${lit(`${TOMBSTONE}u`)}) { ${add}(k, ${of}(u)); }
  }
}`;
  }
}

/**
 * The kernel of `DynamicPageRank`'s per-workgroup counts: each thread runs `weft_item` on `items` items and
 * takes its offsets in the workgroup's counts (pushers, degrees, buckets, queue entries); then one thread a
 * counter adds the workgroup's total with `weft_claim`, and every thread writes at that base plus its offset.
 * With subgroups a subgroup sums and scans its lanes first, so one lane a subgroup adds in workgroup memory.
 */
function appendPerWorkgroupWgsl(items: number, subgroups: boolean): string {
  const offsets = subgroups
    ? /* wgsl */ `
fn wg_offset(slot: u32, x: u32, lane: u32) -> u32 {
  let before = subgroupExclusiveAdd(x);
  let total = subgroupAdd(x);
  var base = 0u;
  if (lane == 0u && total > 0u) { base = atomicAdd(&wg_counts[slot], total); }
  return subgroupBroadcast(base, 0u) + before;
}

fn wg_sum(slot: u32, x: u32, lane: u32) {
  let total = subgroupAdd(x);
  if (lane == 0u && total > 0u) { atomicAdd(&wg_counts[slot], total); }
}`
    : /* wgsl */ `
fn wg_offset(slot: u32, x: u32, lane: u32) -> u32 {
  if (x == 0u) { return 0u; }
  return atomicAdd(&wg_counts[slot], x);
}

fn wg_sum(slot: u32, x: u32, lane: u32) {
  if (x > 0u) { atomicAdd(&wg_counts[slot], x); }
}`;
  const laneIn = subgroups ? '@builtin(subgroup_invocation_id) lane: u32' : '';
  const lane = subgroups ? 'lane' : 'lid';
  return /* wgsl */ `
const NONE = ${NONE}u;
const WG = ${WORKGROUP}u;
const ITEMS = ${items}u;
var<workgroup> wg_counts: array<atomic<u32>, 4>;
var<workgroup> wg_base: array<u32, 4>;
${offsets}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32, ${laneIn}) {
  if (lid < 4u) { atomicStore(&wg_counts[lid], 0u); }
  workgroupBarrier();
  let first = weft_workgroup_index(wid, nwg) * WG * ITEMS + lid;
  let n = weft_count();
  var vs: array<u32, ITEMS>;
  var buckets: array<u32, ITEMS>;
  var queued: array<u32, ITEMS>;
  var bucket_at: array<u32, ITEMS>;
  var queue_at: array<u32, ITEMS>;
  var pushers = 0u;
  var degrees = 0u;
  for (var k = 0u; k < ITEMS; k++) {
    let i = first + k * WG;
    var a = vec4<u32>(NONE, 0u, 0u, 0u);
    if (i < n) { a = weft_item(i); }
    let live = a.x != NONE;
    vs[k] = a.x;
    buckets[k] = select(0u, a.w, live);
    queued[k] = select(0u, (a.y >> 1u) & 1u, live);
    pushers += select(0u, a.y & 1u, live);
    degrees += select(0u, a.z, live);
    bucket_at[k] = wg_offset(2u, buckets[k], ${lane});
    queue_at[k] = wg_offset(3u, queued[k], ${lane});
  }
  wg_sum(0u, pushers, ${lane});
  wg_sum(1u, degrees, ${lane});
  workgroupBarrier();
  if (lid < 4u) {
    let total = atomicLoad(&wg_counts[lid]);
    var base = 0u;
    if (total > 0u) { base = weft_claim(lid, total); }
    wg_base[lid] = base;
  }
  workgroupBarrier();
  for (var k = 0u; k < ITEMS; k++) {
    if (buckets[k] > 0u) { weft_list(vs[k], wg_base[2] + bucket_at[k], buckets[k]); }
    if (queued[k] != 0u) { weft_enqueue(vs[k], wg_base[3] + queue_at[k]); }
  }
}`;
}

/** Queue entries a workgroup of the bucket push gathers in workgroup memory (12 KiB, within WebGPU's 16 KiB). */
const STASH = 3072;

/**
 * The bucket push of `DynamicPageRank`'s per-workgroup counts: each thread walks the chains of `items` listed
 * buckets, adds the owner's share to every key and stashes the keys it reaches first (see
 * `#pushBucketsPerWorkgroup`); then one thread reserves the stash's length in the queue and all copy it.
 */
function pushBucketsWgsl(items: number): string {
  return /* wgsl */ `
const WG = ${WORKGROUP}u;
const ITEMS = ${items}u;
const STASH = ${STASH}u;
const SLAB_WORDS = ${SLAB_WORDS}u;
const KEY_SLOTS = ${KEY_SLOTS}u;
const OWNER_WORD = ${OWNER_WORD}u;
const NEXT_WORD = ${NEXT_WORD}u;
const TOMBSTONE = ${TOMBSTONE}u;
const NULL_SLAB = ${NULL_SLAB}u;
const COLLISION = ${COLLISION}u;
var<workgroup> stash: array<u32, STASH>;
var<workgroup> stash_len: atomic<u32>;
var<workgroup> stash_base: u32;

fn walk(i: u32) {
  var slab = weft_bucket(i);
  let p = weft_share(slabs[slab * SLAB_WORDS + OWNER_WORD] & ~COLLISION);
  if (p == 0.0) { return; }
  for (var hop = 0u; hop <= params.slab_capacity && slab != NULL_SLAB; hop++) {
    let at = slab * SLAB_WORDS;
    var reached = 0u;
    for (var lane = 0u; lane < KEY_SLOTS; lane++) {
      let k = slabs[at + lane];
      if (k < TOMBSTONE) {
        weft_add(k, p);
        if (weft_claim(k)) { reached |= 1u << lane; }
      }
    }
    if (reached != 0u) {
      let c = countOneBits(reached);
      let to = atomicAdd(&stash_len, c);
      let kept = select(0u, min(c, STASH - to), to < STASH);
      var spill = 0u;
      if (kept < c) { spill = weft_reserve(c - kept); }
      var j = 0u;
      for (var rest = reached; rest != 0u; rest &= rest - 1u) {
        let k = slabs[at + weft_trailing_zeros(rest)];
        if (j < kept) { stash[to + j] = k; } else { weft_enqueue(spill + j - kept, k); }
        j++;
      }
    }
    slab = slabs[at + NEXT_WORD];
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) { atomicStore(&stash_len, 0u); }
  workgroupBarrier();
  let first = weft_workgroup_index(wid, nwg) * WG * ITEMS + lid;
  let n = weft_count();
  for (var k = 0u; k < ITEMS; k++) {
    let i = first + k * WG;
    if (i < n) { walk(i); }
  }
  workgroupBarrier();
  let len = min(atomicLoad(&stash_len), STASH);
  if (lid == 0u && len > 0u) { stash_base = weft_reserve(len); }
  workgroupBarrier();
  for (var j = lid; j < len; j += WG) { weft_enqueue(stash_base + j, stash[j]); }
}`;
}

/**
 * PageRank of a dynamic graph from the uniform vector: ranks and the run's iterations. Keep a
 * {@link DynamicPageRank} instead to warm-start after batches.
 */
export async function dynamicPageRank(
  graph: DynamicGraph,
  options: DynamicPageRankOptions = {},
): Promise<{ ranks: Float32Array } & DynamicPageRankRun> {
  checkOptionsObject('dynamicPageRank', options);
  const p = await DynamicPageRank.create(graph, options);
  try {
    return { ranks: await p.result(), ...p.lastRun };
  } finally {
    p.destroy();
  }
}
