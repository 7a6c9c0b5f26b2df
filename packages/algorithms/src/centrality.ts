import {
  ConvergenceError,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  f32,
  type Inline,
  InputError,
  inline,
  lit,
  load,
  max,
  plus,
  type Recorder,
  rw,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import {
  compute,
  enact,
  GasLoop,
  type GasProgram,
  type GatherOrder,
  gatherOrder,
  neighborhoodReduce,
} from '@weft/operators';
import {
  norm2,
  type Personalization,
  type PowerIterationOptions,
  personalizationVector,
  powerIterationSettings,
  sumOf,
} from './centrality-reference.ts';
import type { Problem, RunOptions } from './common.ts';
import { usesGatherOrder } from './pagerank.ts';
import { checkNonNegativeWeights, checkSymmetricWeights } from './weights.ts';

export interface PowerIterationRunOptions extends PowerIterationOptions, RunOptions {
  /**
   * Gather the iterated vector from a copy stored in the graph's {@link gatherOrder} (vertices renumbered
   * by how often they are read, hubs first, kept with the graph: a second copy of the gathered column), as
   * `pageRank`'s option: `'auto'` (default) on graphs of at least 2^20 arcs in one binding; `true`;
   * `false`. Results may differ in the last f32 bits.
   */
  gatherOrder?: 'auto' | boolean;
}

/** The gather order a power iteration over `direction`'s edges reads through, when it uses one. */
async function orderFor(
  graph: DeviceGraph,
  direction: 'in' | 'out',
  choice: 'auto' | boolean | undefined,
): Promise<GatherOrder | undefined> {
  return usesGatherOrder(graph, choice) && graph.vertexCount > 0 ? gatherOrder(graph, direction) : undefined;
}

/** WGSL for where vertex `v`'s entry of a gathered vector lives: `v`, or its position in `order`. */
function slotOf(order: GatherOrder | undefined): Inline {
  return inline(order ? wgsl`${order.position}[v]` : wgsl`v`);
}

/** The WGSL statement that keeps `copy[position[v]] = value` where a gather reads an ordered copy; else none. */
function keepCopy(
  copy: DeviceArray<'f32'> | undefined,
  order: GatherOrder | undefined,
  value: string,
): Inline {
  return inline(copy && order ? wgsl`${rw(copy)}[${order.position}[v]] = ${lit(value)};` : wgsl``);
}

export interface PersonalizedPageRankOptions extends PowerIterationRunOptions {
  /** Damping factor (default 0.85). */
  alpha?: number;
  /**
   * Edge weights share each vertex's rank over its out-edges in proportion (networkx's `pagerank` default,
   * `weight='weight'`): by default whenever the graph has weights; `null` ignores them. Weights must be
   * finite and non-negative; a vertex whose out-weights sum to 0 is dangling.
   */
  weight?: 'weights' | null;
}

export interface WeightedCentralityOptions extends PowerIterationRunOptions {
  /**
   * `'weights'`: each edge counts with its weight in the adjacency matrix (networkx's `weight='weight'`);
   * weights must be finite and non-negative. Default `null`, every edge counts 1, as networkx's default
   * `weight=None` for this measure.
   */
  weight?: 'weights' | null;
}

export interface HitsOptions extends PowerIterationRunOptions {
  /**
   * networkx's `hits` always reads the `'weight'` edge attribute into its adjacency matrix, so by default
   * the graph's weights count whenever it has them; `null` counts every edge 1. Weights must be finite and
   * non-negative.
   */
  weight?: 'weights' | null;
}

export interface KatzCentralityOptions extends WeightedCentralityOptions {
  /** Attenuation (default 0.1); must be below 1 / the largest eigenvalue of the adjacency matrix to converge. */
  alpha?: number;
  /** The constant every vertex starts each iteration with (default 1). */
  beta?: number;
  /** Divide the result by its L2 norm (default true). */
  normalized?: boolean;
}

/**
 * A power iteration of the PageRank family as a problem: `reset` records the starting state and the loop's
 * start, `step` one iteration of the GAS program, `active` the word that is 0 once the L1 change is below
 * `bound` (networkx's `n * tolerance`); `result` reads the answer back (normalized as the run function's).
 * A caller can replay whole runs inside one recording, as with `PageRankProblem`.
 */
export interface PowerIterationProblem<R> extends Problem<R> {
  readonly graph: DeviceGraph;
  /** The stopping bound on each phase's L1 change: `vertexCount * tolerance`. */
  readonly bound: number;
  readonly maxIterations: number;
  /** Each phase's residual in the last iteration that ran. */
  residuals(): Promise<number[]>;
}

/** Wraps a GAS program, the arrays it owns and its starting state; frees the arrays if the loop is refused. */
function powerProblem<R>(
  graph: DeviceGraph,
  program: GasProgram | readonly GasProgram[],
  tolerance: number,
  maxIterations: number,
  arrays: readonly DeviceArray[],
  start: (rec: Recorder) => Promise<unknown>,
  read: () => Promise<R>,
): PowerIterationProblem<R> {
  const bound = graph.vertexCount * tolerance;
  let loop: GasLoop;
  try {
    loop = new GasLoop(graph, program, { tolerance: bound });
  } catch (e) {
    for (const a of arrays) a.destroy();
    throw e;
  }
  return {
    graph,
    bound,
    maxIterations,
    async reset(rec) {
      if (graph.vertexCount > 0) await start(rec);
      await loop.reset(rec);
    },
    step: (rec, iteration) => loop.step(rec, iteration),
    active: () => loop.active(),
    residuals: () => loop.residuals(),
    result: read,
    destroy() {
      loop.destroy();
      for (const a of arrays) a.destroy();
    },
  };
}

/** Runs the problem with networkx's stopping rule (L1 change below `n * tolerance`) or throws; frees it. */
async function powerIterate<R>(
  problem: PowerIterationProblem<R>,
  what: string,
  options: RunOptions,
): Promise<R & { iterations: number }> {
  try {
    const { graph } = problem;
    let iterations = 0;
    if (graph.vertexCount > 0) {
      const rec = graph.device.recorder({ label: `${what} start` });
      await problem.reset(rec);
      await rec.submit();
      const run = await enact(graph.device, problem, {
        batch: 8,
        maxBatch: 16,
        ...options,
        maxIterations: problem.maxIterations,
      });
      if (!run.converged) {
        const residuals = await problem.residuals();
        throw new ConvergenceError(what, run.iterations, Math.max(...residuals), problem.bound);
      }
      iterations = run.iterations;
    }
    return { ...(await problem.result()), iterations };
  } finally {
    problem.destroy();
  }
}

/** The first `n` values of `x` (none for the null graph, whose arrays hold one unused element). */
async function download(x: DeviceArray<'f32'>, n: number): Promise<Float32Array> {
  return n === 0 ? new Float32Array(0) : x.download(0, n);
}

/** f32 arrays of one vertex each, freed together. */
function vertexArrays(graph: DeviceGraph, label: string, count: number): DeviceArray<'f32'>[] {
  const n = Math.max(1, graph.vertexCount);
  return Array.from({ length: count }, (_, i) => graph.device.array('f32', n, { label: `${label} ${i}` }));
}

function checkAlpha(alpha: number, low: number, high: number): void {
  if (!(alpha >= low && alpha <= high)) {
    throw new InputError(`alpha must be in [${low}, ${high}], got ${alpha}`, 'alpha');
  }
}

/**
 * The graph's weights when `weight` asks for them (`byDefault`: when left out, whenever the graph has
 * them), checked finite and non-negative; `undefined` to count every edge 1.
 */
async function edgeWeights(
  graph: DeviceGraph,
  weight: 'weights' | null | undefined,
  byDefault: boolean,
  who: string,
): Promise<DeviceGraph['chunkedWeights']> {
  if (weight !== undefined && weight !== null && weight !== 'weights') {
    throw new InputError(`weight must be 'weights' or null, got '${weight}'`, 'weight');
  }
  const w = graph.chunkedWeights;
  if (weight === 'weights' && w === undefined) {
    throw new InputError("weight 'weights' but the graph has no weights", 'weight');
  }
  if (w === undefined || weight === null || (weight === undefined && !byDefault)) return undefined;
  await checkNonNegativeWeights(graph, who);
  // The gathers read an undirected vertex's in-edges from its own arcs, so both arcs must weigh the same.
  await checkSymmetricWeights(graph, who);
  return w;
}

/**
 * A GAS program's gather of `sum x[u] (* w(u, v))` over `edges`: the adjacency matrix times `x`, where `x`
 * is stored in `order` when one is given.
 */
function weightedSum(
  x: DeviceArray<'f32'>,
  w: DeviceGraph['chunkedWeights'],
  edges: 'in' | 'out',
  order: GatherOrder | undefined,
): Pick<GasProgram, 'gatherEdges' | 'gather' | 'gatherIgnoresVertex' | 'gatherOrder' | 'sum'> {
  const gather = w
    ? wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${x}[u] * f32(${load(w, 'edge')}); }`
    : wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${x}[u]; }`;
  return {
    gatherEdges: edges,
    gather,
    gatherIgnoresVertex: true,
    ...(order ? { gatherOrder: order } : {}),
    sum: plus('f32'),
  };
}

/**
 * Personalized PageRank (networkx `pagerank(G, alpha, personalization)`): teleports, and dangling vertices'
 * rank, go to the personalization; ranks start uniform and sum to 1. On `gas`: gather `rank[u] / outdeg(u)`
 * (weighted: `rank[u] w(u, v) / outweight(u)`) over in-edges; apply `alpha * sum + (1 - alpha) p[v]`;
 * normalize adds what the dangling vertices leaked, `(1 - total) p[v]`, which is networkx's dangling term
 * while ranks sum to 1.
 */
export async function personalizedPageRank(
  graph: DeviceGraph,
  personalization: Personalization,
  options: PersonalizedPageRankOptions = {},
): Promise<{ ranks: Float32Array; iterations: number }> {
  checkOptionsObject('personalizedPageRank', options);
  const problem = await personalizedPageRankProblem(graph, personalization, options);
  return powerIterate(problem, 'personalizedPageRank', options);
}

/** `personalizedPageRank`'s program as a problem to record (checks its inputs as the run function does). */
export async function personalizedPageRankProblem(
  graph: DeviceGraph,
  personalization: Personalization,
  options: Omit<PersonalizedPageRankOptions, keyof RunOptions> = {},
): Promise<PowerIterationProblem<{ ranks: Float32Array }>> {
  checkOptionsObject('personalizedPageRankProblem', options);
  checkDeviceGraph(graph);
  const alpha = options.alpha ?? 0.85;
  checkAlpha(alpha, 0, 1);
  const p = personalizationVector(graph.vertexCount, personalization);
  const n = graph.vertexCount;
  const { tolerance, maxIterations } = powerIterationSettings('personalizedPageRank', options);
  const w = await edgeWeights(graph, options.weight, true, 'personalizedPageRank');
  const order = await orderFor(graph, 'in', options.gatherOrder);
  const slot = slotOf(order);
  const arrays = vertexArrays(graph, 'personalized pagerank', w ? 6 : 4);
  const [teleport, ranks, contrib, next, largest, out] = arrays as [
    DeviceArray<'f32'>,
    DeviceArray<'f32'>,
    DeviceArray<'f32'>,
    DeviceArray<'f32'>,
    DeviceArray<'f32'> | undefined,
    DeviceArray<'f32'> | undefined,
  ];
  // `share(v, r)`: what each out-edge of `v` carries of rank `r`, per unit of the edge's weight where it has one.
  let share: Functor;
  let gather: Functor;
  try {
    if (n > 0) teleport.upload(Float32Array.from(p));
    const { offsets } = graph;
    if (w && largest && out) {
      if (n > 0) {
        const rec = graph.device.recorder({ label: 'personalized pagerank out-weights' });
        // Out-weights over the largest one, so that their sum stays within f32 whatever the weights' range.
        const weight = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return f32(${load(w, 'edge')}); }`;
        await neighborhoodReduce(rec, graph, 'all', weight, largest, { monoid: max('f32') });
        const scaled = wgsl`(v: u32, u: u32, edge: u32) -> f32 {
  let top = ${largest}[v];
  return select(0.0, f32(${load(w, 'edge')}) / top, top > 0.0);
}`;
        await neighborhoodReduce(rec, graph, 'all', scaled, out);
        await rec.submit();
      }
      // Over the largest out-weight too, so that a gather reads one vertex value beside the edge's weight.
      share = wgsl`(v: u32, r: f32) -> f32 {
  return select(0.0, r / ${out}[v] / ${largest}[v], ${out}[v] > 0.0);
}`;
      gather = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${contrib}[u] * f32(${load(w, 'edge')}); }`;
    } else {
      share = wgsl`(v: u32, r: f32) -> f32 {
  let d = ${offsets}[v + 1u] - ${offsets}[v];
  return select(0.0, r / f32(d), d > 0u);
}`;
      gather = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${contrib}[u]; }`;
    }
  } catch (e) {
    for (const a of arrays) a.destroy();
    throw e;
  }
  return powerProblem(
    graph,
    {
      gatherEdges: 'in',
      gather,
      gatherIgnoresVertex: true,
      ...(order ? { gatherOrder: order } : {}),
      sum: plus('f32'),
      apply: wgsl`(v: u32, total: f32) -> f32 {
  let y = ${f32(alpha)} * total + ${f32(1 - alpha)} * ${teleport}[v];
  ${rw(next)}[v] = y;
  return y;
}`,
      normalize: {
        monoid: plus('f32'),
        apply: wgsl`(v: u32, kept: f32) -> f32 {
  let r = ${next}[v] + (1.0 - kept) * ${teleport}[v];
  let old = ${ranks}[v];
  ${rw(ranks)}[v] = r;
  ${rw(contrib)}[${slot}] = ${share}(v, r);
  return abs(r - old);
}`,
      },
    },
    tolerance,
    maxIterations,
    arrays,
    (rec) =>
      compute(
        rec,
        { all: n },
        wgsl`(v: u32) {
  ${rw(ranks)}[v] = ${f32(1 / Math.max(1, n))};
  ${rw(contrib)}[${slot}] = ${share}(v, ${f32(1 / Math.max(1, n))});
}`,
      ),
    async () => ({ ranks: await download(ranks, n) }),
  );
}

/**
 * Katz centrality (networkx `katz_centrality`): `x = alpha A^T x + beta` from 0 (in-edges; `A` holds the
 * edge weights with `weight: 'weights'`) until the L1 change is below `n * tolerance`, then divided by its
 * L2 norm when `normalized`.
 */
export async function katzCentrality(
  graph: DeviceGraph,
  options: KatzCentralityOptions = {},
): Promise<{ centrality: Float32Array; iterations: number }> {
  checkOptionsObject('katzCentrality', options);
  return powerIterate(await katzCentralityProblem(graph, options), 'katzCentrality', options);
}

/** `katzCentrality`'s program as a problem to record (checks its inputs as the run function does). */
export async function katzCentralityProblem(
  graph: DeviceGraph,
  options: Omit<KatzCentralityOptions, keyof RunOptions> = {},
): Promise<PowerIterationProblem<{ centrality: Float32Array }>> {
  checkOptionsObject('katzCentralityProblem', options);
  checkDeviceGraph(graph);
  const alpha = options.alpha ?? 0.1;
  const beta = options.beta ?? 1;
  if (!Number.isFinite(alpha)) throw new InputError(`alpha must be finite, got ${alpha}`, 'alpha');
  if (!Number.isFinite(beta)) throw new InputError(`beta must be finite, got ${beta}`, 'beta');
  const n = graph.vertexCount;
  const { tolerance, maxIterations } = powerIterationSettings('katzCentrality', options);
  const w = await edgeWeights(graph, options.weight, false, "katzCentrality with weight 'weights'");
  const order = await orderFor(graph, 'in', options.gatherOrder);
  const arrays = vertexArrays(graph, 'katz', order ? 2 : 1);
  const x = arrays[0]!;
  // Ordered: the gather reads a copy of x kept at the order's positions.
  const copy = arrays[1];
  return powerProblem(
    graph,
    {
      ...weightedSum(copy ?? x, w, 'in', order),
      apply: wgsl`(v: u32, total: f32) -> f32 {
  let next = ${f32(alpha)} * total + ${f32(beta)};
  let change = abs(next - ${x}[v]);
  ${rw(x)}[v] = next;
  ${keepCopy(copy, order, 'next')}
  return change;
}`,
    },
    tolerance,
    maxIterations,
    arrays,
    async (rec) => {
      for (const a of arrays) await rec.fill(a, 0);
    },
    async () => {
      const centrality = await download(x, n);
      if (options.normalized ?? true) scaleBy(centrality, 1 / (norm2(centrality) || 1));
      return { centrality };
    },
  );
}

/**
 * Eigenvector centrality (networkx `eigenvector_centrality`): `x = (x + A^T x) / ||x + A^T x||_2` (in-edges;
 * `A` holds the edge weights with `weight: 'weights'`) from the uniform vector until the L1 change is below
 * `n * tolerance`.
 */
export async function eigenvectorCentrality(
  graph: DeviceGraph,
  options: WeightedCentralityOptions = {},
): Promise<{ centrality: Float32Array; iterations: number }> {
  checkOptionsObject('eigenvectorCentrality', options);
  return powerIterate(await eigenvectorCentralityProblem(graph, options), 'eigenvectorCentrality', options);
}

/** `eigenvectorCentrality`'s program as a problem to record (checks its inputs as the run function does). */
export async function eigenvectorCentralityProblem(
  graph: DeviceGraph,
  options: Omit<WeightedCentralityOptions, keyof RunOptions> = {},
): Promise<PowerIterationProblem<{ centrality: Float32Array }>> {
  checkOptionsObject('eigenvectorCentralityProblem', options);
  checkDeviceGraph(graph);
  const n = graph.vertexCount;
  const { tolerance, maxIterations } = powerIterationSettings('eigenvectorCentrality', options);
  const w = await edgeWeights(graph, options.weight, false, "eigenvectorCentrality with weight 'weights'");
  if (n === 0) throw new InputError('cannot compute centrality for the null graph', 'graph');
  const order = await orderFor(graph, 'in', options.gatherOrder);
  const arrays = vertexArrays(graph, 'eigenvector', order ? 3 : 2);
  const [x, y] = arrays as [DeviceArray<'f32'>, DeviceArray<'f32'>];
  // Ordered: the gather reads a copy of x kept at the order's positions.
  const copy = arrays[2];
  return powerProblem(
    graph,
    {
      ...weightedSum(copy ?? x, w, 'in', order),
      apply: wgsl`(v: u32, total: f32) -> f32 {
  let s = ${x}[v] + total;
  ${rw(y)}[v] = s;
  return s * s;
}`,
      normalize: {
        monoid: plus('f32'),
        apply: wgsl`(v: u32, squares: f32) -> f32 {
  let norm = select(sqrt(squares), 1.0, squares == 0.0);
  let next = ${y}[v] / norm;
  let change = abs(next - ${x}[v]);
  ${rw(x)}[v] = next;
  ${keepCopy(copy, order, 'next')}
  return change;
}`,
      },
    },
    tolerance,
    maxIterations,
    arrays,
    async (rec) => {
      for (const a of arrays) await rec.fill(a, 1 / n);
    },
    async () => ({ centrality: await download(x, n) }),
  );
}

/**
 * HITS (networkx's power iteration): `a = A^T h` (a gather over in-edges), `h = A a` (over out-edges), each
 * scaled to a largest entry of 1, until the L1 change of `h` is below `n * tolerance`; both then scaled to
 * sum 1. networkx stops at an L1 change below `tol` (1e-8), finer than n f32 hubs resolve. `A` holds the
 * edge weights by default, as networkx's adjacency matrix does.
 */
export async function hits(
  graph: DeviceGraph,
  options: HitsOptions = {},
): Promise<{ hubs: Float32Array; authorities: Float32Array; iterations: number }> {
  checkOptionsObject('hits', options);
  return powerIterate(await hitsProblem(graph, options), 'hits', options);
}

/** `hits`' program (two phases an iteration) as a problem to record (checks its inputs as `hits` does). */
export async function hitsProblem(
  graph: DeviceGraph,
  options: Omit<HitsOptions, keyof RunOptions> = {},
): Promise<PowerIterationProblem<{ hubs: Float32Array; authorities: Float32Array }>> {
  checkOptionsObject('hitsProblem', options);
  checkDeviceGraph(graph);
  const n = graph.vertexCount;
  const { tolerance, maxIterations } = powerIterationSettings('hits', options);
  const w = await edgeWeights(graph, options.weight, true, 'hits');
  if (n > 0 && graph.edgeCount === 0) throw new InputError('HITS needs at least one edge', 'graph');
  // Hubs are gathered over in-edges, authorities over out-edges: a directed graph's two orders differ.
  const [inOrder, outOrder] = [
    await orderFor(graph, 'in', options.gatherOrder),
    await orderFor(graph, 'out', options.gatherOrder),
  ];
  const arrays = vertexArrays(graph, 'hits', inOrder ? 5 : 3);
  const [h, a, next] = arrays as [DeviceArray<'f32'>, DeviceArray<'f32'>, DeviceArray<'f32'>];
  // Ordered: the gathers read copies of h and a kept at their orders' positions.
  const [hubCopy, authorityCopy] = [arrays[3], arrays[4]];
  return powerProblem(
    graph,
    [
      {
        ...weightedSum(hubCopy ?? h, w, 'in', inOrder),
        apply: wgsl`(v: u32, total: f32) -> f32 { ${rw(a)}[v] = total; return total; }`,
        normalize: {
          monoid: max('f32'),
          apply: wgsl`(v: u32, largest: f32) -> f32 {
  let authority = select(0.0, ${a}[v] / largest, largest > 0.0);
  ${rw(a)}[v] = authority;
  ${keepCopy(authorityCopy, outOrder, 'authority')}
  return 0.0;
}`,
        },
      },
      {
        ...weightedSum(authorityCopy ?? a, w, 'out', outOrder),
        apply: wgsl`(v: u32, total: f32) -> f32 { ${rw(next)}[v] = total; return total; }`,
        normalize: {
          monoid: max('f32'),
          apply: wgsl`(v: u32, largest: f32) -> f32 {
  let hub = select(0.0, ${next}[v] / largest, largest > 0.0);
  let change = abs(hub - ${h}[v]);
  ${rw(h)}[v] = hub;
  ${keepCopy(hubCopy, inOrder, 'hub')}
  return change;
}`,
        },
      },
    ],
    tolerance,
    maxIterations,
    arrays,
    async (rec) => {
      await rec.fill(h, 1 / Math.max(1, n));
      if (hubCopy) await rec.fill(hubCopy, 1 / Math.max(1, n));
    },
    async () => {
      if (n === 0) return { hubs: new Float32Array(0), authorities: new Float32Array(0) };
      const hubs = await h.download(0, n);
      const authorities = await a.download(0, n);
      // Only edges that all weigh 0 leave every hub at 0 (a positive one keeps the iterates positive somewhere).
      if (sumOf(hubs) === 0) {
        throw new InputError('HITS needs an edge of positive weight: every edge weighs 0', 'graph.weights');
      }
      scaleBy(hubs, 1 / sumOf(hubs));
      scaleBy(authorities, 1 / sumOf(authorities));
      return { hubs, authorities };
    },
  );
}

/** Scales in f64 before rounding to f32. */
function scaleBy(x: Float32Array, s: number): void {
  for (let i = 0; i < x.length; i++) x[i] = x[i]! * s;
}
