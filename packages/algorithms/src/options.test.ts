import { hostCsrFromEdgeList, PartitionedGraph, uploadGraph } from '@weft/graph';
import { expectOptionsRefused, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  BetweennessProblem,
  BfsProblem,
  betweennessCentrality,
  betweennessReference,
  bfs,
  bfsPartitioned,
  ComponentsProblem,
  CoreNumberProblem,
  connectedComponents,
  connectedComponentsPartitioned,
  coreNumber,
  eigenvectorCentrality,
  eigenvectorCentralityProblem,
  eigenvectorCentralityReference,
  graphColoring,
  hits,
  hitsProblem,
  hitsReference,
  jaccardAll,
  jaccardAllReference,
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
  maximalIndependentSet,
  modularity,
  modularityReference,
  PageRankProblem,
  PartitionedBfs,
  pageRank,
  pageRankPartitioned,
  pageRankReference,
  personalizedPageRank,
  personalizedPageRankProblem,
  personalizedPageRankReference,
  readDistances,
  resolveSsspOptions,
  SsspBlocks,
  SsspBlocksProblem,
  SsspProblem,
  sssp,
  ssspPartitioned,
  stronglyConnectedComponents,
  verifyBetweenness,
  verifyPageRank,
} from './index.ts';

describe('@weft/algorithms functions given null or non-object options', () => {
  // Each failed as a TypeError reading the first option (pageRank: "Cannot read properties of null").
  it('throw an InputError naming the function, and leave no arrays behind', () =>
    gpuTest(async (device) => {
      const edges = {
        vertexCount: 4,
        src: Uint32Array.of(0, 1, 2, 3),
        dst: Uint32Array.of(1, 2, 3, 0),
        directed: true,
      };
      const { csr } = hostCsrFromEdgeList(edges);
      const graph = uploadGraph(device, csr, { csc: true });
      const parts = PartitionedGraph.upload([device], csr, { csc: true });
      const distances = device.array('u32', 4);
      const seeds = { sources: [0] };
      const partition = [0, 0, 1, 1];
      const live = device.pool.stats.liveBuffers;
      try {
        await expectOptionsRefused([
          ['bfs', (o) => bfs(graph, 0, o)],
          ['new BfsProblem', (o) => new BfsProblem(graph, o)],
          ['sssp', (o) => sssp(graph, 0, o)],
          ['new SsspProblem', (o) => new SsspProblem(graph, o)],
          ['new SsspBlocksProblem', (o) => new SsspBlocksProblem(undefined as never, o)],
          ['SsspBlocks.prepare', (o) => SsspBlocks.prepare(graph, o)],
          ['readDistances', (o) => readDistances(distances, 4, false, o)],
          ['pageRank', (o) => pageRank(graph, o)],
          ['new PageRankProblem', (o) => new PageRankProblem(graph, o)],
          ['personalizedPageRank', (o) => personalizedPageRank(graph, seeds, o)],
          ['personalizedPageRankProblem', (o) => personalizedPageRankProblem(graph, seeds, o)],
          ['katzCentrality', (o) => katzCentrality(graph, o)],
          ['katzCentralityProblem', (o) => katzCentralityProblem(graph, o)],
          ['eigenvectorCentrality', (o) => eigenvectorCentrality(graph, o)],
          ['eigenvectorCentralityProblem', (o) => eigenvectorCentralityProblem(graph, o)],
          ['hits', (o) => hits(graph, o)],
          ['hitsProblem', (o) => hitsProblem(graph, o)],
          ['betweennessCentrality', (o) => betweennessCentrality(graph, o)],
          ['new BetweennessProblem', (o) => new BetweennessProblem(graph, o)],
          ['connectedComponents', (o) => connectedComponents(graph, o)],
          ['new ComponentsProblem', (o) => new ComponentsProblem(graph, o)],
          ['coreNumber', (o) => coreNumber(graph, o)],
          ['new CoreNumberProblem', (o) => new CoreNumberProblem(graph, o)],
          ['new LocalCoreNumberProblem', (o) => new LocalCoreNumberProblem(graph, o)],
          ['stronglyConnectedComponents', (o) => stronglyConnectedComponents(graph, o)],
          ['graphColoring', (o) => graphColoring(graph, o)],
          ['maximalIndependentSet', (o) => maximalIndependentSet(graph, o)],
          ['labelPropagation', (o) => labelPropagation(graph, o)],
          ['louvain', (o) => louvain(graph, o)],
          ['leiden', (o) => leiden(graph, o)],
          ['modularity', (o) => modularity(graph, partition, o)],
          ['jaccardAll', (o) => jaccardAll(graph, [0, 1], o)],
          ['bfsPartitioned', (o) => bfsPartitioned(parts, 0, o)],
          ['new PartitionedBfs', (o) => new PartitionedBfs(parts, o)],
          ['ssspPartitioned', (o) => ssspPartitioned(parts, 0, o)],
          ['pageRankPartitioned', (o) => pageRankPartitioned(parts, o)],
          ['connectedComponentsPartitioned', (o) => connectedComponentsPartitioned(parts, o)],
          ['pageRankReference', (o) => pageRankReference(csr, o)],
          ['personalizedPageRankReference', (o) => personalizedPageRankReference(csr, seeds, o)],
          ['katzCentralityReference', (o) => katzCentralityReference(csr, o)],
          ['eigenvectorCentralityReference', (o) => eigenvectorCentralityReference(csr, o)],
          ['hitsReference', (o) => hitsReference(csr, o)],
          ['betweennessReference', (o) => betweennessReference(csr, o)],
          ['labelPropagationReference', (o) => labelPropagationReference(csr, o)],
          ['louvainReference', (o) => louvainReference(csr, o)],
          ['leidenReference', (o) => leidenReference(csr, o)],
          ['modularityReference', (o) => modularityReference(csr, partition, o)],
          ['jaccardAllReference', (o) => jaccardAllReference(csr, [0, 1], o)],
          ['verifyPageRank', (o) => verifyPageRank(csr, new Float64Array(4), o)],
          ['verifyBetweenness', (o) => verifyBetweenness(csr, new Float64Array(4), o)],
        ]);
        await expectOptionsRefused([['resolveSsspOptions', (o) => resolveSsspOptions(graph, o)]], true);
        // Refused before anything was allocated.
        expect(device.pool.stats.liveBuffers).toBe(live);
      } finally {
        graph.destroy();
        parts.destroy();
        distances.destroy();
      }
    }));
});
