import {
  atomic,
  type DeviceArray,
  f32,
  type GpuCount,
  InputError,
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
  enact,
  neighborhoodReduce,
  resolveLoadBalance,
} from '@weft/operators';
import { type BetweennessSampling, betweennessSources, rescaleBetweenness } from './betweenness-reference.ts';
import { type LoadBalanceOption, prepareLoadBalance, type RunOptions, recordSet } from './common.ts';

const UNREACHED = 0xffffffff;

export interface BetweennessOptions extends BetweennessSampling, RunOptions, LoadBalanceOption {}

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
 *       sigma[w] += sigma[u]                       advancePush; sigma as f32 (counts overflow u32)
 *       each level is appended to `order`, its start and length kept on the GPU
 *     backward, for each level d from the deepest to 1:
 *       delta[v] = sigma[v] * sum over successors w of (1 + delta[w]) / sigma[w]    neighborhoodReduce
 *       bc[v] += delta[v]
 *
 * The forward levels run in the enactor (one status read-back per batch of levels); the enactor's level
 * count then sizes the backward levels, recorded into one submit with the next source's reset.
 * Rows are sorted, so a duplicate edge is the one before it with the same target: it counts once, as the
 * single edge networkx sees.
 */
export class BetweennessProblem {
  readonly depths: DeviceArray<'u32'>;
  /** Path counts as f32 bits (WGSL has no f32 atomics: they add by compare-exchange). */
  readonly sigma: DeviceArray<'u32'>;
  /**
   * Nonzero once a path count passed f32's range: meshes and roads hundreds of levels deep have more
   * shortest paths than f32 holds (networkx counts in f64), and an infinite count would make scores NaN.
   */
  readonly overflow: DeviceArray<'u32'>;
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

  /** `options.loadBalance` `'auto'` (default) needs the graph's largest out-degree known. */
  constructor(
    readonly graph: DeviceGraph,
    options: Pick<BetweennessOptions, 'normalized' | 'endpoints' | 'loadBalance'> = {},
  ) {
    const device = graph.device;
    this.loadBalance = resolveLoadBalance(graph, options.loadBalance ?? 'auto');
    this.endpoints = options.endpoints ?? false;
    this.normalized = options.normalized ?? true;
    const n = Math.max(1, graph.vertexCount);
    const u32s = (label: string, size = n) => device.array('u32', size, { label: `bc ${label}` });
    const f32s = (label: string) => device.array('f32', n, { label: `bc ${label}` });
    this.depths = u32s('depths');
    this.sigma = u32s('path counts');
    this.overflow = u32s('path count overflow', 1);
    this.delta = f32s('dependencies');
    this.scores = f32s('scores');
    this.order = u32s('order');
    this.levelStart = u32s('level starts', n + 2);
    this.levelCount = u32s('level counts', n + 2);
    this.levelItems = u32s('level items');
    this.sums = f32s('successor sums');
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'bc frontier' });
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
  }

  /** Records: every score 0 (before the first source). */
  clear(rec: Recorder): void {
    rec.clear(this.scores);
    rec.clear(this.overflow);
  }

  /** Records the forward search's start from `source` (a vertex: the caller checks). */
  async reset(rec: Recorder, source: number): Promise<void> {
    await rec.fill(this.depths, UNREACHED);
    rec.clear(this.sigma);
    await recordSet(rec, this.depths, source, 0);
    await recordSet(rec, this.sigma, source, new Uint32Array(new Float32Array([1]).buffer)[0]!);
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
  }

  /** Forward level `iteration + 1`: path counts pushed from level `iteration`, the new level kept in order. */
  async step(rec: Recorder, iteration: number): Promise<void> {
    // Level n cannot hold a vertex: the frontier is empty from there on (and the level arrays end).
    if (iteration >= this.graph.vertexCount) return;
    const { offsets, targets } = this.graph;
    const depth = atomic(this.depths);
    const sigma = atomic(this.sigma);
    const next = u32(iteration + 1);
    // An f32 atomic add by compare-exchange: each failed exchange means another thread's add landed.
    const visit = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (edge > ${offsets}[src] && ${targets}[edge - 1u] == dst) { return false; }
  var old = atomicLoad(&${depth}[dst]);
  if (old == ${u32(UNREACHED)}) { old = atomicMin(&${depth}[dst], ${next}); }
  if (old != ${u32(UNREACHED)} && old != ${next}) { return false; }
  let add = bitcast<f32>(atomicLoad(&${sigma}[src]));
  var seen = atomicLoad(&${sigma}[dst]);
  loop {
    let sum = bitcast<u32>(bitcast<f32>(seen) + add);
    let r = atomicCompareExchangeWeak(&${sigma}[dst], seen, sum);
    if (r.exchanged) {
      if (sum >= ${u32(F32_INFINITY_BITS)}) { ${rw(this.overflow)}[0] = 1u; }
      break;
    }
    seen = r.old_value;
  }
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

  active(): GpuCount {
    return this.queue.length;
  }

  get capacity(): number {
    return this.queue.capacity;
  }

  /**
   * Records the backward sweep of the source `source` whose forward search found `levels` levels (its
   * eccentricity plus one): dependencies level by level from the deepest, added to the scores.
   */
  async accumulate(rec: Recorder, source: number, levels: number): Promise<void> {
    const { offsets, targets } = this.graph;
    const sigma = wgsl`(v: u32) -> f32 { return bitcast<f32>(${this.sigma}[v]); }`;
    const extra = f32(this.endpoints ? 1 : 0);
    for (let d = levels - 1; d >= 1; d--) {
      const count = { array: this.levelCount, index: d };
      await transform(
        rec,
        count,
        wgsl`(i: u32) { ${rw(this.levelItems)}[i] = ${this.order}[${this.levelStart}[${u32(d)}] + i]; }`,
      );
      await neighborhoodReduce(
        rec,
        this.graph,
        { items: this.levelItems, length: count },
        wgsl`(v: u32, w: u32, edge: u32) -> f32 {
  if (edge > ${offsets}[v] && ${targets}[edge - 1u] == w) { return 0.0; }
  if (${this.depths}[w] != ${u32(d + 1)}) { return 0.0; }
  return (1.0 + ${this.delta}[w]) / ${sigma}(w);
}`,
        this.sums,
        { workspace: this.workspace },
      );
      await transform(
        rec,
        count,
        wgsl`(i: u32) {
  let v = ${this.levelItems}[i];
  let dv = ${sigma}(v) * ${this.sums}[i];
  ${rw(this.delta)}[v] = dv;
  ${rw(this.scores)}[v] = ${rw(this.scores)}[v] + dv + ${extra};
}`,
      );
    }
    if (this.endpoints) {
      await transform(
        rec,
        1,
        wgsl`(i: u32) {
  ${rw(this.scores)}[${u32(source)}] = ${rw(this.scores)}[${u32(source)}] + f32(${this.levelStart}[${u32(levels)}] - 1u);
}`,
      );
    }
  }

  /** The scores rescaled as networkx does, for a run over `sampled` sources (undefined: every vertex). */
  async result(sampled?: readonly number[]): Promise<Float32Array> {
    const n = this.graph.vertexCount;
    if (n === 0) return new Float32Array(0);
    if ((await this.overflow.download())[0] !== 0) {
      throw new InputError(
        "shortest-path counts passed f32's range (3.4e38): betweenness on this graph (meshes and roads " +
          'hundreds of levels deep) needs wider counts than Weft keeps; no scores are returned',
        'graph',
      );
    }
    const values = await this.scores.download(0, n);
    rescaleBetweenness(values, this.graph.directed, this, sampled);
    return values;
  }

  destroy(): void {
    for (const a of [
      this.depths,
      this.sigma,
      this.overflow,
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
  }
}

/** f32 infinity's bits: a count at or past them (sign clear) overflowed. */
const F32_INFINITY_BITS = 0x7f800000;

/**
 * Betweenness centrality with networkx's definition and options: from every vertex, `k` sampled ones or the
 * given `sources`; unweighted (edge weights are ignored).
 */
export async function betweennessCentrality(
  graph: DeviceGraph,
  options: BetweennessOptions = {},
): Promise<BetweennessResult> {
  checkDeviceGraph(graph);
  const n = graph.vertexCount;
  const sampled = betweennessSources(n, options);
  const sources = sampled ?? Array.from({ length: n }, (_, i) => i);
  if (n === 0) return { centrality: new Float32Array(0), sources: [], iterations: 0 };
  await prepareLoadBalance(graph, options.loadBalance);
  const problem = new BetweennessProblem(graph, options);
  const device = graph.device;
  let iterations = 0;
  try {
    let rec = device.recorder({ label: 'bc reset' });
    problem.clear(rec);
    for (const [i, source] of sources.entries()) {
      await problem.reset(rec, source);
      await rec.submit();
      const run = await enact(device, problem, { ...options, maxIterations: n });
      iterations += run.iterations;
      rec = device.recorder({ label: i + 1 < sources.length ? 'bc backward, next reset' : 'bc backward' });
      await problem.accumulate(rec, source, run.iterations);
    }
    await rec.submit();
    return { centrality: await problem.result(sampled), sources, iterations };
  } finally {
    problem.destroy();
  }
}
