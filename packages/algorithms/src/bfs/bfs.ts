import {
  atomic,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import {
  bitmapToQueue,
  type DeviceGraph,
  FrontierBitmap,
  FrontierQueue,
  type FrontierSink,
} from '@weft/graph';
import {
  AdvanceWorkspace,
  advanceDirectionOptimized,
  advancePush,
  filter,
  IterationLog,
  type IterationTrace,
} from '@weft/operators';
import {
  advanceBalance,
  checkSource,
  enactTraced,
  type LoadBalance,
  type LoadBalanceOption,
  type RunOptions,
  recordSet,
  resolveLoadBalance,
  type TraceOption,
} from './common.ts';

const UNREACHED = 0xffffffff;

/**
 * A push level whose frontier has more out-edges than this many per vertex of the graph is a bulk level
 * (see `BfsProblem`): turning the whole bitmap into the next frontier then costs less than an append per
 * newly reached vertex. Low-degree, high-diameter graphs never have one.
 */
const BULK_EDGES_PER_VERTEX = 1 / 8;

/** `claim: 'auto'` takes bitmap claims from this average out-degree up. */
const BITMAP_CLAIM_MIN_DEGREE = 8;

export interface BfsOptions extends RunOptions, LoadBalanceOption, TraceOption {
  /** Also record a BFS tree: `parents[v]` (-1 for the source and unreached vertices). */
  parents?: boolean;
  /**
   * `'push'` (default): top-down only. `'auto'`: direction-optimizing (Beamer), choosing on the GPU per
   * level; `'pull'`: bottom-up only. Pull needs in-edges: an undirected graph or `csc` uploaded.
   */
  direction?: 'push' | 'pull' | 'auto';
  /** Pull when frontier vertices + their out-edges exceed `threshold x edgeCount` (default 1/20, Ligra's). */
  threshold?: number;
  /**
   * Idempotent push (Gunrock's idempotence): a neighbor's depth is set by a plain store instead of
   * `atomicMin`, so a vertex reached along several edges of one level may enter the advance's output more
   * than once; a filter with a visited bitmap culls the duplicates. Same depths; push direction only.
   * Costs an output buffer of `edgeCount` words.
   */
  idempotent?: boolean;
  /**
   * Push claims. `'bitmap'`: a vertex is claimed by `atomicOr` of its visited bit, after a plain load of a
   * read-only copy of the bits taken when the level began (a 32nd of the depths' bytes, so the test mostly
   * hits in cache); levels with very many edges set bits only and turn them into the next frontier after.
   * `'depth'`: claimed by `atomicMin` on its depth, appended by the winner; no per-level bookkeeping.
   * `'auto'` (default): `'bitmap'` when the graph averages at least 8 out-edges a vertex, where levels get
   * heavy (Kronecker scale 22 on an H100: 6.1 ms against 9.6); `'depth'` on sparse, high-diameter graphs,
   * whose thousands of light levels would each pay the bitmap's bookkeeping. Direction-optimizing and
   * idempotent runs claim by depth (`'bitmap'` with them is an error).
   */
  claim?: 'auto' | 'bitmap' | 'depth';
}

export interface BfsResult {
  /** Hops from the source; -1 where unreachable. */
  depths: Int32Array;
  parents?: Int32Array;
  /** Levels expanded (the eccentricity of the source plus one). */
  iterations: number;
  /** Levels done bottom-up (direction `'auto'` or `'pull'`). */
  pullIterations: number;
  /**
   * With `trace: true`: per level, the input frontier length and the edges inspected: the out-degree sum
   * of the frontier for a push level; for a pull level an upper bound, the in-degree sum of the vertices
   * still unvisited when it began (pull stops at a vertex's first parent).
   */
  trace?: IterationTrace;
}

/**
 * The data of a push BFS (Gunrock's problem) and its step: an advance from the frontier whose functor
 * claims each unvisited neighbor (its visited bit, or its depth: see {@link BfsOptions.claim}), so each
 * vertex joins the next frontier exactly once. `reset` and `step` only record, so a bench can replay whole
 * runs inside one submit.
 */
export class BfsProblem {
  readonly depths: DeviceArray<'u32'>;
  readonly parents: DeviceArray<'u32'> | undefined;
  readonly queue: FrontierQueue;
  readonly #space: AdvanceWorkspace;
  readonly #bitmap: FrontierBitmap | undefined;
  /** Levels done bottom-up since the last reset. */
  readonly pulls: DeviceArray<'u32'>;
  readonly direction: 'push' | 'pull' | 'auto';
  readonly threshold: number | undefined;
  readonly loadBalance: LoadBalance;
  readonly idempotent: boolean;
  /** Idempotent mode: the advance's output before culling (duplicates allowed; sized for every edge). */
  readonly rawFrontier: FrontierSink | undefined;
  readonly #culled: FrontierBitmap | undefined;
  /** Bitmap claims: the visited bits, and their copy as the level began (read-only while it runs). */
  readonly #seen: FrontierBitmap | undefined;
  readonly #seenBefore: FrontierBitmap | undefined;
  /** When set, each step logs its input frontier length and inspected edges here (see {@link BfsResult.trace}). */
  log: IterationLog | undefined;

  constructor(
    readonly device: WeftDevice,
    readonly graph: DeviceGraph,
    options: Pick<BfsOptions, 'parents' | 'direction' | 'threshold' | 'idempotent' | 'claim'> & {
      loadBalance?: LoadBalance;
    } = {},
  ) {
    this.direction = options.direction ?? 'push';
    this.idempotent = options.idempotent ?? false;
    if (this.idempotent && this.direction !== 'push') {
      throw new InputError(
        `idempotent BFS pushes only; direction '${this.direction}' was asked`,
        'direction',
      );
    }
    this.threshold = options.threshold;
    this.loadBalance = options.loadBalance ?? 'merge-path';
    if (this.direction !== 'push' && graph.directed && !graph.csc) {
      throw new InputError(
        `BFS direction '${this.direction}' on a directed graph needs uploadGraph(..., { csc: true })`,
        'graph',
      );
    }
    this.#bitmap =
      this.direction === 'push'
        ? undefined
        : new FrontierBitmap(device, graph.vertexCount, 'bfs pull frontier');
    this.pulls = device.array('u32', 1, { label: 'bfs pull levels' });
    const n = Math.max(1, graph.vertexCount);
    this.depths = device.array('u32', n, { label: 'bfs depths' });
    this.parents = options.parents ? device.array('u32', n, { label: 'bfs parents' }) : undefined;
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'bfs frontier' });
    this.#space = new AdvanceWorkspace(device, this.queue.capacity);
    if (this.idempotent) {
      const items = device.array('u32', Math.max(1, graph.edgeCount), { label: 'bfs raw frontier' });
      this.rawFrontier = { items, count: device.array('u32', 1, { label: 'bfs raw frontier length' }) };
      this.#culled = new FrontierBitmap(device, graph.vertexCount, 'bfs culled');
    }
    const claim = options.claim ?? 'auto';
    if (claim === 'bitmap' && (this.direction !== 'push' || this.idempotent)) {
      throw new InputError(
        `bitmap claims are for the atomic push BFS; direction '${this.direction}'${this.idempotent ? ', idempotent' : ''} was asked`,
        'claim',
      );
    }
    const dense = graph.edgeCount >= BITMAP_CLAIM_MIN_DEGREE * graph.vertexCount;
    if (
      this.direction === 'push' &&
      !this.idempotent &&
      (claim === 'bitmap' || (claim === 'auto' && dense))
    ) {
      this.#seen = new FrontierBitmap(device, graph.vertexCount, 'bfs visited');
      this.#seenBefore = new FrontierBitmap(device, graph.vertexCount, 'bfs visited before the level');
    }
  }

  async reset(rec: Recorder, source: number): Promise<void> {
    checkSource(this.graph, source, 'bfs source');
    await rec.fill(this.depths, UNREACHED);
    if (this.parents) await rec.fill(this.parents, UNREACHED);
    await recordSet(rec, this.depths, source, 0);
    await this.queue.recordSingle(rec, source);
    rec.clear(this.pulls);
    // A vertex enters one level's output only (its depth is set before the next level reads it), so
    // the visited bits of earlier levels never cull a later one: clearing once per run suffices.
    if (this.#culled) this.#culled.recordClear(rec);
    if (this.#seen) {
      this.#seen.recordClear(rec);
      const seen = this.#seen.words;
      await recordSet(rec, seen, source >>> 5, 2 ** (source & 31));
    }
  }

  /** With a log: this level's frontier and its push edges; for a pull, the in-degrees of the candidates. */
  async #logPullBound(
    rec: Recorder,
    iteration: number,
    candidate: Functor,
  ): Promise<DeviceArray<'u32'> | undefined> {
    if (!this.log) return undefined;
    await this.log.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
    const bound = rec.scratch('u32', 1, 'bfs pull bound');
    rec.clear(bound);
    const inOffsets = this.graph.csc?.inOffsets ?? this.graph.offsets;
    await this.log.addDegrees(
      rec,
      { array: bound, index: 0 },
      { all: this.graph.vertexCount, where: candidate },
      inOffsets,
    );
    return bound;
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const parent = this.parents
      ? wgsl`(v: u32, p: u32) { ${rw(this.parents)}[v] = p; }`
      : wgsl`(v: u32, p: u32) {}`;
    const claim = wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  // A plain load first: most edges of a skewed graph lead to visited vertices, and need no atomic.
  if (atomicLoad(&${atomic(this.depths)}[dst]) != ${u32(UNREACHED)}) { return false; }
  if (atomicMin(&${atomic(this.depths)}[dst], ${u32(iteration + 1)}) != ${u32(UNREACHED)}) { return false; }
  ${parent}(dst, src);
  return true;
}`;
    if (this.#bitmap) {
      // Bottom-up: only dst's own thread writes it, so plain stores do.
      const pull = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  ${rw(this.depths)}[dst] = ${u32(iteration + 1)};
  ${parent}(dst, src);
  return true;
}`;
      const candidate = wgsl`(v: u32) -> bool { return ${this.depths}[v] == ${u32(UNREACHED)}; }`;
      const bound = await this.#logPullBound(rec, iteration, candidate);
      await advanceDirectionOptimized(
        rec,
        this.graph,
        this.queue.current,
        { push: claim, pull, candidate },
        this.queue.next,
        {
          bitmap: this.#bitmap,
          workspace: this.#space,
          direction: this.direction,
          pulls: this.pulls,
          ...(this.threshold === undefined ? {} : { threshold: this.threshold }),
        },
      );
      if (bound && this.log) {
        // A pulled level (its pull dispatch size is nonzero) logs the bound instead of the push edges.
        const edges = this.log.slot(iteration).edges;
        await transform(
          rec,
          1,
          wgsl`(i: u32) {
  if (${this.#space.gates}[2] != 0u) { ${rw(edges.array)}[${u32(edges.index)}] = ${bound}[0]; }
}`,
        );
      }
    } else if (this.rawFrontier && this.#culled) {
      await this.log?.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
      await this.#idempotentStep(rec, iteration, parent, this.rawFrontier, this.#culled);
    } else if (this.#seen && this.#seenBefore) {
      await this.log?.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
      await this.#bitmapStep(rec, iteration, parent, this.#seen, this.#seenBefore);
    } else {
      await this.log?.recordFrontier(rec, iteration, this.queue.current, this.graph.offsets);
      await advancePush(rec, this.graph, this.queue.current, claim, {
        output: this.queue.next,
        workspace: this.#space,
        loadBalance: advanceBalance(this.loadBalance),
      });
    }
    this.queue.swap();
  }

  /**
   * Bitmap-claim level. Most edges of a skewed graph lead to vertices visited before the level: a plain
   * load of the level's snapshot of the visited bits rejects them, and only the rest touch the atomic bits.
   * A light level claims with `atomicOr` and appends each winner. A bulk level (its frontier has more than
   * `BULK_EDGES_PER_VERTEX x vertexCount` out-edges, known on the GPU once the advance has scanned the
   * degrees) only sets bits, with no return value to wait for and no append; one thread per bitmap word then
   * turns the bits the level set into depths and the next frontier (one atomic add per word).
   */
  async #bitmapStep(
    rec: Recorder,
    iteration: number,
    parent: Functor,
    seen: FrontierBitmap,
    before: FrontierBitmap,
  ): Promise<void> {
    rec.copy(seen.words, before.words);
    const bulkEdges = u32(Math.max(1, Math.floor(BULK_EDGES_PER_VERTEX * this.graph.vertexCount)));
    const total = this.#space.total;
    const level = u32(iteration + 1);
    // In a bulk level racing parents' plain stores leave one of them: each is in the frontier, so valid.
    const claim = wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  let word = dst >> 5u;
  let bit = 1u << (dst & 31u);
  if ((${before.words}[word] & bit) != 0u) { return false; }
  if (${total}[0] >= ${bulkEdges}) {
    atomicOr(&${atomic(seen.words)}[word], bit);
    ${parent}(dst, src);
    return false;
  }
  if ((atomicLoad(&${atomic(seen.words)}[word]) & bit) != 0u) { return false; }
  if ((atomicOr(&${atomic(seen.words)}[word], bit) & bit) != 0u) { return false; }
  ${rw(this.depths)}[dst] = ${level};
  ${parent}(dst, src);
  return true;
}`;
    await advancePush(rec, this.graph, this.queue.current, claim, {
      output: this.queue.next,
      workspace: this.#space,
      loadBalance: advanceBalance(this.loadBalance),
    });
    // A bulk level appended nothing: its frontier is the bits it set.
    await bitmapToQueue(rec, seen, this.queue.next, {
      append: true,
      except: before,
      visit: wgsl`(v: u32) { ${rw(this.depths)}[v] = ${level}; }`,
      when: wgsl`() -> bool { return ${total}[0] >= ${bulkEdges}; }`,
    });
  }

  /**
   * Idempotent level: racing threads may all see a neighbor unvisited and all store the same depth (and
   * some valid parent), appending it more than once to the raw output; the filter then keeps each vertex
   * once by test-and-setting its visited bit.
   */
  async #idempotentStep(
    rec: Recorder,
    iteration: number,
    parent: Functor,
    raw: FrontierSink,
    culled: FrontierBitmap,
  ): Promise<void> {
    const store = wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  if (${this.depths}[dst] != ${u32(UNREACHED)}) { return false; }
  ${rw(this.depths)}[dst] = ${u32(iteration + 1)};
  ${parent}(dst, src);
  return true;
}`;
    await advancePush(rec, this.graph, this.queue.current, store, {
      output: raw,
      workspace: this.#space,
      loadBalance: advanceBalance(this.loadBalance),
      idempotent: true,
    });
    const all = wgsl`(v: u32) -> bool { return true; }`;
    const view = { items: raw.items, length: { array: raw.count, index: 0 } };
    await filter(rec, view, all, this.queue.next, { visited: culled });
  }

  active(): GpuCount {
    return this.queue.length;
  }

  /** The frontier's capacity, so the enactor can report an overflow (none is expected: appends are unique). */
  get capacity(): number {
    return this.queue.capacity;
  }

  async pullIterations(): Promise<number> {
    return (await this.pulls.download())[0]!;
  }

  async result(): Promise<{ depths: Int32Array; parents?: Int32Array }> {
    const n = this.graph.vertexCount;
    if (n === 0)
      return { depths: new Int32Array(0), ...(this.parents ? { parents: new Int32Array(0) } : {}) };
    // UNREACHED (0xffffffff) reads as -1 in two's complement.
    const depths = new Int32Array((await this.depths.download(0, n)).buffer);
    if (!this.parents) return { depths };
    return { depths, parents: new Int32Array((await this.parents.download(0, n)).buffer) };
  }

  destroy(): void {
    this.depths.destroy();
    this.parents?.destroy();
    this.queue.destroy();
    this.#space.destroy();
    this.#bitmap?.destroy();
    this.pulls.destroy();
    this.rawFrontier?.items.destroy();
    this.rawFrontier?.count.destroy();
    this.#culled?.destroy();
    this.#seen?.destroy();
    this.#seenBefore?.destroy();
  }
}

/** Breadth-first search from `source`: depths (and parents), with the enactor's batched submits. */
export async function bfs(
  device: WeftDevice,
  graph: DeviceGraph,
  source: number,
  options: BfsOptions = {},
): Promise<BfsResult> {
  checkSource(graph, source, 'bfs source');
  const loadBalance = await resolveLoadBalance(device, graph, options.loadBalance);
  const problem = new BfsProblem(device, graph, { ...options, loadBalance });
  try {
    const rec = device.recorder({ label: 'bfs reset' });
    await problem.reset(rec, source);
    await rec.submit();
    if (options.trace) problem.log = new IterationLog(device);
    const { iterations, trace } = await enactTraced(device, problem, problem.log, options);
    return {
      ...(await problem.result()),
      iterations,
      pullIterations: await problem.pullIterations(),
      ...(trace ? { trace } : {}),
    };
  } finally {
    problem.log?.destroy();
    problem.destroy();
  }
}
