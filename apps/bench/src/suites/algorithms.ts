import {
  BfsProblem,
  bfs,
  ComponentsProblem,
  connectedComponents,
  edgesFrom,
  PageRankProblem,
  pageRank,
  SsspProblem,
  sssp,
  TrianglesProblem,
  trianglesReference,
  verifyBfs,
  verifyComponents,
  verifyPageRank,
  verifySssp,
} from '@weft/algorithms';
import type { Recorder, WeftDevice } from '@weft/gpu';
import { csrFromEdgeList, grid, type HostCsr, kronecker, randomGeometric, uploadGraph } from '@weft/graph';
import type { BenchCase, BenchInstance } from '../types.ts';

/*
 * Graph algorithms on generated graphs. `n` is the target number of directed arcs (CSR edges): Kronecker
 * scale log2(n / 32) with edge factor 16 (Graph500), a square grid of about n / 4 vertices, a random
 * geometric graph of average degree 8. `items` follows Graph500's TEPS: undirected edges in the traversed
 * component (arcs / 2) per run; PageRank counts every arc once per iteration. A run records a whole
 * algorithm (reset included) with as many iterations as the first run needed, which the GPU's empty
 * frontiers make safe to replay: no read-back inside `run`.
 */

export type Shape = 'kronecker' | 'grid' | 'geometric';

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

function generate(shape: Shape, n: number, seed: number, weights: boolean): HostCsr {
  const w = weights ? { weights: true as const } : {};
  if (shape === 'kronecker') {
    const scale = Math.max(4, Math.round(Math.log2(n / 32)));
    return csrFromEdgeList(kronecker({ scale, edgeFactor: 16, seed, ...w })).csr;
  }
  if (shape === 'grid') {
    const side = Math.max(2, Math.round(Math.sqrt(n / 4)));
    return csrFromEdgeList(grid({ width: side, height: side, seed, ...w })).csr;
  }
  return csrFromEdgeList(randomGeometric({ n: Math.max(2, Math.round(n / 8)), avgDegree: 8, seed, ...w }))
    .csr;
}

/**
 * Largest n per shape: Kronecker up to scale 22 (Graph500's 2^22 vertices, 2^27 arcs); the grid to 2^24
 * arcs (a 2048 x 2048 mesh: ~4,000 BFS levels recorded per run, each level's scratch alive until the
 * submit); geometric graphs to 2^25 arcs.
 */
function maxItemsOf(shape: Shape): number {
  return shape === 'kronecker' ? 2 ** 27 : shape === 'grid' ? 2 ** 24 : 2 ** 25;
}

/** A source with out-edges, drawn from `seed` (Graph500 samples non-isolated sources). */
export function pickSource(csr: HostCsr, seed: number): number {
  const n = csr.vertexCount;
  for (let k = 0; k < n; k++) {
    const v = (Math.imul(seed + k, 2654435761) >>> 0) % n;
    if (csr.offsets[v + 1]! > csr.offsets[v]!) return v;
  }
  return 0;
}

/**
 * Steps to replay for algorithms whose iteration count depends on the order atomics land in (label propagation,
 * Bellman-Ford): the first run's count plus a margin, since a replay may need more. Steps after convergence
 * see an empty frontier and dispatch nothing (zero-size indirect dispatches), so the margin costs little.
 */
function withMargin(iterations: number): number {
  return iterations + Math.max(2, Math.ceil(iterations / 2));
}

/** Records `iterations` steps of a problem. */
async function recordSteps(
  rec: Recorder,
  problem: { step(rec: Recorder, iteration: number): Promise<void> },
  iterations: number,
): Promise<void> {
  for (let i = 0; i < iterations; i++) await problem.step(rec, i);
}

type LoadBalance = 'merge-path' | 'thread-mapped';

function bfsCase(
  shape: Shape,
  direction: 'push' | 'auto' = 'push',
  loadBalance: LoadBalance = 'merge-path',
): BenchCase {
  return {
    name: `bfs ${shape}${direction === 'auto' ? ' direction-optimizing' : ''}${loadBalance === 'thread-mapped' ? ' thread-mapped' : ''}`,
    family: 'algorithms',
    maxItems: () => maxItemsOf(shape),
    async setup(device: WeftDevice, n: number, seed: number): Promise<BenchInstance> {
      const csr = makeGraph(shape, n, seed, false);
      const graph = uploadGraph(device, csr);
      const source = pickSource(csr, seed);
      const { iterations, depths } = await bfs(device, graph, source, { direction, loadBalance });
      const problem = new BfsProblem(device, graph, { direction, loadBalance });
      return {
        items: edgesFrom(csr, (v) => depths[v]! >= 0) / 2,
        bytes: 0,
        async run(rec) {
          await problem.reset(rec, source);
          await recordSteps(rec, problem, iterations);
        },
        validate: async () => verifyBfs(csr, source, (await problem.result()).depths),
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

function ssspCase(shape: Shape, loadBalance: LoadBalance = 'merge-path', delta?: number): BenchCase {
  const variant = `${loadBalance === 'thread-mapped' ? ' thread-mapped' : ''}${delta ? ` near-far delta ${delta}` : ''}`;
  const nearFar = delta === undefined ? {} : { delta };
  return {
    name: `sssp ${shape} (u32 weights 1-255)${variant}`,
    family: 'algorithms',
    maxItems: () => maxItemsOf(shape),
    async setup(device, n, seed) {
      const csr = makeGraph(shape, n, seed, true);
      const graph = uploadGraph(device, csr);
      const source = pickSource(csr, seed);
      const { iterations, distances } = await sssp(device, graph, source, { loadBalance, ...nearFar });
      const problem = new SsspProblem(device, graph, { loadBalance, ...nearFar });
      return {
        items: edgesFrom(csr, (v) => Number.isFinite(distances[v]!)) / 2,
        bytes: 0,
        async run(rec) {
          await problem.reset(rec, source);
          await recordSteps(rec, problem, withMargin(iterations));
        },
        validate: async () => verifySssp(csr, source, await problem.result()),
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

function pageRankCase(shape: Shape): BenchCase {
  return {
    name: `pagerank ${shape}`,
    family: 'algorithms',
    maxItems: () => maxItemsOf(shape),
    async setup(device, n, seed) {
      const csr = makeGraph(shape, n, seed, false);
      const graph = uploadGraph(device, csr);
      const { iterations } = await pageRank(device, graph);
      const problem = new PageRankProblem(device, graph);
      return {
        items: csr.edgeCount * iterations,
        bytes: 0,
        async run(rec) {
          await problem.reset(rec);
          await recordSteps(rec, problem, iterations);
        },
        validate: async () => verifyPageRank(csr, await problem.result()),
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

function componentsCase(shape: Shape): BenchCase {
  return {
    name: `cc ${shape}`,
    family: 'algorithms',
    maxItems: () => maxItemsOf(shape),
    async setup(device, n, seed) {
      const csr = makeGraph(shape, n, seed, false);
      const graph = uploadGraph(device, csr);
      const { iterations } = await connectedComponents(device, graph);
      const problem = new ComponentsProblem(device, graph);
      return {
        items: csr.edgeCount / 2,
        bytes: 0,
        async run(rec) {
          await problem.reset(rec);
          await recordSteps(rec, problem, withMargin(iterations));
        },
        async validate() {
          const { labels, count } = await problem.result();
          return verifyComponents(csr, labels, count);
        },
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

function trianglesCase(shape: Shape): BenchCase {
  return {
    name: `triangles ${shape}`,
    family: 'algorithms',
    maxItems: () => maxItemsOf(shape),
    async setup(device, n, seed) {
      const csr = makeGraph(shape, n, seed, false);
      const graph = uploadGraph(device, csr);
      const problem = new TrianglesProblem(device, graph);
      return {
        items: csr.edgeCount / 2,
        bytes: 0,
        run: (rec) => problem.run(rec),
        async validate() {
          const { count } = await problem.result();
          const want = trianglesReference(csr);
          return count === want ? null : `${count} triangles, expected ${want}`;
        },
        destroy() {
          problem.destroy();
          graph.destroy();
        },
      };
    },
  };
}

export const cases: BenchCase[] = [
  bfsCase('kronecker'),
  bfsCase('kronecker', 'auto'),
  bfsCase('grid'),
  bfsCase('grid', 'push', 'thread-mapped'),
  ssspCase('kronecker'),
  ssspCase('grid'),
  ssspCase('grid', 'thread-mapped'),
  // Davidson's delta: 32 x mean weight (128) / mean degree (32 on Kronecker, 4 on the grid).
  ssspCase('kronecker', 'merge-path', 128),
  ssspCase('grid', 'thread-mapped', 1024),
  pageRankCase('kronecker'),
  pageRankCase('geometric'),
  componentsCase('kronecker'),
  componentsCase('geometric'),
  trianglesCase('kronecker'),
  trianglesCase('geometric'),
];
