import {
  bfsReference,
  componentsReference,
  edgesFrom,
  pageRankReference,
  verifyBfs,
  verifyComponents,
  verifyPageRank,
} from '@weft/algorithms';
import type { BenchCase } from '../types.ts';
import { makeGraph, pickSource, type Shape } from './algorithms.ts';

/*
 * CPU baselines in the same run: Weft's plain TypeScript references (the test oracles) on the algorithms suite's
 * graphs, timed on the host, so the table shows what the GPU buys over straightforward JavaScript. Items are
 * counted as the GPU cases count them. Limited to 2^24 arcs: beyond that a run takes seconds.
 */

const MAX_ARCS = 2 ** 24;

function baseline(
  algo: 'bfs' | 'pagerank' | 'cc',
  shape: Shape,
  run: (csr: ReturnType<typeof makeGraph>, source: number) => { items: number; check: () => string | null },
): BenchCase {
  return {
    name: `${algo} ${shape} (TypeScript reference, CPU)`,
    family: 'algorithms',
    maxItems: () => MAX_ARCS,
    async setup(_device, n, seed) {
      const csr = makeGraph(shape, n, seed, false);
      const source = pickSource(csr, seed);
      let last = run(csr, source);
      return {
        items: last.items,
        bytes: 0,
        hostTimed: true,
        async run() {
          last = run(csr, source);
        },
        validate: async () => last.check(),
        destroy() {},
      };
    },
  };
}

export const cases: BenchCase[] = [
  baseline('bfs', 'kronecker', (csr, source) => {
    const { depths } = bfsReference(csr, source);
    return {
      items: edgesFrom(csr, (v) => depths[v]! >= 0) / 2,
      check: () => verifyBfs(csr, source, depths),
    };
  }),
  baseline('pagerank', 'kronecker', (csr) => {
    const { ranks, iterations } = pageRankReference(csr);
    return { items: csr.edgeCount * iterations, check: () => verifyPageRank(csr, ranks) };
  }),
  baseline('cc', 'kronecker', (csr) => {
    const { labels } = componentsReference(csr);
    return { items: csr.edgeCount / 2, check: () => verifyComponents(csr, labels) };
  }),
];
