import {
  type BfsOptions,
  BfsProblem,
  bfs,
  ComponentsProblem,
  connectedComponents,
  PageRankProblem,
  pageRank,
  resolveSsspOptions,
  SsspProblem,
  sssp,
} from '@weft/algorithms';
import { pairWeightFunctor } from '@weft/graph/generators';
import {
  type DeviceBenchGraph,
  verifyBfsOnGpu,
  verifyComponentsStreamed,
  verifyPageRankStreamed,
  verifySsspOnGpu,
} from '../device-graphs.ts';
import type { BenchCase, BenchInstance } from '../types.ts';
import { once, pickSources, recordSteps, sourceCount, withMargin } from './algorithms.ts';

/*
 * BFS, SSSP, PageRank and connected components on a graph built on the GPU (`--kron` beyond one binding):
 * the algorithms suite's rules (Graph500/GAP sources, TEPS edges, replays of the first run's steps), with the
 * graph shared by the cases. Every BFS and SSSP source is validated by Graph500/GAP rules checked on the GPU
 * (a host pass over 2^31 arcs takes minutes); CC and PageRank stream the arcs back chunk by chunk once
 * (`device-graphs.ts`).
 */

/** Graph500's TEPS edges: arcs out of reached vertices, halved (undirected; duplicates count, loops are gone). */
function tepsEdges(g: DeviceBenchGraph, reached: (v: number) => boolean): number {
  let arcs = 0;
  for (let v = 0; v < g.graph.vertexCount; v++) if (reached(v)) arcs += g.offsets[v + 1]! - g.offsets[v]!;
  return arcs / 2;
}

function bfsCase(g: DeviceBenchGraph, direction: 'push' | 'auto'): BenchCase {
  // Claims 'auto': bitmap claims where their level fits the stage's storage buffers, depth claims past that
  // (the 8 target chunks of 2^31 arcs).
  const options: BfsOptions = { direction };
  const variant = direction === 'auto' ? ' direction-optimizing' : '';
  return {
    name: `bfs ${g.name}${variant} (built on the GPU)`,
    family: 'algorithms',
    async setup(device, _n, seed): Promise<BenchInstance> {
      const { graph } = g;
      const vertices = pickSources(
        { vertexCount: graph.vertexCount, offsets: g.offsets },
        seed,
        sourceCount(device),
      );
      const problem = new BfsProblem(graph, options);
      let source = vertices[0]!;
      let steps = 0;
      const select = once(async (i: number) => {
        source = vertices[i]!;
        const r = await bfs(graph, source, options);
        steps = r.steps;
        return { edges: tepsEdges(g, (v) => r.depths[v]! >= 0), iterations: r.iterations };
      });
      const { edges: items } = await select(0);
      return {
        items,
        bytes: 0,
        graph: g.stats,
        sources: { vertices, select, validateEvery: 1 },
        async run(rec) {
          await problem.reset(rec, source);
          await recordSteps(rec, problem, steps);
        },
        validate: async () => verifyBfsOnGpu(g, source, (await problem.result()).depths),
        destroy: () => problem.destroy(),
      };
    },
  };
}

function ssspCase(g: DeviceBenchGraph): BenchCase {
  // Weights computed from each arc's vertex pair (the stored ones, which the validator reads): 8 chunks of
  // targets and 8 of weights in one kernel would exceed the stage's storage buffers.
  const options = { weight: pairWeightFunctor({ seed: g.seed, weights: true }) };
  return {
    name: `sssp ${g.name} (u32 weights 1-255, built on the GPU)`,
    family: 'algorithms',
    async setup(device, _n, seed): Promise<BenchInstance> {
      const { graph } = g;
      const vertices = pickSources(
        { vertexCount: graph.vertexCount, offsets: g.offsets },
        seed,
        sourceCount(device),
      );
      const problem = new SsspProblem(graph, await resolveSsspOptions(graph, options));
      let source = vertices[0]!;
      let steps = 0;
      const select = once(async (i: number) => {
        source = vertices[i]!;
        const r = await sssp(graph, source, options);
        steps = r.steps;
        return { edges: tepsEdges(g, (v) => Number.isFinite(r.distances[v]!)), iterations: r.iterations };
      });
      const { edges: items } = await select(0);
      return {
        items,
        bytes: 0,
        graph: g.stats,
        sources: { vertices, select, validateEvery: 1 },
        async run(rec) {
          await problem.reset(rec, source);
          // A margin for the order atomics land in, as the algorithms suite's SSSP.
          await recordSteps(rec, problem, withMargin(steps));
        },
        validate: async () => verifySsspOnGpu(g, source, (await problem.result()).distances),
        destroy: () => problem.destroy(),
      };
    },
  };
}

function pageRankCase(g: DeviceBenchGraph): BenchCase {
  // Unweighted, as gapbs's pr; edge-sized scratch of the weighted variant would exceed one binding.
  const unweighted = { weight: null };
  return {
    name: `pagerank ${g.name} (built on the GPU)`,
    family: 'algorithms',
    async setup() {
      const { graph } = g;
      const { iterations } = await pageRank(graph, unweighted);
      const problem = new PageRankProblem(graph, unweighted);
      return {
        items: graph.edgeCount * iterations,
        bytes: 0,
        graph: g.stats,
        async run(rec) {
          await problem.reset(rec);
          await recordSteps(rec, problem, iterations);
        },
        validate: async () => verifyPageRankStreamed(g, await problem.result()),
        destroy: () => problem.destroy(),
      };
    },
  };
}

function componentsCase(g: DeviceBenchGraph): BenchCase {
  return {
    name: `cc ${g.name} (built on the GPU)`,
    family: 'algorithms',
    async setup() {
      const { graph } = g;
      const options = { loadBalance: 'merge-path' } as const;
      // Union-find finishes in its one step whatever order its atomics land in.
      const { iterations } = await connectedComponents(graph, options);
      const problem = new ComponentsProblem(graph, options);
      return {
        items: graph.edgeCount / 2,
        bytes: 0,
        graph: g.stats,
        async run(rec) {
          await problem.reset(rec);
          await recordSteps(rec, problem, iterations);
        },
        async validate() {
          const { labels, count } = await problem.result();
          return verifyComponentsStreamed(g, labels, count);
        },
        destroy: () => problem.destroy(),
      };
    },
  };
}

/** The algorithms suite's cases on a graph built on the GPU. */
export function casesForDeviceGraph(g: DeviceBenchGraph): BenchCase[] {
  return [bfsCase(g, 'push'), bfsCase(g, 'auto'), ssspCase(g), pageRankCase(g), componentsCase(g)];
}
