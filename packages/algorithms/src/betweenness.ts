import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  f32,
  type GpuCount,
  InputError,
  load,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  advanceSmallFrontier,
  enact,
  neighborhoodReduce,
  resolveLoadBalance,
  SmallFrontierState,
  smallFrontierCapacity,
  smallFrontierFits,
  smallFrontierWorkgroupSize,
} from '@weft/operators';
import { recordLevelsDown } from './betweenness-levels.ts';
import { type BetweennessSampling, betweennessSources, rescaleBetweenness } from './betweenness-reference.ts';
import { prefersBitmapClaims } from './bfs/bitmap-claims.ts';
import type { SmallFrontierTuning } from './bfs/options.ts';
import { type LoadBalanceOption, prepareLoadBalance, type RunOptions, recordSet } from './common.ts';

const UNREACHED = 0xffffffff;

/**
 * How shortest-path counts are kept: `'f32'` (to 2^120), `'wide'` (to 2^2046, a 32-bit float with an 11-bit
 * exponent), or `'auto'`: f32, and wide from the first source whose counts pass f32's range on.
 */
export type BetweennessCounts = 'auto' | 'f32' | 'wide';

export interface BetweennessOptions extends BetweennessSampling, RunOptions, LoadBalanceOption {
  /** Default `'auto'`. */
  counts?: BetweennessCounts;
  /**
   * Small levels in one workgroup (see `advanceSmallFrontier`): the forward search runs as many levels per
   * dispatch as fit, the backward sweep every run of small levels in one dispatch. `'auto'` (default): on
   * where BFS turns it on (fewer than 8 out-edges a vertex: roads, meshes, grids) if the device allows it;
   * `'on'` forces it, `'off'` keeps a few dispatches a level; an object is `'on'` with the engine's
   * `capacity` (a multiple of 256, also the backward sweep's bound) and `maxLevels`, for tests of the hand-off.
   */
  smallFrontier?: 'auto' | 'on' | 'off' | SmallFrontierTuning;
}

/** What the forward search from the current source left: read back once a source. */
export interface BetweennessForward {
  /** The path counts passed their format's range. */
  overflowed: boolean;
  /** BFS levels (the source's eccentricity plus one). */
  levels: number;
  /** Levels larger than the small-level bound (the backward sweep's bulk levels; `levels` without it). */
  bigLevels: number;
}

export interface BetweennessResult {
  /** networkx's `betweenness_centrality` values (f32), indexed by vertex. */
  centrality: Float32Array;
  /** The sources the sums ran from, in run order. */
  sources: number[];
  /** BFS levels over all sources (each source's eccentricity plus one, summed). */
  iterations: number;
}

/**
 * Betweenness centrality (Brandes), one source at a time:
 *
 *     forward: BFS from s; for each edge (u, w) of the frontier with depth[w] = depth[u] + 1:
 *       sigma[w] += sigma[u]                       advancePush; sigma as f32 or wide (counts overflow u32)
 *       each level is appended to `order`, its start and length kept on the GPU
 *     backward, for each level d from the deepest to 1:
 *       delta[v] = sigma[v] * sum over successors w of (1 + delta[w]) / sigma[w]    neighborhoodReduce
 *       (wide counts: the sum over w of (1 + delta[w]) * (sigma[v] / sigma[w]), the ratio from mantissas and
 *       exponents, since 1 / sigma[w] leaves f32's range)
 *       bc[v] += delta[v]
 *
 * The forward levels run in the enactor (one status read-back per batch of levels); the enactor's level
 * count then sizes the backward levels, recorded into one submit with the next source's reset.
 * Rows are sorted, so a duplicate edge is the one before it with the same target: it counts once, as the
 * single edge networkx sees.
 *
 * Meshes and roads hundreds of levels deep have more shortest paths than f32 holds (networkx counts in f64),
 * and within one level the counts span more than f32's exponents, so no per-level scale fits them. Wide
 * counts keep 32 bits per vertex and the same kernels: an 11-bit biased exponent over a 21-bit fraction
 * (value `1.fraction * 2^(exponent - 1)`, 0 for none), added by compare-exchange with one rounding per add.
 */
export class BetweennessProblem {
  readonly depths: DeviceArray<'u32'>;
  /** Path counts as f32 or wide bits (WGSL has no f32 atomics: they add by compare-exchange). */
  readonly sigma: DeviceArray<'u32'>;
  /** Nonzero once the current source's path counts passed their format's range (cleared by `reset`). */
  readonly overflow: DeviceArray<'u32'>;
  /** Nonzero once a backward sweep ran on overflowed counts: its source was left out, so `result` refuses. */
  readonly lost: DeviceArray<'u32'>;
  /** The format of the path counts from the next `reset` on; change it between sources. */
  counts: 'f32' | 'wide';
  readonly delta: DeviceArray<'f32'>;
  readonly scores: DeviceArray<'f32'>;
  /** Reached vertices in BFS order; level d is `order[levelStart[d] .. levelStart[d] + levelCount[d])`. */
  readonly order: DeviceArray<'u32'>;
  readonly levelStart: DeviceArray<'u32'>;
  readonly levelCount: DeviceArray<'u32'>;
  /** One backward level's vertices and their sums over successors. */
  readonly levelItems: DeviceArray<'u32'>;
  readonly sums: DeviceArray<'f32'>;
  readonly queue: FrontierQueue;
  readonly workspace: AdvanceWorkspace;
  readonly loadBalance;
  readonly endpoints: boolean;
  readonly normalized: boolean;
  /**
   * The one-workgroup path, when it runs: the engine's state and settings, and `cursor`: the backward
   * sweep's next level, then the bulk level's index and size.
   */
  readonly smallLevels:
    | {
        state: SmallFrontierState;
        tuning: SmallFrontierTuning;
        capacity: number;
        workgroupSize: number;
        cursor: DeviceArray<'u32'>;
      }
    | undefined;

  /** `options.loadBalance` `'auto'` (default) needs the graph's largest out-degree known. */
  constructor(
    readonly graph: DeviceGraph,
    options: Pick<BetweennessOptions, 'normalized' | 'endpoints' | 'loadBalance' | 'smallFrontier'> & {
      counts?: 'f32' | 'wide';
    } = {},
  ) {
    checkOptionsObject('new BetweennessProblem', options);
    const device = graph.device;
    this.loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
    this.endpoints = options.endpoints ?? false;
    this.normalized = options.normalized ?? true;
    this.counts = options.counts ?? 'f32';
    const n = Math.max(1, graph.vertexCount);
    const u32s = (label: string, size = n) => device.array('u32', size, { label: `bc ${label}` });
    const f32s = (label: string) => device.array('f32', n, { label: `bc ${label}` });
    this.depths = u32s('depths');
    this.sigma = u32s('path counts');
    // Word 0 the overflow flag; on the small-level path words 1 and 2 the levels and the big levels.
    this.overflow = u32s('path count overflow', 3);
    this.lost = u32s('sources lost to overflow', 1);
    this.delta = f32s('dependencies');
    this.scores = f32s('scores');
    this.order = u32s('order');
    this.levelStart = u32s('level starts', n + 2);
    this.levelCount = u32s('level counts', n + 2);
    this.levelItems = u32s('level items');
    this.sums = f32s('successor sums');
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'bc frontier' });
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
    const mode = options.smallFrontier ?? 'auto';
    if (!(mode === 'auto' || mode === 'on' || mode === 'off' || (typeof mode === 'object' && mode))) {
      throw new InputError(
        `smallFrontier must be 'auto', 'on', 'off' or tuning, got ${String(mode)}`,
        'smallFrontier',
      );
    }
    const on =
      mode !== 'off' &&
      (mode !== 'auto' || (smallFrontierFits(device) && !prefersBitmapClaims(graph) && !graph.chunked));
    const tuning = typeof mode === 'object' ? mode : {};
    const most = smallFrontierCapacity(device);
    const cap = tuning.capacity ?? most;
    if (!Number.isInteger(cap) || cap < 256 || cap > most || cap % 256 !== 0) {
      throw new InputError(
        `smallFrontier.capacity must be a multiple of 256 in [256, ${most}], got ${cap}`,
        'smallFrontier.capacity',
      );
    }
    this.smallLevels = on
      ? {
          state: new SmallFrontierState(device, { label: 'bc small frontier' }),
          tuning,
          capacity: cap,
          workgroupSize: smallFrontierWorkgroupSize(device),
          cursor: u32s('backward cursor', 3),
        }
      : undefined;
  }

  /** Records: every score 0 (before the first source). */
  clear(rec: Recorder): void {
    rec.clear(this.scores);
    rec.clear(this.lost);
  }

  /** Records the forward search's start from `source` (a vertex: the caller checks). */
  async reset(rec: Recorder, source: number): Promise<void> {
    await rec.fill(this.depths, UNREACHED);
    rec.clear(this.sigma);
    rec.clear(this.overflow);
    await recordSet(rec, this.depths, source, 0);
    await recordSet(rec, this.sigma, source, COUNTS[this.counts].one);
    await this.queue.recordSingle(rec, source);
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  ${rw(this.order)}[0] = ${u32(source)};
  ${rw(this.levelStart)}[0] = 0u;
  ${rw(this.levelStart)}[1] = 1u;
  ${rw(this.levelCount)}[0] = 1u;
}`,
    );
    if (this.smallLevels) {
      await recordSet(rec, this.overflow, 1, 1);
      await this.smallLevels.state.recordReset(rec);
    }
  }

  /**
   * `(dst, paths, first)`: sigma[dst] += paths in the current count format, an atomic add by compare-exchange
   * from a first guess `first` (each failed exchange means another thread's add landed); a sum past the
   * format's range raises `overflow`.
   */
  #addPaths(): Functor {
    const sigma = atomic(this.sigma);
    const { add, limit } = COUNTS[this.counts];
    return wgsl`(dst: u32, paths: u32, first: u32) {
  var seen = first;
  loop {
    let sum = ${add}(seen, paths);
    let r = atomicCompareExchangeWeak(&${sigma}[dst], seen, sum);
    if (r.exchanged) {
      if (sum >= ${u32(limit)}) { ${rw(this.overflow)}[0] = 1u; }
      break;
    }
    seen = r.old_value;
  }
}`;
  }

  /** Forward level `iteration + 1`: path counts pushed from level `iteration`, the new level kept in order. */
  async step(rec: Recorder, iteration: number): Promise<void> {
    // Level n cannot hold a vertex: the frontier is empty from there on (and the level arrays end).
    if (iteration >= this.graph.vertexCount) return;
    if (this.smallLevels) return this.smallStep(rec);
    const { offsets, chunkedTargets: targets } = this.graph;
    const depth = atomic(this.depths);
    const sigma = atomic(this.sigma);
    const next = u32(iteration + 1);
    const addPaths = this.#addPaths();
    const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (edge > ${offsets}[src] && ${load(targets, 'edge - 1u')} == dst) { return false; }
  var old = atomicLoad(&${depth}[dst]);
  if (old == ${u32(UNREACHED)}) { old = atomicMin(&${depth}[dst], ${next}); }
  if (old != ${u32(UNREACHED)} && old != ${next}) { return false; }
  ${addPaths}(dst, atomicLoad(&${sigma}[src]), atomicLoad(&${sigma}[dst]));
  return old == ${u32(UNREACHED)};
}`;
    const out = this.queue.next;
    await advancePush(rec, this.graph, this.queue.current, visit, {
      output: out,
      workspace: this.workspace,
      loadBalance: this.loadBalance,
    });
    await transform(
      rec,
      { array: out.count, index: 0 },
      wgsl`(i: u32) { ${rw(this.order)}[${this.levelStart}[${next}] + i] = ${out.items}[i]; }`,
    );
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  let c = ${out.count}[0];
  ${rw(this.levelCount)}[${next}] = c;
  ${rw(this.levelStart)}[${next} + 1u] = ${rw(this.levelStart)}[${next}] + c;
}`,
    );
    this.queue.swap();
  }

  /**
   * The small-level path's step: as many levels as fit in one workgroup (each recorded in `order` by the
   * engine's `onLevel` hook), then one bulk level on the frontier the engine left. The engine's level index
   * counts the bulk levels too (each adds one to the state's level total), so it is the frontier's depth, and
   * the bulk level reads depth[src]: no level number comes from the host and a step may run many levels.
   */
  private async smallStep(rec: Recorder): Promise<void> {
    const { state, tuning, capacity } = this.smallLevels!;
    const { offsets, chunkedTargets: targets } = this.graph;
    const depth = atomic(this.depths);
    const sigma = atomic(this.sigma);
    const addPaths = this.#addPaths();
    // In the engine every load and the claim issue at once, since a level's time is its chain of dependent
    // round trips: a duplicate edge (the one before it has the same target) may claim dst, appending it
    // once, but adds no paths; a stale first guess costs one more exchange.
    const visitLevel = wgsl`(src: u32, dst: u32, edge: u32, level: u32) -> bool {
  let dup = select(false, ${load(targets, 'max(edge, 1u) - 1u')} == dst, edge > ${offsets}[src]);
  let paths = atomicLoad(&${sigma}[src]);
  let seen = atomicLoad(&${sigma}[dst]);
  let next = level + 1u;
  let old = atomicMin(&${depth}[dst], next);
  let claimed = old == ${u32(UNREACHED)};
  if (!dup && (claimed || old == next)) { ${addPaths}(dst, paths, seen); }
  return claimed;
}`;
    const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (edge > ${offsets}[src] && ${load(targets, 'edge - 1u')} == dst) { return false; }
  let next = atomicLoad(&${depth}[src]) + 1u;
  let old = atomicMin(&${depth}[dst], next);
  if (old != ${u32(UNREACHED)} && old != next) { return false; }
  ${addPaths}(dst, atomicLoad(&${sigma}[src]), atomicLoad(&${sigma}[dst]));
  return old == ${u32(UNREACHED)};
}`;
    // Level d's size and end; the levels so far, and how many outgrew the small-level bound.
    const keep = wgsl`(d: u32, start: u32, len: u32) {
  ${rw(this.levelCount)}[d] = len;
  ${rw(this.levelStart)}[d + 1u] = start + len;
  ${rw(this.overflow)}[1] = d + 1u;
  if (len > ${u32(capacity)}) { ${rw(this.overflow)}[2] += 1u; }
}`;
    // Each thread keeps the next level's (depth, start) in its private word, so only a dispatch's first
    // level loads its start (written by the step before).
    const onLevel = wgsl`(lid: u32, threads: u32, len: u32, level: u32) {
  let d = level + 1u;
  var start = weft_level_private.y;
  if (weft_level_private.x != d) { start = ${rw(this.levelStart)}[d]; }
  for (var i = lid; i < len; i += threads) { ${rw(this.order)}[start + i] = weft_frontier_item(i); }
  if (lid == 0u) { ${keep}(d, start, len); }
  weft_level_private = vec4<u32>(d + 1u, start + len, 0u, 0u);
}`;
    await advanceSmallFrontier(rec, this.graph, this.queue.current, visitLevel, {
      state,
      withLevel: true,
      onLevel,
      ...tuning,
    });
    const out = this.queue.next;
    await advancePush(rec, this.graph, this.queue.current, visit, {
      output: out,
      workspace: this.workspace,
      loadBalance: this.loadBalance,
    });
    await transform(
      rec,
      { array: out.count, index: 0 },
      wgsl`(i: u32) {
  let d = ${this.depths}[${out.items}[0]];
  let start = ${rw(this.levelStart)}[d];
  ${rw(this.order)}[start + i] = ${out.items}[i];
  if (i == 0u) {
    ${keep}(d, start, ${out.count}[0]);
    ${rw(state.words)}[${u32(state.levelsTotal)}] += 1u;
  }
}`,
    );
    this.queue.swap();
  }

  active(): GpuCount {
    return this.queue.length;
  }

  get capacity(): number {
    return this.queue.capacity;
  }

  /** On the small-level path, the enactor reads `forward`'s words with its status (no read-back of its own). */
  get report(): DeviceArray<'u32'> | undefined {
    return this.smallLevels ? this.overflow : undefined;
  }

  /**
   * Records the backward sweep of the source `source` whose forward search found `levels` levels (its
   * eccentricity plus one): dependencies level by level from the deepest, added to the scores.
   */
  async accumulate(rec: Recorder, source: number, levels: number, bigLevels = levels): Promise<void> {
    if (this.smallLevels) {
      await this.accumulateSmall(rec, levels, bigLevels);
      await this.addEndpoints(rec, source, levels);
      return;
    }
    const { offsets, chunkedTargets: targets } = this.graph;
    const wide = this.counts === 'wide';
    const { ratio } = COUNTS.wide;
    const sigma = wgsl`(v: u32) -> f32 { return bitcast<f32>(${this.sigma}[v]); }`;
    const extra = f32(this.endpoints ? 1 : 0);
    const skip = this.skipFunctor();
    for (let d = levels - 1; d >= 1; d--) {
      const count = { array: this.levelCount, index: d };
      await transform(
        rec,
        count,
        wgsl`(i: u32) { ${rw(this.levelItems)}[i] = ${this.order}[${this.levelStart}[${u32(d)}] + i]; }`,
      );
      const dependency = wide
        ? wgsl`(v: u32, w: u32, edge: u32) -> f32 {
  if (edge > ${offsets}[v] && ${load(targets, 'edge - 1u')} == w) { return 0.0; }
  if (${this.depths}[w] != ${u32(d + 1)}) { return 0.0; }
  return (1.0 + ${this.delta}[w]) * ${ratio}(${this.sigma}[v], ${this.sigma}[w]);
}`
        : wgsl`(v: u32, w: u32, edge: u32) -> f32 {
  if (edge > ${offsets}[v] && ${load(targets, 'edge - 1u')} == w) { return 0.0; }
  if (${this.depths}[w] != ${u32(d + 1)}) { return 0.0; }
  return (1.0 + ${this.delta}[w]) / ${sigma}(w);
}`;
      await neighborhoodReduce(
        rec,
        this.graph,
        { items: this.levelItems, length: count },
        dependency,
        this.sums,
        { workspace: this.workspace },
      );
      // Wide sums already hold sigma[v]'s factor.
      const factor = wide ? wgsl`(v: u32) -> f32 { return 1.0; }` : sigma;
      await transform(
        rec,
        count,
        wgsl`(i: u32) {
  if (${skip}()) { return; }
  let v = ${this.levelItems}[i];
  let dv = ${factor}(v) * ${this.sums}[i];
  ${rw(this.delta)}[v] = dv;
  ${rw(this.scores)}[v] = ${rw(this.scores)}[v] + dv + ${extra};
}`,
      );
    }
    await this.addEndpoints(rec, source, levels);
  }

  /**
   * The small-level path's backward sweep: from the deepest level down, each run of levels within the bound
   * in one dispatch, each big level between them by the bulk sweep. A big level is expanded by a bulk step
   * in the forward search, so `bigLevels` rounds of both cover every level (more rounds change nothing).
   */
  private async accumulateSmall(rec: Recorder, levels: number, bigLevels: number): Promise<void> {
    const { capacity, workgroupSize, cursor } = this.smallLevels!;
    const { offsets, chunkedTargets: targets } = this.graph;
    const wide = this.counts === 'wide';
    const { ratio } = COUNTS.wide;
    const sigma = wgsl`(v: u32) -> f32 { return bitcast<f32>(${this.sigma}[v]); }`;
    // Wide terms already hold sigma[v]'s factor.
    const term = wide
      ? wgsl`(v: u32, w: u32) -> f32 { return (1.0 + ${this.delta}[w]) * ${ratio}(${this.sigma}[v], ${this.sigma}[w]); }`
      : wgsl`(v: u32, w: u32) -> f32 { return (1.0 + ${this.delta}[w]) / ${sigma}(w); }`;
    const factor = wide ? wgsl`(v: u32) -> f32 { return 1.0; }` : sigma;
    // The term of v's out-edge `edge` to a successor w (a duplicate edge is the one before it with w). In
    // one workgroup a level's time is its chain of dependent loads, so every load issues once w is known
    // and the term is computed even where it is then dropped.
    const edgeTerm = wgsl`(v: u32, edge: u32) -> f32 {
  let w = ${load(targets, 'edge')};
  let dup = select(false, ${load(targets, 'max(edge, 1u) - 1u')} == w, edge > ${offsets}[v]);
  let t = ${term}(v, w);
  return select(0.0, t, !dup && ${this.depths}[w] == ${this.depths}[v] + 1u);
}`;
    // Likewise the flag, the count and the score load together; a sweep over overflowed counts adds nothing
    // and marks the run lost, as `skip` does.
    const finish = wgsl`(v: u32, sum: f32) {
  let overflowed = ${this.overflow}[0] != 0u;
  let dv = ${factor}(v) * sum;
  let score = ${rw(this.scores)}[v];
  if (overflowed) {
    ${rw(this.lost)}[0] = 1u;
    return;
  }
  ${rw(this.delta)}[v] = dv;
  ${rw(this.scores)}[v] = score + dv + ${f32(this.endpoints ? 1 : 0)};
}`;
    const dependency = wgsl`(v: u32, w: u32, edge: u32) -> f32 {
  if (edge > ${offsets}[v] && ${load(targets, 'edge - 1u')} == w) { return 0.0; }
  if (${this.depths}[w] != ${this.depths}[v] + 1u) { return 0.0; }
  return ${term}(v, w);
}`;
    const at = { array: cursor, index: 0 };
    const sweep = { term: edgeTerm, finish };
    const down = () =>
      recordLevelsDown(rec, offsets, this, at, sweep, { threshold: capacity, workgroupSize });
    await recordSet(rec, cursor, 0, Math.max(0, levels - 1));
    for (let r = 0; r < bigLevels; r++) {
      await down();
      // The level at the cursor (none below level 1) in the bulk sweep: cursor words 1 and 2 its index and
      // size, and the cursor moves below it.
      await transform(
        rec,
        1,
        wgsl`(i: u32) {
  let d = ${rw(cursor)}[0];
  var c = 0u;
  if (d >= 1u) {
    c = ${this.levelCount}[d];
    ${rw(cursor)}[0] = d - 1u;
  }
  ${rw(cursor)}[1] = d;
  ${rw(cursor)}[2] = c;
}`,
      );
      const count = { array: cursor, index: 2 };
      await transform(
        rec,
        count,
        wgsl`(i: u32) { ${rw(this.levelItems)}[i] = ${this.order}[${this.levelStart}[${cursor}[1]] + i]; }`,
      );
      await neighborhoodReduce(
        rec,
        this.graph,
        { items: this.levelItems, length: count },
        dependency,
        this.sums,
        { workspace: this.workspace },
      );
      await transform(rec, count, wgsl`(i: u32) { ${finish}(${this.levelItems}[i], ${this.sums}[i]); }`);
    }
    await down();
  }

  /** A sweep over overflowed counts adds nothing and marks the run lost, so `result` refuses it. */
  private skipFunctor(): Functor {
    return wgsl`() -> bool {
  if (${this.overflow}[0] == 0u) { return false; }
  ${rw(this.lost)}[0] = 1u;
  return true;
}`;
  }

  /** With `endpoints`: the source's score gains the vertices it reached. */
  private async addEndpoints(rec: Recorder, source: number, levels: number): Promise<void> {
    const skip = this.skipFunctor();
    if (this.endpoints) {
      await transform(
        rec,
        1,
        wgsl`(i: u32) {
  if (${skip}()) { return; }
  ${rw(this.scores)}[${u32(source)}] = ${rw(this.scores)}[${u32(source)}] + f32(${this.levelStart}[${u32(levels)}] - 1u);
}`,
      );
    }
  }

  /**
   * What the forward search of the current source left, after `steps` enactor steps (one read-back): on
   * the bulk path a step is a level, and every level counts as big.
   */
  async forward(steps: number): Promise<BetweennessForward> {
    return this.forwardOf(await this.overflow.download(), steps);
  }

  /** `forward`'s answer from the words of `overflow` (e.g. the enactor's `report`). */
  forwardOf(words: ArrayLike<number>, steps: number): BetweennessForward {
    const overflowed = words[0] !== 0;
    if (!this.smallLevels) return { overflowed, levels: steps, bigLevels: steps };
    return { overflowed, levels: words[1]!, bigLevels: words[2]! };
  }

  /** Whether the current source's path counts passed their format's range (one read-back). */
  async overflowed(): Promise<boolean> {
    return (await this.overflow.download())[0] !== 0;
  }

  /** The scores rescaled as networkx does, for a run over `sampled` sources (undefined: every vertex). */
  async result(sampled?: readonly number[]): Promise<Float32Array> {
    const n = this.graph.vertexCount;
    if (n === 0) return new Float32Array(0);
    if ((await this.lost.download())[0] !== 0) throw overflowError(this.counts);
    const values = await this.scores.download(0, n);
    rescaleBetweenness(values, this.graph.directed, this, sampled);
    return values;
  }

  destroy(): void {
    for (const a of [
      this.depths,
      this.sigma,
      this.overflow,
      this.lost,
      this.delta,
      this.scores,
      this.order,
      this.levelStart,
      this.levelCount,
      this.levelItems,
      this.sums,
    ]) {
      a.destroy();
    }
    this.queue.destroy();
    this.workspace.destroy();
    this.smallLevels?.state.destroy();
    this.smallLevels?.cursor.destroy();
  }
}

/**
 * Wide counts: 21 fraction bits below an 11-bit exponent; exponent 2047 is out of range, so counts stay below
 * 2^2046 (the WGSL below spells these numbers out).
 */
const WIDE_FRACTION_BITS = 21;
const WIDE_LIMIT = 2047 * 2 ** WIDE_FRACTION_BITS;
/** Largest base-2 logarithm a format's counts may reach. */
const LOG2_RANGE = { f32: 120, wide: 2046 } as const;

// A wide count's mantissa in [1, 2) as f32: its fraction bits moved to the top of f32's.
const wideMantissa = wgsl`(x: u32) -> f32 { return bitcast<f32>(0x3f800000u | ((x & 0x1fffffu) << 2u)); }`;

/**
 * The formats' constants and WGSL: `one` (a source's count), `limit` (the first bits out of range), `add`
 * (two counts' sum, bits) and, for wide counts, `ratio` (a / b as f32, for a at most b).
 *
 * f32 stops at 2^120 because WGSL bounds the error of x / y only for |y| below 2^126. Wide counts are
 * ordered as their bits, so max / min pick the larger; the sum in f32 is rounded to the nearest 21-bit
 * fraction (a carry out of the fraction moves into the exponent) and saturates at the limit.
 */
const COUNTS = {
  f32: {
    one: 0x3f800000,
    limit: (127 + LOG2_RANGE.f32) << 23,
    add: wgsl`(a: u32, b: u32) -> u32 { return bitcast<u32>(bitcast<f32>(a) + bitcast<f32>(b)); }`,
  },
  wide: {
    one: 1 << WIDE_FRACTION_BITS,
    limit: WIDE_LIMIT,
    add: wgsl`(a: u32, b: u32) -> u32 {
  if (a == 0u) { return b; }
  let hi = max(a, b);
  let lo = min(a, b);
  let e = hi >> 21u;
  let bits = bitcast<u32>(${wideMantissa}(hi) + ldexp(${wideMantissa}(lo), i32(lo >> 21u) - i32(e)));
  let exponent = e + (bits >> 23u) - 127u;
  if (exponent >= 2047u) { return 0xffe00000u; }
  return (exponent << 21u) + (((bits & 0x7fffffu) + 2u) >> 2u);
}`,
    ratio: wgsl`(a: u32, b: u32) -> f32 {
  return ldexp(${wideMantissa}(a) / ${wideMantissa}(b), i32(a >> 21u) - i32(b >> 21u));
}`,
  },
} as const;

function overflowError(counts: 'f32' | 'wide'): InputError {
  return new InputError(
    counts === 'f32'
      ? `shortest-path counts passed f32's range (2^${LOG2_RANGE.f32}) from some source: run with counts 'wide' or 'auto'`
      : `shortest-path counts passed the wide range (2^${LOG2_RANGE.wide}, about 1e616) from some source: no scores are returned`,
    'graph',
  );
}

/**
 * Whether counts `levels` levels deep may pass `counts`' range: a level's counts add up to at most its
 * predecessors' times the largest out-degree, so depth d holds at most maxOutDegree^d paths to a vertex.
 */
function mayOverflow(counts: 'f32' | 'wide', levels: number, maxOutDegree: number): boolean {
  return (levels - 1) * Math.log2(Math.max(1, maxOutDegree)) >= LOG2_RANGE[counts];
}

/**
 * Betweenness centrality with networkx's definition and options: from every vertex, `k` sampled ones or the
 * given `sources`; unweighted (edge weights are ignored).
 */
export async function betweennessCentrality(
  graph: DeviceGraph,
  options: BetweennessOptions = {},
): Promise<BetweennessResult> {
  checkOptionsObject('betweennessCentrality', options);
  checkDeviceGraph(graph);
  const n = graph.vertexCount;
  const sampled = betweennessSources(n, options);
  const sources = sampled ?? Array.from({ length: n }, (_, i) => i);
  if (n === 0) return { centrality: new Float32Array(0), sources: [], iterations: 0 };
  const counts = options.counts ?? 'auto';
  if (!['auto', 'f32', 'wide'].includes(counts)) {
    throw new InputError(`counts must be 'auto', 'f32' or 'wide', got ${String(counts)}`, 'counts');
  }
  await prepareLoadBalance(graph, options.loadBalance);
  const maxOutDegree = await graph.maxOutDegree();
  const problem = new BetweennessProblem(graph, { ...options, counts: counts === 'wide' ? 'wide' : 'f32' });
  const device = graph.device;
  let iterations = 0;
  try {
    let rec = device.recorder({ label: 'bc reset' });
    problem.clear(rec);
    for (const [i, source] of sources.entries()) {
      await problem.reset(rec, source);
      await rec.submit();
      const search = async () => {
        const run = await enact(device, problem, { ...options, maxIterations: n });
        // The small-level path's words come with the enactor's status; the bulk path reads the flag back
        // only where a search is deep enough to pass the range.
        if (run.report) return problem.forwardOf(run.report, run.iterations);
        if (mayOverflow(problem.counts, run.iterations, maxOutDegree)) return problem.forward(run.iterations);
        return { overflowed: false, levels: run.iterations, bigLevels: run.iterations };
      };
      let forward = await search();
      // The first f32 search that overflowed turns an 'auto' run to wide counts for this and every later
      // source.
      while (forward.overflowed) {
        if (counts !== 'auto' || problem.counts === 'wide') throw overflowError(problem.counts);
        problem.counts = 'wide';
        rec = device.recorder({ label: 'bc reset, wide counts' });
        await problem.reset(rec, source);
        await rec.submit();
        forward = await search();
      }
      iterations += forward.levels;
      rec = device.recorder({ label: i + 1 < sources.length ? 'bc backward, next reset' : 'bc backward' });
      await problem.accumulate(rec, source, forward.levels, forward.bigLevels);
    }
    await rec.submit();
    return { centrality: await problem.result(sampled), sources, iterations };
  } finally {
    problem.destroy();
  }
}
