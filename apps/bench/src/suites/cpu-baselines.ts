import {
  betweennessReference,
  bfsReference,
  componentsReference,
  coreNumberReference,
  mstReference,
  pageRankReference,
  sccReference,
  verifyBfs,
  verifyComponents,
  verifyCoreNumbers,
  verifyPageRank,
  verifyScc,
  verifySpanningForest,
} from '@weft/algorithms';
import type { WeftDevice } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import * as graphologyModule from 'graphology';
import { connectedComponents as graphologyComponents } from 'graphology-components';
import pagerankModule from 'graphology-metrics/centrality/pagerank.js';
import { bfsFromNode } from 'graphology-traversal';
import type { BenchGraph } from '../graphs.ts';
import type { BenchCase, BenchInstance } from '../types.ts';
import {
  type GraphInput,
  kronDirected,
  makeGraph,
  pickSources,
  type Shape,
  selectedInput,
  sourceCount,
  traversedEdges,
} from './algorithms.ts';

/*
 * CPU baselines in the same run, host-timed on the algorithms suite's graphs, so the table shows what the GPU
 * buys: Weft's plain TypeScript references (the test oracles) and graphology's own algorithms
 * (graphology-traversal's bfsFromNode, graphology-metrics' pagerank, graphology-components), which is what a
 * JavaScript user would otherwise call. Items are counted as the GPU cases count them (BFS: TEPS edges from
 * the same seeded sources, at most 8 of them; PageRank: arcs x the reference's iteration count, so items/s
 * compares the time to the same validated solution; CC: undirected edges). graphology's results are validated
 * against our references (PageRank within the verifier's 1e-4 relative tolerance). Small and medium graphs
 * only: above 2^22 arcs (graphology) or 2^24 (references) a run takes seconds and graphology's graph object
 * gigabytes.
 */

// graphology's typings are CommonJS-style: under NodeNext the class is the namespace's `default`.
const { default: Graph } = graphologyModule;
type Graph = InstanceType<typeof Graph>;
const pagerank = pagerankModule as unknown as (
  graph: Graph,
  options: { getEdgeWeight: null; tolerance: number; maxIterations: number },
) => Record<string, number>;

const MAX_ARCS_REFERENCE = 2 ** 24;
export const MAX_ARCS_GRAPHOLOGY = 2 ** 22;
/** CPU BFS runs from the first sources of the GPU cases' list, at most this many (host time). */
const MAX_CPU_SOURCES = 8;

type Algo = 'bfs' | 'pagerank' | 'cc' | 'bc' | 'scc' | 'kcore' | 'mst';

interface Runner {
  /** Untimed preparation (graphology: building its graph object). */
  prepare?(csr: HostCsr): unknown;
  /** One timed run; returns the check of its output. */
  run(csr: HostCsr, source: number, prepared: unknown): () => string | null;
  items(csr: HostCsr, source: number): number;
}

function baseline(algo: Algo, tool: string, input: GraphInput, runner: Runner, maxArcs: number): BenchCase {
  return {
    name: `${algo} ${input.label} (${tool}, CPU)`,
    family: 'algorithms',
    maxItems: () => Math.min(maxArcs, input.maxItems),
    async setup(device: WeftDevice, n: number, seed: number): Promise<BenchInstance> {
      const csr = input.get(n, seed);
      if (csr.edgeCount > maxArcs) {
        throw new Error(`${csr.edgeCount} arcs: CPU baselines run up to ${maxArcs} arcs`);
      }
      const prepared = runner.prepare?.(csr);
      const vertices = pickSources(csr, seed, Math.min(MAX_CPU_SOURCES, sourceCount(device)));
      let source = vertices[0]!;
      let check = runner.run(csr, source, prepared);
      const select = async (i: number) => {
        source = vertices[i]!;
        return { edges: runner.items(csr, source) };
      };
      return {
        items: runner.items(csr, source),
        bytes: 0,
        hostTimed: true,
        ...(input.stats ? { graph: input.stats } : {}),
        ...(algo === 'bfs' || algo === 'bc' ? { sources: { vertices, select } } : {}),
        async run() {
          check = runner.run(csr, source, prepared);
        },
        validate: async () => check(),
        destroy() {},
      };
    },
  };
}

const bfsItems = (csr: HostCsr, source: number) => {
  const { depths } = bfsReference(csr, source);
  return traversedEdges(csr, (v) => depths[v]! >= 0);
};
const pageRankItems = (csr: HostCsr) => csr.edgeCount * pageRankReference(csr, { weight: null }).iterations;
const ccItems = (csr: HostCsr) => (csr.directed ? csr.edgeCount : csr.edgeCount / 2);

const reference: Record<Algo, Runner> = {
  bfs: {
    run(csr, source) {
      const { depths } = bfsReference(csr, source);
      return () => verifyBfs(csr, source, depths);
    },
    items: bfsItems,
  },
  pagerank: {
    run(csr) {
      const { ranks } = pageRankReference(csr, { weight: null });
      return () => verifyPageRank(csr, ranks, { weight: null });
    },
    items: pageRankItems,
  },
  cc: {
    run(csr) {
      const { labels } = componentsReference(csr);
      return () => verifyComponents(csr, labels);
    },
    items: ccItems,
  },
  // Brandes from one source (the GPU case's run); the reference is the oracle, so the check is a sanity one.
  bc: {
    run(csr, source) {
      const values = betweennessReference(csr, { sources: [source] });
      return () => {
        const v = values.findIndex((x, i) => i !== source && !(x >= 0 && Number.isFinite(x)));
        return v < 0 ? null : `betweenness of vertex ${v} is ${values[v]}`;
      };
    },
    items: bfsItems,
  },
  scc: {
    run(csr) {
      const { labels, count } = sccReference(csr);
      return () => verifyScc(csr, labels, count);
    },
    items: ccItems,
  },
  kcore: {
    run(csr) {
      const { core, maxCore } = coreNumberReference(csr);
      return () => verifyCoreNumbers(csr, core, maxCore);
    },
    items: ccItems,
  },
  // Kruskal; the verifier runs Kruskal again, so the check is a sanity one (the forest spans and is acyclic).
  mst: {
    run(csr) {
      const { edges, weight, trees } = mstReference(csr);
      return () => verifySpanningForest(csr, edges, weight, trees);
    },
    items: ccItems,
  },
};

/** A graphology graph with nodes '0'..'n-1' and the CSR's edges (an undirected edge added once). */
function toGraphology(csr: HostCsr): Graph {
  const g = new Graph({
    type: csr.directed ? 'directed' : 'undirected',
    multi: false,
    allowSelfLoops: false,
  });
  for (let v = 0; v < csr.vertexCount; v++) g.addNode(String(v));
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      if (csr.directed || u < v) g.addEdge(String(u), String(v));
    }
  }
  return g;
}

const graphology: Record<'bfs' | 'pagerank' | 'cc', Runner> = {
  bfs: {
    prepare: toGraphology,
    run(csr, source, g) {
      const depths = new Int32Array(csr.vertexCount).fill(-1);
      bfsFromNode(g as Graph, String(source), (key, _attributes, depth) => {
        depths[Number(key)] = depth;
      });
      return () => verifyBfs(csr, source, depths);
    },
    items: bfsItems,
  },
  pagerank: {
    prepare: toGraphology,
    run(csr, _source, g) {
      // graphology stops when the L1 change is below N x tolerance: 1e-12 lands every vertex within the
      // verifier's 1e-4 relative tolerance at these sizes (its default 1e-6 does not on small ranks).
      const byKey = pagerank(g as Graph, { getEdgeWeight: null, tolerance: 1e-12, maxIterations: 1000 });
      const ranks = new Float64Array(csr.vertexCount);
      for (const key in byKey) ranks[Number(key)] = byKey[key]!;
      return () => verifyPageRank(csr, ranks, { weight: null });
    },
    items: pageRankItems,
  },
  cc: {
    prepare: toGraphology,
    run(csr, _source, g) {
      const components = graphologyComponents(g as Graph);
      return () => {
        const labels = new Uint32Array(csr.vertexCount);
        components.forEach((keys, c) => {
          for (const key of keys) labels[Number(key)] = c;
        });
        return verifyComponents(csr, labels, components.length);
      };
    },
    items: ccItems,
  },
};

function baselinesFor(input: GraphInput, directed: boolean): BenchCase[] {
  const algos = directed ? (['bfs', 'pagerank'] as const) : (['bfs', 'pagerank', 'cc'] as const);
  const referenceOnly = directed ? (['scc', 'mst'] as const) : (['scc', 'kcore', 'mst'] as const);
  return [
    ...algos.flatMap((a) => [
      baseline(a, 'TypeScript reference', input, reference[a], MAX_ARCS_REFERENCE),
      baseline(a, 'graphology', input, graphology[a], MAX_ARCS_GRAPHOLOGY),
    ]),
    baseline('bc', 'TypeScript reference', input, reference.bc, MAX_ARCS_REFERENCE),
    ...referenceOnly.map((a) => baseline(a, 'TypeScript reference', input, reference[a], MAX_ARCS_REFERENCE)),
  ];
}

const kron: GraphInput = {
  label: 'kronecker' satisfies Shape,
  get: (n, seed) => makeGraph('kronecker', n, seed, true),
  maxItems: Number.POSITIVE_INFINITY,
};

// Road graphs: the CPU figure that BFS's many small levels are measured against.
const roads: GraphInput = {
  label: 'road' satisfies Shape,
  get: (n, seed) => makeGraph('road', n, seed, true),
  maxItems: Number.POSITIVE_INFINITY,
};

export const cases: BenchCase[] = [
  ...baselinesFor(kron, false),
  baseline('bfs', 'TypeScript reference', roads, reference.bfs, MAX_ARCS_REFERENCE),
  baseline('bc', 'TypeScript reference', roads, reference.bc, MAX_ARCS_REFERENCE),
  baseline('mst', 'TypeScript reference', roads, reference.mst, MAX_ARCS_REFERENCE),
  baseline('scc', 'TypeScript reference', kronDirected, reference.scc, MAX_ARCS_REFERENCE),
];

/** The baselines on a chosen graph (skipped above their arc limits, as the harness skips any size). */
export function baselinesForGraph(g: BenchGraph): BenchCase[] {
  return baselinesFor(selectedInput(g), g.csr.directed);
}
