import {
  BetweennessProblem,
  BfsProblem,
  bfs,
  type ComponentsAlgorithm,
  ComponentsProblem,
  CoreNumberProblem,
  connectedComponents,
  coreNumber,
  edgesFrom,
  eigenvectorCentrality,
  eigenvectorCentralityProblem,
  eigenvectorCentralityReference,
  graphColoring,
  hits,
  hitsProblem,
  hitsReference,
  jaccard,
  jaccardReference,
  katzCentrality,
  katzCentralityProblem,
  katzCentralityReference,
  LocalCoreNumberProblem,
  labelPropagation,
  labelPropagationReference,
  leiden,
  leidenReference,
  louvain,
  louvainReference,
  minimumSpanningForest,
  modularity,
  PageRankProblem,
  type PowerIterationProblem,
  pageRank,
  personalizedPageRank,
  personalizedPageRankProblem,
  personalizedPageRankReference,
  resolveSsspOptions,
  SsspBlocks,
  SsspBlocksProblem,
  type SsspBlocksTuning,
  SsspProblem,
  sssp,
  stronglyConnectedComponents,
  TrianglesProblem,
  trianglesReference,
  usesGatherOrder,
  verifyBetweenness,
  verifyBfs,
  verifyComponents,
  verifyCoreNumbers,
  verifyPageRank,
  verifyScc,
  verifySpanningForest,
  verifySssp,
} from '@weft/algorithms';
import { atomic, type Recorder, type WeftDevice, wgsl } from '@weft/gpu';
import {
  type DeviceGraph,
  type FrontierQueue,
  type HostCsr,
  hostCscFromCsr,
  hostCsrFromEdgeList,
  uploadGraph,
} from '@weft/graph';
import { grid, kronecker, randomGeometric, road } from '@weft/graph/generators';
import { Cascade, enact, gatherOrder, hasGatherOrder } from '@weft/operators';
import type { BenchGraph, GraphStats } from '../graphs.ts';
import type { BenchCase, BenchInstance, IterationTrace } from '../types.ts';
import { pageRankStepError } from '../validate.ts';

/*
 * Graph algorithms on generated graphs, or on graphs chosen on the command line (`casesForGraph`). By default
 * `n` is the target number of directed arcs (CSR edges): Kronecker scale log2(n / 32) with edge factor 16
 * (Graph500), a square grid of about n / 4 vertices, a random geometric graph of average degree 8, a square
 * road-like graph (`road()`: a perturbed grid of about 2.6 arcs a vertex, hundreds of levels) of n / 2.6.
 *
 * BFS and SSSP follow the Graph500/GAP rules: `sourceCount` seeded sources with out-degree > 0 (64 on a GPU),
 * each selected untimed (a first run gives its iteration count and its TEPS edges), timed on its own and
 * validated (every 8th above 2^24 arcs); graph generation, loading and upload are never inside a timed run.
 * Items are Graph500's TEPS edges (`traversedEdges`: arcs out of reached vertices, halved on undirected graphs,
 * so each undirected edge in the traversed component counts once; self-loops dropped and duplicates merged
 * first) and the measurement's throughput is the harmonic mean of the per-source TEPS. PageRank counts every
 * arc once per iteration. A run records a whole algorithm (reset included) with as many iterations as the
 * source's first run needed, which the GPU's empty frontiers make safe to replay: no read-back inside `run`.
 */

const SHAPES = ['kronecker', 'grid', 'geometric', 'road'] as const;
export type Shape = (typeof SHAPES)[number];

// Generated graphs, shared by every case of one size (host generation dominates a suite's wall time).
const graphCache = new Map<string, HostCsr>();

/**
 * The suite's graph of `shape` with about `n` arcs (weighted; unweighted algorithms ignore the weights);
 * the same (shape, n, seed) gives the same object.
 */
export function makeGraph(shape: Shape, n: number, seed: number, _weights: boolean): HostCsr {
  // Weights come from their own random stream, so the weighted graph has the same arcs: generate it once.
  const key = `${shape}:${n}:${seed}`;
  let csr = graphCache.get(key);
  if (!csr) {
    if (graphCache.size >= 8) graphCache.delete(graphCache.keys().next().value!);
    csr = generate(shape, n, seed, true);
    graphCache.set(key, csr);
  }
  return csr;
}

/**
 * Gives the suite the graph `makeGraph(shape, n, seed)` would generate, read from a file `weft graphs` wrote
 * (`bench --graphs-dir`): generating a scale-22 Kronecker graph takes a minute of host time per run.
 */
export function provideGraph(shape: Shape, n: number, seed: number, csr: HostCsr): void {
  if (!SHAPES.includes(shape)) throw new Error(`unknown graph shape '${shape}'`);
  graphCache.set(`${shape}:${n}:${seed}`, csr);
}

/** Arcs a vertex of `road()` with its default keep and diagonal fractions (a spanning tree plus a third). */
const ROAD_ARCS_PER_VERTEX = 2.6;

function generate(shape: Shape, n: number, seed: number, weights: boolean): HostCsr {
  const w = weights ? { weights: true as const } : {};
  if (shape === 'kronecker') {
    const scale = Math.max(4, Math.round(Math.log2(n / 32)));
    return hostCsrFromEdgeList(kronecker({ scale, edgeFactor: 16, seed, ...w })).csr;
  }
  if (shape === 'grid') {
    const side = Math.max(2, Math.round(Math.sqrt(n / 4)));
    return hostCsrFromEdgeList(grid({ width: side, height: side, seed, ...w })).csr;
  }
  if (shape === 'road') {
    const side = Math.max(2, Math.round(Math.sqrt(n / ROAD_ARCS_PER_VERTEX)));
    return hostCsrFromEdgeList(road({ width: side, height: side, seed, ...w })).csr;
  }
  return hostCsrFromEdgeList(randomGeometric({ n: Math.max(2, Math.round(n / 8)), avgDegree: 8, seed, ...w }))
    .csr;
}

/**
 * Largest n per shape: Kronecker up to scale 22 (Graph500's 2^22 vertices, 2^27 arcs); the grid to 2^24
 * arcs (a 2048 x 2048 mesh: ~4,000 BFS levels recorded per run, each level's scratch alive until the
 * submit); geometric graphs to 2^25 arcs.
 */
function maxItemsOf(shape: Shape): number {
  return shape === 'kronecker' ? 2 ** 27 : shape === 'grid' || shape === 'road' ? 2 ** 24 : 2 ** 25;
}

/** A source with out-edges, drawn from `seed` (Graph500 samples non-isolated sources). */
export function pickSource(csr: HostCsr, seed: number): number {
  return pickSources(csr, seed, 1)[0] ?? 0;
}

/**
 * `count` distinct sources with out-degree > 0, drawn from `seed` (Graph500 and GAP: 64 non-isolated search
 * keys); fewer when the graph has fewer such vertices. The first is `pickSource`'s.
 */
export function pickSources(
  csr: Pick<HostCsr, 'vertexCount' | 'offsets'>,
  seed: number,
  count: number,
): number[] {
  const n = csr.vertexCount;
  const out: number[] = [];
  const taken = new Set<number>();
  for (let k = 0; k < 4 * n + 64 && out.length < count; k++) {
    const v = (Math.imul(seed + k, 2654435761) >>> 0) % n;
    if (!taken.has(v) && csr.offsets[v + 1]! > csr.offsets[v]!) {
      taken.add(v);
      out.push(v);
    }
  }
  return out.length > 0 ? out : [0];
}

/** Sources per traversal when --sources is not given: Graph500's 64 on a GPU, 3 on a software adapter (CPU figures). */
let sourcesOption: number | undefined;

/** `--sources N`: how many sources BFS and SSSP (and their CPU baselines, at most 8) are timed from. */
export function setSourceCount(count: number | undefined): void {
  sourcesOption = count;
}

export function sourceCount(device: WeftDevice): number {
  return sourcesOption ?? (device.adapter.software ? 3 : 64);
}

/** Above this many arcs every 8th source is validated instead of all 64 (host verification time). */
export const VALIDATE_ALL_MAX_ARCS = 2 ** 24;

/**
 * Edges a traversal from a source touches, for TEPS (Graph500): CSR arcs out of reached vertices, halved on an
 * undirected graph (each edge is two arcs), so an undirected edge counts once.
 */
export function traversedEdges(csr: HostCsr, reached: (v: number) => boolean): number {
  const arcs = edgesFrom(csr, reached);
  return csr.directed ? arcs : arcs / 2;
}

/** Where a case's graph comes from: a default shape scaled to `n` arcs, or a graph chosen on the command line. */
export interface GraphInput {
  /** One word: the shape or the graph's name. */
  label: string;
  get(n: number, seed: number): HostCsr;
  maxItems: number;
  stats?: GraphStats;
}

const shapeInput = (shape: Shape): GraphInput => ({
  label: shape,
  get: (n, seed) => makeGraph(shape, n, seed, true),
  maxItems: maxItemsOf(shape),
});

export function selectedInput(g: BenchGraph): GraphInput {
  return { label: g.name, get: () => g.csr, maxItems: Number.POSITIVE_INFINITY, stats: g.stats };
}

const uploaded = (device: WeftDevice, csr: HostCsr) => uploadGraph(device, csr, { csc: csr.directed });

/**
 * Steps to replay for algorithms whose iteration count depends on the order atomics land in (label propagation,
 * Bellman-Ford): the first run's count plus a margin, since a replay may need more. Steps after convergence
 * see an empty frontier and dispatch nothing (zero-size indirect dispatches), so the margin costs little.
 */
export function withMargin(iterations: number): number {
  return iterations + Math.max(2, Math.ceil(iterations / 2));
}

/**
 * Steps a replay of label propagation always converges in, whatever order its atomics land in: the largest
 * hop distance (either edge direction) from a component's smallest vertex to any vertex of it. After step k,
 * every vertex within k + 1 hops of that vertex holds its label: a vertex whose label drops is appended to the
 * next frontier (unique appends, never past capacity), so it pushes the new label in the next step. Found by
 * a breadth-first search per component on the host. (A replay of the first run's count, even doubled until one
 * validated, was not enough: a timed replay under load failed validation on a 256 x 256 grid.)
 */
export function labelPropagationSteps(csr: HostCsr): number {
  const n = csr.vertexCount;
  // Components are weak: a directed graph's arcs are walked both ways.
  const csc = csr.directed ? hostCscFromCsr(csr) : undefined;
  const dist = new Int32Array(n).fill(-1);
  const queue = new Uint32Array(n);
  let farthest = 0;
  // In increasing order, the first vertex not yet reached is its component's smallest.
  for (let s = 0; s < n; s++) {
    if (dist[s]! >= 0) continue;
    dist[s] = 0;
    let head = 0;
    let tail = 0;
    queue[tail++] = s;
    const reach = (u: number, v: number) => {
      if (dist[v]! >= 0) return;
      dist[v] = dist[u]! + 1;
      farthest = Math.max(farthest, dist[v]!);
      queue[tail++] = v;
    };
    while (head < tail) {
      const u = queue[head++]!;
      for (let k = csr.offsets[u]!; k < csr.offsets[u + 1]!; k++) reach(u, csr.targets[k]!);
      if (csc) for (let k = csc.inOffsets[u]!; k < csc.inOffsets[u + 1]!; k++) reach(u, csc.sources[k]!);
    }
  }
  return farthest;
}

/** `select` that skips the untimed first run when the same source is selected again (setup, then the harness). */
export function once(
  select: (i: number) => Promise<{ edges: number; iterations: number }>,
): (i: number) => Promise<{ edges: number; iterations: number }> {
  let last: { i: number; result: { edges: number; iterations: number } } | undefined;
  return async (i) => {
    if (last?.i !== i) last = { i, result: await select(i) };
    return last.result;
  };
}

/** Records `iterations` steps of a problem. */
export async function recordSteps(
  rec: Recorder,
  problem: { step(rec: Recorder, iteration: number): Promise<void> },
  iterations: number,
): Promise<void> {
  for (let i = 0; i < iterations; i++) await problem.step(rec, i);
}

type LoadBalance = 'merge-path' | 'thread-mapped';

/**
 * BFS from the suite's sources: push (atomic claims), direction-optimizing, or with `idempotent` Gunrock's
 * idempotent push (plain depth stores, duplicates culled by a visited-bitmap filter).
 */
function bfsCase(
  input: GraphInput,
  direction: 'push' | 'auto' = 'push',
  loadBalance: LoadBalance = 'merge-path',
  idempotent = false,
  claim: 'auto' | 'depth' = 'auto',
  smallFrontier: 'auto' | 'off' = 'auto',
): BenchCase {
  const variant = `${direction === 'auto' ? ' direction-optimizing' : ''}${loadBalance === 'thread-mapped' ? ' thread-mapped' : ''}${idempotent ? ' idempotent' : ''}${claim === 'depth' ? ' atomicMin claims' : ''}${smallFrontier === 'off' ? ' no small-frontier engine' : ''}`;
  const options = { direction, loadBalance, idempotent, claim, smallFrontier };
  return {
    name: `bfs ${input.label}${variant}`,
    family: 'algorithms',
    maxItems: () => input.maxItems,
    async setup(device: WeftDevice, n: number, seed: number): Promise<BenchInstance> {
      const csr = input.get(n, seed);
      const graph = uploaded(device, csr);
      const vertices = pickSources(csr, seed, sourceCount(device));
      const problem = new BfsProblem(graph, options);
      let source = vertices[0]!;
      let iterations = 0;
      let steps = 0;
      // Untimed: a first run from the source gives its level and step counts (the replays record its steps:
      // fewer than its levels where the small-frontier engine ran several levels a step).
      const select = once(async (i: number) => {
        source = vertices[i]!;
        const { iterations: levels, steps: taken, depths } = await bfs(graph, source, options);
        iterations = levels;
        steps = taken;
        return { edges: traversedEdges(csr, (v) => depths[v]! >= 0), iterations };
      });
      const { edges: items } = await select(0);
      return {
        items,
        bytes: 0,
        ...(input.stats ? { graph: input.stats } : {}),
        sources: { vertices, select, validateEvery: csr.edgeCount > VALIDATE_ALL_MAX_ARCS ? 8 : 1 },
        async run(rec) {
          await problem.reset(rec, source);
          await recordSteps(rec, problem, steps);
        },
        validate: async () => verifyBfs(csr, source, (await problem.result()).depths),
        // A traced run logs a frontier a step: where the engine runs many levels a step, the library's trace.
        ...(direction === 'push' && loadBalance === 'merge-path' && !idempotent && claim === 'auto'
          ? steps === iterations
            ? { trace: () => traceRun(device, csr, problem, vertices[0]!, iterations, 'bfs') }
            : {
                trace: async () =>
                  fromLibrary(
                    'bfs',
                    vertices[0]!,
                    (await bfs(graph, vertices[0]!, { ...options, trace: true })).trace,
                  ),
              }
          : direction === 'auto'
            ? {
                // Pull levels are traced by the library (edges there: its upper bound, see IterationTrace).
                trace: async () =>
                  fromLibrary(
                    'bfs',
                    vertices[0]!,
                    (await bfs(graph, vertices[0]!, { direction, loadBalance, trace: true })).trace,
                  ),
              }
            : {}),
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

function ssspCase(
  input: GraphInput,
  loadBalance: LoadBalance = 'merge-path',
  delta?: number | 'off',
  smallFrontier: 'auto' | 'off' = 'auto',
): BenchCase {
  const nearFar = delta === 'off' ? ' Bellman-Ford' : delta ? ` near-far delta ${delta}` : '';
  const variant = `${loadBalance === 'thread-mapped' ? ' thread-mapped' : ''}${nearFar}${smallFrontier === 'off' ? ' no small-frontier engine' : ''}`;
  // The frontier path: 'auto' would switch to block-local rounds from the second source (their own cases).
  const options = {
    loadBalance,
    smallFrontier,
    strategy: 'frontier' as const,
    ...(delta === undefined ? {} : { delta }),
  };
  return {
    name: `sssp ${input.label} (u32 weights 1-255)${variant}`,
    family: 'algorithms',
    maxItems: () => input.maxItems,
    async setup(device, n, seed) {
      const csr = input.get(n, seed);
      const graph = uploaded(device, csr);
      const vertices = pickSources(csr, seed, sourceCount(device));
      // The delta `sssp` picks (near-far where the engine runs on a weighted graph) unless the case names one.
      const problem = new SsspProblem(graph, await resolveSsspOptions(graph, options));
      let source = vertices[0]!;
      let iterations = 0;
      let steps = 0;
      // Untimed: a first run gives the level and step counts (the replays record its steps, with a margin
      // for the order of atomics: fewer than its levels where the small-frontier engine ran several a step).
      const select = once(async (i: number) => {
        source = vertices[i]!;
        const r = await sssp(graph, source, options);
        iterations = r.iterations;
        steps = r.steps;
        return { edges: traversedEdges(csr, (v) => Number.isFinite(r.distances[v]!)), iterations };
      });
      const { edges: items } = await select(0);
      return {
        items,
        bytes: 0,
        ...(input.stats ? { graph: input.stats } : {}),
        sources: { vertices, select, validateEvery: csr.edgeCount > VALIDATE_ALL_MAX_ARCS ? 8 : 1 },
        async run(rec) {
          await problem.reset(rec, source);
          await recordSteps(rec, problem, withMargin(steps));
        },
        validate: async () => verifySssp(csr, source, (await problem.result()).distances),
        // The near-far variant's queue holds only the near part: its trace would undercount. A replay logs
        // a frontier a step: where the engine runs, the library's trace (which runs without it).
        ...(delta === undefined && loadBalance === 'merge-path'
          ? problem.smallFrontier === undefined
            ? { trace: () => traceRun(device, csr, problem, vertices[0]!, withMargin(iterations), 'sssp') }
            : {
                trace: async () =>
                  fromLibrary(
                    'sssp',
                    vertices[0]!,
                    (await sssp(graph, vertices[0]!, { ...options, trace: true })).trace,
                  ),
              }
          : {}),
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

/**
 * SSSP by block-local rounds (`strategy: 'blocks'`): the blocks are prepared once per graph, untimed (the
 * preparation's host time is in the measurement's `setup`), and a run replays the first run's rounds with a
 * margin (rounds past convergence exit at once). `tuning` names block and workgroup sizes, passes or a sweep
 * limit to compare. `traversal: 'bfs'` runs them on the graph without its weights: distances are depths.
 */
function ssspBlocksCase(
  input: GraphInput,
  tuning: SsspBlocksTuning = {},
  traversal: 'sssp' | 'bfs' = 'sssp',
): BenchCase {
  const sizes = tuning.blockSize ? ` ${tuning.blockSize}/${tuning.workgroupSize ?? 'max'}` : '';
  const passes = tuning.passes ? ` ${tuning.passes} passes` : '';
  const sweeps = tuning.maxSweeps ? ` ${tuning.maxSweeps} sweeps` : '';
  const bfs = traversal === 'bfs';
  const weights = bfs ? '' : ' (u32 weights 1-255)';
  return {
    name: `${traversal} ${input.label}${weights} blocks${sizes}${passes}${sweeps}`,
    family: 'algorithms',
    maxItems: () => input.maxItems,
    async setup(device, n, seed) {
      const csr = input.get(n, seed);
      const { weights: _, ...plain } = csr;
      const graph = uploaded(device, bfs ? plain : csr);
      const vertices = pickSources(csr, seed, sourceCount(device));
      const blocks = await SsspBlocks.prepare(graph, tuning);
      const problem = new SsspBlocksProblem(blocks);
      const options = { strategy: 'blocks' as const, blocks };
      let source = vertices[0]!;
      let rounds = 0;
      const select = once(async (i: number) => {
        source = vertices[i]!;
        const r = await sssp(graph, source, options);
        rounds = r.iterations;
        return { edges: traversedEdges(csr, (v) => Number.isFinite(r.distances[v]!)), iterations: rounds };
      });
      const { edges: items } = await select(0);
      const { blockCount, shape } = blocks;
      return {
        items,
        bytes: 0,
        ...(input.stats ? { graph: input.stats } : {}),
        setup:
          `${blockCount} blocks (${shape.workgroupSize} threads, ${shape.verticesPerThread} vertices and ` +
          `${shape.arcsPerThread} arcs a thread), prepared in ${blocks.prepareMs.toFixed(1)} ms untimed`,
        sources: { vertices, select, validateEvery: csr.edgeCount > VALIDATE_ALL_MAX_ARCS ? 8 : 1 },
        async run(rec) {
          await problem.reset(rec, source);
          await recordSteps(rec, problem, withMargin(rounds));
        },
        async validate() {
          const { distances } = await problem.result();
          if (!bfs) return verifySssp(csr, source, distances);
          return verifyBfs(
            csr,
            source,
            Int32Array.from(distances, (d) => (Number.isFinite(d) ? d : -1)),
          );
        },
        destroy() {
          problem.destroy();
          blocks.destroy();
          graph.destroy();
        },
      };
    },
  };
}

/** Sources a betweenness run is timed from: gapbs's anchor runs `bc -r SOURCE -i 1` from the same first 8. */
const BC_SOURCES = 8;

/**
 * Betweenness centrality from one source per run (gapbs `bc -i 1`): clear, the forward steps, the backward
 * sweep, with the path counts the library takes from that source (wide where they pass f32's range); items
 * are the traversal's TEPS edges, the time is per source. `smallFrontier: 'off'` keeps the bulk path on
 * graphs where the library runs small levels in one workgroup, to compare the two in one command.
 */
function betweennessCase(input: GraphInput, smallFrontier: 'auto' | 'off' = 'auto'): BenchCase {
  return {
    name: `bc ${input.label}${smallFrontier === 'off' ? ' no small-frontier engine' : ''}`,
    family: 'algorithms',
    maxItems: () => input.maxItems,
    async setup(device, n, seed) {
      const csr = input.get(n, seed);
      const graph = uploaded(device, csr);
      const vertices = pickSources(csr, seed, Math.min(BC_SOURCES, sourceCount(device)));
      await graph.maxOutDegree();
      const problem = new BetweennessProblem(graph, { smallFrontier });
      let source = vertices[0]!;
      let forward = { steps: 0, levels: 0, bigLevels: 0 };
      // Untimed: a BFS gives the TEPS edges; an f32 forward search gives the steps a replay records, the
      // levels and big levels its backward sweep takes, and the counts the library takes from this source
      // (wide past f32's range).
      const select = once(async (i: number) => {
        source = vertices[i]!;
        const { depths } = await bfs(graph, source);
        problem.counts = 'f32';
        const rec = device.recorder({ label: 'bc counts probe' });
        await problem.reset(rec, source);
        await rec.submit();
        const run = await enact(device, problem, { maxIterations: csr.vertexCount });
        const { overflowed, levels, bigLevels } = await problem.forward(run.iterations);
        forward = { steps: run.iterations, levels, bigLevels };
        problem.counts = overflowed ? 'wide' : 'f32';
        return { edges: traversedEdges(csr, (v) => depths[v]! >= 0), iterations: levels };
      });
      const { edges: items } = await select(0);
      return {
        items,
        bytes: 0,
        ...(input.stats ? { graph: input.stats } : {}),
        sources: { vertices, select, validateEvery: csr.edgeCount > VALIDATE_ALL_MAX_ARCS ? 8 : 1 },
        async run(rec) {
          problem.clear(rec);
          await problem.reset(rec, source);
          await recordSteps(rec, problem, forward.steps);
          await problem.accumulate(rec, source, forward.levels, forward.bigLevels);
        },
        validate: async () => verifyBetweenness(csr, await problem.result([source]), { sources: [source] }),
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

/** A trace from @weft/algorithms' `trace: true` run in the report's form (absent when the library gave none). */
function fromLibrary(
  algorithm: string,
  source: number | undefined,
  t: { frontier: number[]; edges: number[]; timesMs?: number[] } | undefined,
): IterationTrace | undefined {
  if (!t) return undefined;
  return {
    algorithm,
    ...(source === undefined ? {} : { source }),
    frontier: t.frontier,
    edges: t.edges,
    ...(t.timesMs ? { timesMs: t.timesMs, clock: 'gpu' as const } : {}),
  };
}

/**
 * One traced run, outside the timing: reset, then one submit per step, with the input frontier's length and
 * vertices read back before it (edges = their out-degrees: what a push advance inspects) and the step's GPU
 * time (wall time without timestamps). Stops at the first empty frontier.
 */
async function traceRun(
  device: WeftDevice,
  csr: HostCsr,
  problem: {
    queue: FrontierQueue;
    reset(rec: Recorder, source: number): Promise<void>;
    step(rec: Recorder, iteration: number): Promise<void>;
  },
  source: number,
  maxIterations: number,
  algorithm: string,
): Promise<IterationTrace> {
  const start = device.recorder({ label: `${algorithm} trace reset` });
  await problem.reset(start, source);
  await start.submit();
  const trace: IterationTrace = { algorithm, source, frontier: [], edges: [], timesMs: [], clock: 'gpu' };
  for (let i = 0; i < maxIterations; i++) {
    const { items, length } = problem.queue.current;
    const size = (await length.array.download(length.index, 1))[0]!;
    if (size === 0) break;
    const frontier = await items.download(0, Math.min(size, items.length));
    let edges = 0;
    for (const v of frontier) edges += csr.offsets[v + 1]! - csr.offsets[v]!;
    const rec = device.recorder({ label: `${algorithm} trace step`, timing: true });
    await problem.step(rec, i);
    const r = await rec.submit();
    if (r.gpuNs === undefined) trace.clock = 'wall';
    trace.frontier.push(size);
    trace.edges.push(edges);
    trace.timesMs!.push(r.gpuNs !== undefined ? r.gpuNs / 1e6 : r.wallMs);
  }
  return trace;
}

/**
 * A case that runs one problem over the whole uploaded graph: name, size limit, the graph's upload and
 * statistics, and its release are shared; `make` gives the problem's run, check and trace; `variant` ends
 * the name.
 */
function wholeGraphCase(
  name: string,
  input: GraphInput,
  make: (
    device: WeftDevice,
    csr: HostCsr,
    graph: ReturnType<typeof uploaded>,
  ) => Promise<Omit<BenchInstance, 'bytes' | 'graph'> & { destroy(): void }>,
  variant = '',
): BenchCase {
  return {
    name: `${name} ${input.label}${variant}`,
    family: 'algorithms',
    maxItems: () => input.maxItems,
    async setup(device, n, seed) {
      const csr = input.get(n, seed);
      const graph = uploaded(device, csr);
      const instance = await make(device, csr, graph);
      return {
        ...instance,
        ...(input.stats ? { graph: input.stats } : {}),
        bytes: 0,
        destroy() {
          instance.destroy();
          graph.destroy();
        },
      };
    },
  };
}

/** Undirected graphs count each edge once (Graph500). */
const edgesOf = (csr: HostCsr) => (csr.directed ? csr.edgeCount : csr.edgeCount / 2);

/**
 * PageRank, GPU-timed over the iterations a first run took. `ownOrder`: gathered in the graph's own
 * numbering (`gatherOrder: false`), beside the default that renumbers hubs first where the graph is large.
 */
function pageRankCase(input: GraphInput, ownOrder = false): BenchCase {
  // Unweighted, as the anchors (gapbs, PyTorch's SpMV) compute it, whether or not the graph has weights.
  const unweighted = { weight: null, ...(ownOrder ? { gatherOrder: false } : {}) };
  const variant = ownOrder ? " (graph's own order)" : '';
  return wholeGraphCase(
    'pagerank',
    input,
    async (device, csr, graph) => {
      // The gather order is built once per graph and kept with it: its cost is reported, not timed.
      let setup: { setup: string } | undefined;
      if (usesGatherOrder(graph, unweighted.gatherOrder) && !hasGatherOrder(graph, 'in')) {
        const start = performance.now();
        await gatherOrder(graph, 'in');
        await device.idle();
        setup = { setup: `gather order prepared in ${(performance.now() - start).toFixed(1)} ms untimed` };
      }
      const { iterations } = await pageRank(graph, unweighted);
      const problem = new PageRankProblem(graph, unweighted);
      return {
        ...setup,
        trace: async () =>
          fromLibrary('pagerank', undefined, (await pageRank(graph, { ...unweighted, trace: true })).trace),
        items: csr.edgeCount * iterations,
        async run(rec) {
          await problem.reset(rec);
          await recordSteps(rec, problem, iterations);
        },
        // Past VALIDATE_ALL_MAX_ARCS the reference run to 1e-9 takes minutes on the host: one step checks instead.
        validate: async () =>
          csr.edgeCount > VALIDATE_ALL_MAX_ARCS
            ? pageRankStepError(
                await problem.result(),
                (v) => csr.offsets[v + 1]! - csr.offsets[v]!,
                (visit) => {
                  for (let u = 0; u < csr.vertexCount; u++) {
                    for (let k = csr.offsets[u]!; k < csr.offsets[u + 1]!; k++) visit(u, csr.targets[k]!);
                  }
                },
              )
            : verifyPageRank(csr, await problem.result(), unweighted),
        destroy: () => problem.destroy(),
      };
    },
    variant,
  );
}

/** Louvain reference runs above this many arcs take minutes: validation then checks modularity() only. */
const LOUVAIN_REFERENCE_MAX_ARCS = 2 ** 22;

/**
 * Louvain (GPU), host-timed: it reads a modularity back after each sweep, so a run is not one recording.
 * Valid when its modularity is that of its partition and, up to 2^22 arcs, at least 0.99 x the reference's.
 * `localMoving: 'sort'` (the ` (sort sweep)` case) times the sweep that sorts the arcs, beside the default
 * hash tables.
 */
function louvainCase(input: GraphInput, localMoving: 'hash' | 'sort' = 'hash'): BenchCase {
  const options = { localMoving };
  return wholeGraphCase(
    'louvain',
    input,
    async (_device, csr, graph) => {
      let last = await louvain(graph, options);
      let want: number | undefined;
      return {
        items: edgesOf(csr),
        hostTimed: true,
        async run() {
          last = await louvain(graph, options);
        },
        async validate() {
          const q = await modularity(graph, last.communities);
          if (Math.abs(q - last.modularity) > 1e-4)
            return `reported modularity ${last.modularity}, partition's ${q}`;
          if (csr.edgeCount > LOUVAIN_REFERENCE_MAX_ARCS) return null;
          want ??= louvainReference(csr).modularity;
          return last.modularity >= 0.99 * want - 1e-4
            ? null
            : `modularity ${last.modularity} < 0.99 x ${want}`;
        },
        destroy() {},
      };
    },
    localMoving === 'sort' ? ' (sort sweep)' : '',
  );
}

/** The first community whose induced subgraph is disconnected, or -1 (host breadth-first search). */
function disconnectedCommunity(csr: HostCsr, comm: Uint32Array): number {
  const seen = new Uint8Array(csr.vertexCount);
  const done = new Set<number>();
  const stack: number[] = [];
  for (let r = 0; r < csr.vertexCount; r++) {
    if (seen[r]) continue;
    if (done.has(comm[r]!)) return comm[r]!;
    done.add(comm[r]!);
    seen[r] = 1;
    stack.push(r);
    while (stack.length > 0) {
      const u = stack.pop()!;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const w = csr.targets[e]!;
        if (!seen[w] && comm[w] === comm[u]) {
          seen[w] = 1;
          stack.push(w);
        }
      }
    }
  }
  return -1;
}

/**
 * Leiden (GPU), host-timed as Louvain. Valid when every community is connected, its modularity is that of
 * its partition and, up to 2^22 arcs, at least 0.99 x `leidenReference`'s (same seed), issue #30's bar.
 * `localMoving: 'sort'` as in {@link louvainCase}.
 */
function leidenCase(input: GraphInput, localMoving: 'hash' | 'sort' = 'hash'): BenchCase {
  const options = { localMoving };
  return wholeGraphCase(
    'leiden',
    input,
    async (_device, csr, graph) => {
      let last = await leiden(graph, options);
      let want: number | undefined;
      return {
        items: edgesOf(csr),
        hostTimed: true,
        async run() {
          last = await leiden(graph, options);
        },
        async validate() {
          const bad = disconnectedCommunity(csr, last.communities);
          if (bad >= 0) return `community ${bad} is disconnected`;
          const q = await modularity(graph, last.communities);
          if (Math.abs(q - last.modularity) > 1e-4)
            return `reported modularity ${last.modularity}, partition's ${q}`;
          if (csr.edgeCount > LOUVAIN_REFERENCE_MAX_ARCS) return null;
          want ??= leidenReference(csr).modularity;
          return last.modularity >= 0.99 * want - 1e-4
            ? null
            : `modularity ${last.modularity} < 0.99 x ${want}`;
        },
        destroy() {},
      };
    },
    localMoving === 'sort' ? ' (sort sweep)' : '',
  );
}

/** The sequential TypeScript Louvain (`louvainReference`) as the CPU baseline, on the same graphs. */
function louvainReferenceCase(input: GraphInput): BenchCase {
  return {
    name: `louvain ${input.label} (reference, CPU)`,
    family: 'algorithms',
    maxItems: () => Math.min(LOUVAIN_REFERENCE_MAX_ARCS, input.maxItems),
    async setup(_device, n, seed) {
      const csr = input.get(n, seed);
      let q = 0;
      return {
        items: edgesOf(csr),
        bytes: 0,
        hostTimed: true,
        async run() {
          q = louvainReference(csr).modularity;
        },
        validate: async () => (q > 0 || csr.edgeCount === 0 ? null : `modularity ${q}`),
        destroy() {},
      };
    },
  };
}

/**
 * Label propagation (GPU), host-timed (a changed count read back per sweep). Valid when its labels equal
 * `labelPropagationReference` on the same colouring (`graphColoring`, seed 1, of the simple undirected
 * graph: the bench graphs are simple); above the reference limit, when every vertex's label is among its
 * neighbours' most frequent. `counting: 'sort'` (the ` (sort count)` case) times the per-class sort beside
 * the default hash tables.
 */
function lpaCase(input: GraphInput, counting: 'hash' | 'sort' = 'hash'): BenchCase {
  const options = { counting };
  return wholeGraphCase(
    'lpa',
    input,
    async (_device, csr, graph) => {
      let last = await labelPropagation(graph, options);
      return {
        items: edgesOf(csr),
        hostTimed: true,
        async run() {
          last = await labelPropagation(graph, options);
        },
        async validate() {
          if (!last.converged) return `not converged after ${last.iterations} sweeps`;
          if (csr.edgeCount <= LOUVAIN_REFERENCE_MAX_ARCS) {
            const { colors } = await graphColoring(graph, { seed: 1 });
            const want = labelPropagationReference(csr, { colors }).labels;
            const v = want.findIndex((l, i) => l !== last.labels[i]);
            return v < 0 ? null : `vertex ${v}: label ${last.labels[v]}, reference ${want[v]}`;
          }
          const freq = new Map<number, number>();
          for (let v = 0; v < csr.vertexCount; v++) {
            freq.clear();
            for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
              const l = last.labels[csr.targets[e]!]!;
              freq.set(l, (freq.get(l) ?? 0) + 1);
            }
            const own = freq.get(last.labels[v]!) ?? 0;
            for (const f of freq.values())
              if (f > own) return `vertex ${v}: its label is not a most frequent`;
          }
          return null;
        },
        destroy() {},
      };
    },
    counting === 'sort' ? ' (sort count)' : '',
  );
}

/** The TypeScript `labelPropagationReference` (networkx's colouring) as the CPU baseline. */
function lpaReferenceCase(input: GraphInput): BenchCase {
  return {
    name: `lpa ${input.label} (reference, CPU)`,
    family: 'algorithms',
    maxItems: () => Math.min(LOUVAIN_REFERENCE_MAX_ARCS, input.maxItems),
    async setup(_device, n, seed) {
      const csr = input.get(n, seed);
      let converged = false;
      return {
        items: edgesOf(csr),
        bytes: 0,
        hostTimed: true,
        // networkx runs until no label changes; meshes take more than the default 100 sweeps.
        async run() {
          converged = labelPropagationReference(csr, { maxIterations: 10_000 }).converged;
        },
        validate: async () => (converged ? null : 'not converged'),
        destroy() {},
      };
    },
  };
}

/** Each undirected edge once (u < v) as a pair: Jaccard over every edge, cuGraph's default pair set. */
function edgePairs(csr: HostCsr): Uint32Array {
  const flat: number[] = [];
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (u < v || csr.directed) flat.push(u, v);
    }
  }
  return Uint32Array.from(flat);
}

/**
 * Jaccard of every edge's endpoints (GPU), host-timed: it checks the graph and reads the scores back. Valid
 * when every common-neighbour count equals the reference's and every score is within 1e-6 (up to 2^22 arcs).
 */
function jaccardCase(input: GraphInput): BenchCase {
  return wholeGraphCase('jaccard', input, async (_device, csr, graph) => {
    const pairs = edgePairs(csr);
    let last = await jaccard(graph, pairs);
    return {
      items: pairs.length / 2,
      hostTimed: true,
      async run() {
        last = await jaccard(graph, pairs);
      },
      async validate() {
        if (csr.edgeCount > LOUVAIN_REFERENCE_MAX_ARCS) return null;
        const want = jaccardReference(csr, pairs);
        for (let i = 0; i < want.score.length; i++) {
          if (last.common[i] !== want.common[i] || Math.abs(last.score[i]! - want.score[i]!) > 1e-6) {
            return `pair ${i}: ${last.common[i]} common, score ${last.score[i]}; expected ${want.common[i]}, ${want.score[i]}`;
          }
        }
        return null;
      },
      destroy() {},
    };
  });
}

/** `jaccardReference` over the same pairs as the CPU baseline; checked against the triangle count. */
function jaccardReferenceCase(input: GraphInput): BenchCase {
  return {
    name: `jaccard ${input.label} (reference, CPU)`,
    family: 'algorithms',
    maxItems: () => Math.min(LOUVAIN_REFERENCE_MAX_ARCS, input.maxItems),
    async setup(_device, n, seed) {
      const csr = input.get(n, seed);
      const pairs = edgePairs(csr);
      let total = 0;
      return {
        items: pairs.length / 2,
        bytes: 0,
        hostTimed: true,
        async run() {
          total = jaccardReference(csr, pairs).common.reduce((a, b) => a + b, 0);
        },
        // Over every edge, the common neighbours add up to three per triangle.
        async validate() {
          const want = csr.directed ? total : 3 * trianglesReference(csr);
          return total === want ? null : `${total} common neighbours over the edges, expected ${want}`;
        },
        destroy() {},
      };
    },
  };
}

/**
 * The gas power iterations: a GPU result and its plain TypeScript reference (f64), per vertex, flattened.
 * `weighted` weighs the adjacency matrix by the graph's u32 weights; otherwise every edge counts 1, as
 * before weights were taken.
 */
const POWER_ITERATIONS = {
  ppr: {
    gpu: async (g: DeviceGraph, _csr: HostCsr, weighted: boolean) => {
      const r = await personalizedPageRank(g, { sources: [0] }, { weight: weighted ? 'weights' : null });
      return { values: [r.ranks], iterations: r.iterations };
    },
    cpu: (csr: HostCsr, weighted: boolean) => {
      const r = personalizedPageRankReference(csr, { sources: [0] }, { weight: weighted ? 'weights' : null });
      return { values: [r.ranks], iterations: r.iterations };
    },
  },
  hits: {
    gpu: async (g: DeviceGraph, _csr: HostCsr, weighted: boolean) => {
      const r = await hits(g, { weight: weighted ? 'weights' : null });
      return { values: [r.hubs, r.authorities], iterations: r.iterations };
    },
    cpu: (csr: HostCsr, weighted: boolean) => {
      const r = hitsReference(csr, { weight: weighted ? 'weights' : null });
      return { values: [r.hubs, r.authorities], iterations: r.iterations };
    },
  },
  katz: {
    // Kronecker hubs need alpha below 1 / the largest eigenvalue (above 1000 at scale 20).
    gpu: async (g: DeviceGraph, csr: HostCsr, weighted: boolean) => {
      const r = await katzCentrality(g, katzOptions(csr, weighted));
      return { values: [r.centrality], iterations: r.iterations };
    },
    cpu: (csr: HostCsr, weighted: boolean) => {
      const r = katzCentralityReference(csr, katzOptions(csr, weighted));
      return { values: [r.centrality], iterations: r.iterations };
    },
  },
  eigenvector: {
    gpu: async (g: DeviceGraph, _csr: HostCsr, weighted: boolean) => {
      const r = await eigenvectorCentrality(g, { maxIterations: 1000, weight: weighted ? 'weights' : null });
      return { values: [r.centrality], iterations: r.iterations };
    },
    cpu: (csr: HostCsr, weighted: boolean) => {
      const r = eigenvectorCentralityReference(csr, {
        maxIterations: 1000,
        weight: weighted ? 'weights' : null,
      });
      return { values: [r.centrality], iterations: r.iterations };
    },
  },
} as const;

/**
 * Katz's alpha: 1e-5 unweighted; weighted, half the inverse of the largest weighted in-degree (a bound on
 * the largest eigenvalue), so that the iteration converges whatever the weights.
 */
function katzOptions(csr: HostCsr, weighted: boolean) {
  if (!weighted || csr.weights === undefined) return { alpha: 1e-5, weight: null };
  const inWeight = new Float64Array(csr.vertexCount);
  for (let e = 0; e < csr.edgeCount; e++) inWeight[csr.targets[e]!]! += csr.weights[e]!;
  let largest = 1;
  for (const x of inWeight) largest = Math.max(largest, x);
  return { alpha: 0.5 / largest, weight: 'weights' as const };
}

/** Every value within 1e-4 of the largest (f32 sums; the stopping iteration may differ by one). */
function comparePower(got: ArrayLike<number>[], want: ArrayLike<number>[]): string | null {
  for (const [k, w] of want.entries()) {
    let largest = 0;
    for (let v = 0; v < w.length; v++) largest = Math.max(largest, Math.abs(w[v]!));
    for (let v = 0; v < w.length; v++) {
      if (!(Math.abs(got[k]![v]! - w[v]!) <= 1e-4 * largest))
        return `vertex ${v}: ${got[k]![v]}, expected ${w[v]}`;
    }
  }
  return null;
}

/**
 * A gas power iteration end to end (setup, the enactor's batches with their status words, the result's
 * download: wall-clock timed), and its TypeScript reference as the CPU baseline; items are arcs x iterations
 * (HITS walks each arc twice an iteration).
 */
function powerIterationCases(
  algo: keyof typeof POWER_ITERATIONS,
  input: GraphInput,
  weighted = false,
): BenchCase[] {
  const { gpu, cpu } = POWER_ITERATIONS[algo];
  const perIteration = (csr: HostCsr) => (algo === 'hits' ? 2 : 1) * csr.edgeCount;
  const variant = weighted ? ' (u32 weights)' : '';
  const gpuCase = wholeGraphCase(
    algo,
    input,
    async (_device, csr, graph) => {
      let last = await gpu(graph, csr, weighted);
      return {
        items: perIteration(csr) * last.iterations,
        hostTimed: true,
        async run() {
          last = await gpu(graph, csr, weighted);
        },
        validate: async () => comparePower(last.values, cpu(csr, weighted).values),
        destroy() {},
      };
    },
    variant,
  );
  const cpuCase: BenchCase = {
    name: `${algo} ${input.label}${variant} (TypeScript reference, CPU)`,
    family: 'algorithms',
    maxItems: () => Math.min(input.maxItems, 1 << 24),
    async setup(_device, n, seed) {
      const csr = input.get(n, seed);
      let last = cpu(csr, weighted);
      return {
        items: perIteration(csr) * last.iterations,
        bytes: 0,
        hostTimed: true,
        ...(input.stats ? { graph: input.stats } : {}),
        async run() {
          last = cpu(csr, weighted);
        },
        validate: async () => (last.values[0]!.length === csr.vertexCount ? null : 'wrong length'),
        destroy() {},
      };
    },
  };
  return [gpuCase, cpuCase];
}

/** Each power iteration's recordable problem, built as its `POWER_ITERATIONS` run builds it, and its values. */
const POWER_PROBLEMS: Record<
  keyof typeof POWER_ITERATIONS,
  (
    g: DeviceGraph,
    csr: HostCsr,
    weighted: boolean,
  ) => Promise<{ problem: PowerIterationProblem<unknown>; values(): Promise<Float32Array[]> }>
> = {
  ppr: async (g, _csr, weighted) => {
    const problem = await personalizedPageRankProblem(
      g,
      { sources: [0] },
      { weight: weighted ? 'weights' : null },
    );
    return { problem, values: async () => [(await problem.result()).ranks] };
  },
  hits: async (g, _csr, weighted) => {
    const problem = await hitsProblem(g, { weight: weighted ? 'weights' : null });
    return {
      problem,
      values: async () => {
        const r = await problem.result();
        return [r.hubs, r.authorities];
      },
    };
  },
  katz: async (g, csr, weighted) => {
    const problem = await katzCentralityProblem(g, katzOptions(csr, weighted));
    return { problem, values: async () => [(await problem.result()).centrality] };
  },
  eigenvector: async (g, _csr, weighted) => {
    const problem = await eigenvectorCentralityProblem(g, {
      maxIterations: 1000,
      weight: weighted ? 'weights' : null,
    });
    return { problem, values: async () => [(await problem.result()).centrality] };
  },
};

/**
 * A gas power iteration GPU-timed as `pageRankCase` is: the problem's reset and as many steps as a first,
 * untimed run took, in one recording (no status read-back), for a per-iteration time beside PyTorch's SpMV;
 * items are arcs x iterations (HITS: twice the arcs), validated against the TypeScript reference.
 */
function powerIterationStepCase(
  algo: keyof typeof POWER_ITERATIONS,
  input: GraphInput,
  weighted = false,
): BenchCase {
  const { gpu, cpu } = POWER_ITERATIONS[algo];
  const perIteration = (csr: HostCsr) => (algo === 'hits' ? 2 : 1) * csr.edgeCount;
  const variant = `${weighted ? ' (u32 weights)' : ''} (per iteration, GPU-timed)`;
  return wholeGraphCase(
    algo,
    input,
    async (_device, csr, graph) => {
      const { iterations } = await gpu(graph, csr, weighted);
      const { problem, values } = await POWER_PROBLEMS[algo](graph, csr, weighted);
      return {
        items: perIteration(csr) * iterations,
        async run(rec) {
          await problem.reset(rec);
          await recordSteps(rec, problem, iterations);
        },
        validate: async () => comparePower(await values(), cpu(csr, weighted).values),
        destroy: () => problem.destroy(),
      };
    },
    variant,
  );
}

/**
 * Connected components: union-find (the default), or label propagation, the iterative variant: as a cascade
 * where `'auto'` runs one (undirected graphs), on the small-frontier engine (`'on'`), or in bulk levels.
 */
function componentsCase(
  input: GraphInput,
  algorithm: ComponentsAlgorithm = 'union-find',
  smallFrontier: 'auto' | 'on' | 'off' = 'auto',
): BenchCase {
  const how = { auto: '', on: ', small-frontier engine', off: ', bulk levels' }[smallFrontier];
  const variant = algorithm === 'label-propagation' ? ` (label propagation${how})` : '';
  return wholeGraphCase(
    'cc',
    input,
    async (_device, csr, graph) => {
      // The replays balance by merge path on every graph; so does the run that counts their steps.
      const options = { algorithm, smallFrontier, loadBalance: 'merge-path' } as const;
      const { iterations, steps: taken } = await connectedComponents(graph, options);
      const problem = new ComponentsProblem(graph, options);
      const validate = async () => {
        const { labels, count } = await problem.result();
        return verifyComponents(csr, labels, count);
      };
      // Union-find finishes in its one step whatever order its atomics land in: no calibration. Bulk label
      // propagation replays a count bounded from the graph. With the engine a step runs many levels, so
      // that bound would replay hundreds of idle steps: the first run's steps with a margin, as SSSP's.
      const bound = algorithm === 'label-propagation' ? Math.max(iterations, labelPropagationSteps(csr)) : 1;
      const steps =
        algorithm === 'union-find'
          ? iterations
          : problem.smallFrontier || problem.cascaded
            ? Math.min(withMargin(taken), bound)
            : bound;
      return {
        // A traced run logs every level, so it runs the levels in bulk (the library refuses the engine).
        trace: async () =>
          fromLibrary('cc', undefined, (await connectedComponents(graph, { algorithm, trace: true })).trace),
        items: edgesOf(csr),
        async run(rec) {
          await problem.reset(rec);
          await recordSteps(rec, problem, steps);
        },
        validate,
        destroy: () => problem.destroy(),
      };
    },
    variant,
  );
}

function trianglesCase(input: GraphInput): BenchCase {
  return wholeGraphCase('triangles', input, async (_device, csr, graph) => {
    const problem = new TrianglesProblem(graph);
    return {
      items: edgesOf(csr),
      run: (rec) => problem.step(rec, 0),
      async validate() {
        const { count } = await problem.result();
        const want = trianglesReference(csr);
        return count === want ? null : `${count} triangles, expected ${want}`;
      },
      destroy: () => problem.destroy(),
    };
  });
}

/**
 * Strongly connected components: rounds of trimming, colouring and backward search with read-backs between
 * them, so the whole call is timed by the wall clock (host-timed, as CPU baselines are).
 */
function sccCase(input: GraphInput): BenchCase {
  return wholeGraphCase('scc', input, async (_device, csr, graph) => {
    let last = await stronglyConnectedComponents(graph);
    return {
      items: edgesOf(csr),
      hostTimed: true,
      async run() {
        last = await stronglyConnectedComponents(graph);
      },
      validate: async () => verifyScc(csr, last.labels, last.count),
      destroy() {},
    };
  });
}

/**
 * SSSP as one label-correcting cascade (`Cascade` from `@weft/operators`): the source's workgroup relaxes
 * outward until its queue overflows, and each later step restarts the marked vertices on every workgroup.
 * A comparison for the near-far engine on high-diameter graphs; u32 weights, distances saturate.
 */
function ssspCascadeCase(input: GraphInput): BenchCase {
  return {
    name: `sssp ${input.label} (u32 weights 1-255) cascade`,
    family: 'algorithms',
    maxItems: () => input.maxItems,
    async setup(device, n, seed) {
      const csr = input.get(n, seed);
      const graph = uploaded(device, csr);
      const vertices = pickSources(csr, seed, sourceCount(device));
      const count = Math.max(1, csr.vertexCount);
      const dist = device.array('u32', count, { label: 'cascade sssp distances' });
      const from = device.array('u32', 1, { label: 'cascade sssp source' });
      const d = atomic(dist);
      const cascade = new Cascade(
        graph,
        wgsl`(v: u32) -> bool {
  if (v != ${from}[0]) { return false; }
  atomicStore(&${d}[v], 0u);
  return true;
}`,
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let s = atomicLoad(&${d}[src]) + ${graph.weights!}[edge];
  let nd = select(s, 0xfffffffeu, s == 0xffffffffu);
  if (nd >= atomicLoad(&${d}[dst])) { return false; }
  return nd < atomicMin(&${d}[dst], nd);
}`,
      );
      const reset = async (rec: Recorder, source: number) => {
        await rec.fill(dist, 0xffffffff);
        from.upload(Uint32Array.of(source));
      };
      let source = vertices[0]!;
      let steps = 0;
      const select = once(async (i: number) => {
        source = vertices[i]!;
        const rec = device.recorder({ label: 'cascade sssp reset' });
        await reset(rec, source);
        await rec.submit();
        steps = (await enact(device, cascade)).iterations;
        const got = await dist.download(0, csr.vertexCount);
        const reached = (v: number) => got[v] !== 0xffffffff;
        return { edges: traversedEdges(csr, reached), iterations: steps };
      });
      const { edges: items } = await select(0);
      return {
        items,
        bytes: 0,
        ...(input.stats ? { graph: input.stats } : {}),
        sources: { vertices, select, validateEvery: 1 },
        async run(rec) {
          await reset(rec, source);
          for (let i = 0; i < withMargin(steps); i++) await cascade.step(rec, i);
        },
        validate: async () => {
          const got = await dist.download(0, csr.vertexCount);
          const distances = Float64Array.from(got, (x) => (x === 0xffffffff ? Infinity : x));
          return verifySssp(csr, source, distances);
        },
        destroy() {
          cascade.destroy();
          dist.destroy();
          from.destroy();
          graph.destroy();
        },
      };
    },
  };
}

/**
 * Core numbers on an undirected simple graph (the suite's shapes): replays of the first run's levels, with
 * the level peeling by default or the frontier steps (`peel: 'advance'`).
 */
function kcoreCase(input: GraphInput, peel: 'local' | 'advance' = 'local'): BenchCase {
  const name = peel === 'local' ? 'kcore' : 'kcore (frontier steps)';
  return wholeGraphCase(name, input, async (_device, csr, graph) => {
    const { iterations } = await coreNumber(graph, { peel });
    const problem = peel === 'local' ? new LocalCoreNumberProblem(graph) : new CoreNumberProblem(graph);
    // Frontier steps remove the same vertices whatever order atomics land in, so their count is exact; a
    // level re-runs when a workgroup's queue overflowed, which timing can change, so replays get a quarter
    // more steps (after the last level they find nothing to peel; a replay still short fails validation).
    const steps = peel === 'local' ? iterations + Math.ceil(iterations / 4) + 4 : iterations;
    return {
      items: edgesOf(csr),
      async run(rec) {
        await problem.reset(rec);
        await recordSteps(rec, problem, steps);
      },
      validate: async () => {
        const { core, maxCore } = await problem.result();
        return verifyCoreNumbers(csr, core, maxCore);
      },
      destroy: () => problem.destroy(),
    };
  });
}

/**
 * Minimum spanning forest (Borůvka): one status word is read back per round, so the whole call is timed by
 * the wall clock (host-timed, as CPU baselines are). Items: edges; a directed graph's arcs are read as edges.
 */
function mstCase(input: GraphInput): BenchCase {
  return wholeGraphCase('mst', input, async (_device, csr, graph) => {
    let last = await minimumSpanningForest(graph);
    return {
      items: edgesOf(csr),
      hostTimed: true,
      async run() {
        last = await minimumSpanningForest(graph);
      },
      validate: async () => verifySpanningForest(csr, last.edges, last.weight, last.trees),
      destroy() {},
    };
  });
}

// Directed Kronecker graphs (arcs as generated, duplicates merged): a giant SCC and many small ones.
const directedCache = new Map<string, HostCsr>();
export const kronDirected: GraphInput = {
  label: 'kronecker-directed',
  get(n, seed) {
    const key = `${n}:${seed}`;
    if (!directedCache.has(key)) {
      directedCache.clear();
      const scale = Math.max(4, Math.round(Math.log2(n / 16)));
      const edges = kronecker({ scale, edgeFactor: 16, seed });
      directedCache.set(key, hostCsrFromEdgeList({ ...edges, directed: true }).csr);
    }
    return directedCache.get(key)!;
  },
  maxItems: 2 ** 27,
};

/** Hands `kronDirected` the graph of (n, seed) that `weft graphs --shapes kronecker-directed` wrote. */
export function provideDirectedKronecker(n: number, seed: number, csr: HostCsr): void {
  directedCache.clear();
  directedCache.set(`${n}:${seed}`, csr);
}

const kron = shapeInput('kronecker');
const mesh = shapeInput('grid');
const geometric = shapeInput('geometric');
const roads = shapeInput('road');

/** The default run: each algorithm on the shapes that show its behaviour, at the suite's sizes. */
/**
 * `inner` on a graph whose targets are stored in 2 to 4 chunks (`ChunkedArray`): the device's binding
 * budget is lowered while the case uploads its graph, so the chunked kernels can be compared with the
 * one-binding ones on graphs that fit one binding.
 */
function chunkedCase(inner: BenchCase): BenchCase {
  return {
    ...inner,
    name: `${inner.name} (targets in chunks)`,
    async setup(device, n, seed) {
      device.bindingBudget = 4 * 2 ** Math.max(2, Math.ceil(Math.log2(Math.max(1, n))) - 2);
      try {
        return await inner.setup(device, n, seed);
      } finally {
        device.bindingBudget = device.limits.maxStorageBufferBindingSize;
      }
    },
  };
}

export const cases: BenchCase[] = [
  bfsCase(kron),
  bfsCase(kron, 'auto'),
  bfsCase(kron, 'push', 'merge-path', true),
  bfsCase(kron, 'push', 'merge-path', false, 'depth'),
  bfsCase(mesh),
  bfsCase(mesh, 'push', 'thread-mapped'),
  ssspCase(kron),
  ssspCase(mesh),
  ssspCase(mesh, 'thread-mapped'),
  // Davidson's delta: 32 x mean weight (128) / mean degree (32 on Kronecker, 4 on the grid).
  ssspCase(kron, 'merge-path', 128),
  ssspCase(mesh, 'thread-mapped', 1024),
  bfsCase(roads),
  bfsCase(roads, 'push', 'thread-mapped'),
  bfsCase(roads, 'push', 'thread-mapped', false, 'auto', 'off'),
  // Near-far in the engine with Davidson's delta (about 1536 at the mean degree of 2.6): what `sssp()` runs
  // on a graph's first call.
  ssspCase(roads),
  // Block-local rounds, what `sssp()` runs from a graph's second call: 1024-vertex blocks make about 290
  // workgroups of 512 threads on the road graph; 2048-vertex ones 146 of 1024, more than an H100's 132 SMs.
  ssspBlocksCase(roads),
  ssspBlocksCase(roads, { blockSize: 2048, workgroupSize: 1024 }),
  ssspBlocksCase(roads, { blockSize: 3072, workgroupSize: 1024 }),
  ssspBlocksCase(roads, { blockSize: 4096, workgroupSize: 1024 }),
  ssspBlocksCase(roads, { passes: 4 }),
  ssspBlocksCase(roads, { maxSweeps: 32 }),
  // The same rounds without weights give BFS depths.
  ssspBlocksCase(roads, {}, 'bfs'),
  ssspBlocksCase(roads, { blockSize: 2048, workgroupSize: 1024 }, 'bfs'),
  ssspCascadeCase(roads),
  ssspCase(roads, 'thread-mapped'),
  ssspCase(roads, 'thread-mapped', undefined, 'off'),
  ssspCase(roads, 'thread-mapped', 'off'),
  ssspCase(roads, 'thread-mapped', 1536, 'off'),
  // Narrower buckets: fewer re-relaxations, more threshold moves.
  ssspCase(roads, 'thread-mapped', 64),
  ssspCase(roads, 'thread-mapped', 256),
  ssspCase(roads, 'thread-mapped', 1024),
  pageRankCase(kron),
  pageRankCase(kron, true),
  pageRankCase(mesh),
  pageRankCase(geometric),
  componentsCase(kron),
  componentsCase(mesh),
  componentsCase(geometric),
  componentsCase(kron, 'label-propagation'),
  componentsCase(mesh, 'label-propagation'),
  componentsCase(mesh, 'label-propagation', 'on'),
  componentsCase(roads, 'label-propagation'),
  componentsCase(roads, 'label-propagation', 'on'),
  componentsCase(roads, 'label-propagation', 'off'),
  trianglesCase(kron),
  trianglesCase(mesh),
  trianglesCase(geometric),
  betweennessCase(kron),
  betweennessCase(roads),
  betweennessCase(roads, 'off'),
  sccCase(kron),
  sccCase(kronDirected),
  sccCase(mesh),
  sccCase(roads),
  kcoreCase(kron),
  kcoreCase(kron, 'advance'),
  kcoreCase(roads),
  kcoreCase(roads, 'advance'),
  kcoreCase(mesh),
  kcoreCase(geometric),
  mstCase(kron),
  mstCase(roads),
  mstCase(mesh),
  louvainCase(kron),
  louvainCase(kron, 'sort'),
  louvainCase(roads),
  louvainCase(mesh),
  louvainCase(geometric),
  leidenCase(kron),
  leidenCase(kron, 'sort'),
  leidenCase(mesh),
  louvainReferenceCase(kron),
  louvainReferenceCase(roads),
  louvainReferenceCase(mesh),
  louvainReferenceCase(geometric),
  lpaCase(kron),
  lpaCase(kron, 'sort'),
  lpaCase(roads),
  lpaCase(mesh),
  lpaReferenceCase(kron),
  lpaReferenceCase(mesh),
  jaccardCase(kron),
  jaccardCase(mesh),
  jaccardReferenceCase(kron),
  jaccardReferenceCase(mesh),
  ...(['ppr', 'hits', 'katz', 'eigenvector'] as const).flatMap((a) => powerIterationCases(a, kron)),
  ...(['ppr', 'katz'] as const).flatMap((a) => powerIterationCases(a, roads)),
  ...(['ppr', 'hits', 'katz', 'eigenvector'] as const).flatMap((a) => powerIterationCases(a, kron, true)),
  ...(['ppr', 'hits', 'katz', 'eigenvector'] as const).map((a) => powerIterationStepCase(a, kron)),
  ...(['ppr', 'katz'] as const).map((a) => powerIterationStepCase(a, roads)),
  ...(['ppr', 'hits', 'katz', 'eigenvector'] as const).map((a) => powerIterationStepCase(a, kron, true)),
  chunkedCase(bfsCase(kron)),
  chunkedCase(bfsCase(kron, 'push', 'merge-path', false, 'depth')),
  chunkedCase(bfsCase(mesh, 'push', 'thread-mapped')),
  chunkedCase(pageRankCase(kron)),
  chunkedCase(componentsCase(kron)),
  chunkedCase(kcoreCase(kron)),
  chunkedCase(sccCase(kronDirected)),
  chunkedCase(trianglesCase(mesh)),
  chunkedCase(jaccardCase(kron)),
  chunkedCase(mstCase(kron)),
  chunkedCase(louvainCase(kron)),
  chunkedCase(betweennessCase(kron)),
];

/**
 * Every algorithm on one chosen graph (`--graph`, `--kron`, ...), run at its own size: thread-mapped variants
 * where the largest degree is small (meshes, roads), components and triangles on undirected graphs only.
 */
export function casesForGraph(g: BenchGraph): BenchCase[] {
  const input = selectedInput(g);
  const lowDegree = g.stats.maxDegree <= 32;
  const undirected = !g.csr.directed;
  return [
    bfsCase(input),
    bfsCase(input, 'auto'),
    bfsCase(input, 'push', 'merge-path', true),
    ...(lowDegree
      ? [
          bfsCase(input, 'push', 'thread-mapped'),
          bfsCase(input, 'push', 'thread-mapped', false, 'auto', 'off'),
        ]
      : []),
    ssspCase(input),
    ...(lowDegree
      ? [
          ssspCase(input, 'thread-mapped'),
          ssspCase(input, 'thread-mapped', undefined, 'off'),
          ssspBlocksCase(input),
        ]
      : []),
    pageRankCase(input),
    betweennessCase(input),
    ...(undirected ? [componentsCase(input), trianglesCase(input)] : []),
    sccCase(input),
    ...(undirected ? [kcoreCase(input)] : []),
    mstCase(input),
  ];
}
