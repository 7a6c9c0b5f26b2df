import { InputError } from '@weft/gpu';
import { type HostCsr, type HostEdgeList, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { csrNeighbors } from '@weft/operators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { betweennessCentrality } from './betweenness.ts';
import { bfs } from './bfs/bfs.ts';
import { eigenvectorCentrality, hits, katzCentrality, personalizedPageRank } from './centrality.ts';
import { graphColoring } from './coloring.ts';
import { connectedComponents } from './components.ts';
import { coreNumber } from './kcore.ts';
import { maximalIndependentSet } from './mis.ts';
import { minimumSpanningForest } from './mst.ts';
import { pageRank } from './pagerank.ts';
import { sssp } from './sssp/sssp.ts';
import { verifyPageRank } from './verify.ts';

/*
 * Issue #28's probes through the algorithms, and what the algorithms fuzzer found: each gives the right answer
 * or a one-line InputError. The loader probes are in @weft/graph's io/hostile-corpus.test.ts, the CLI's in
 * cli.test.ts ('weft hostile probes').
 */

const list = (
  n: number,
  arcs: [number, number][],
  weights?: HostEdgeList['weights'],
  directed = true,
): HostEdgeList => ({
  vertexCount: n,
  src: Uint32Array.from(arcs, (a) => a[0]),
  dst: Uint32Array.from(arcs, (a) => a[1]),
  directed,
  ...(weights ? { weights } : {}),
});

/** A CSR as given, unchecked: what a JavaScript caller may hand to uploadGraph. */
const rawCsr = (targets: ArrayLike<number>, weights?: HostCsr['weights']): HostCsr => ({
  vertexCount: 3,
  edgeCount: targets.length,
  offsets: Uint32Array.of(0, 1, 2, targets.length),
  targets: targets as Uint32Array,
  directed: true,
  ...(weights ? { weights } : {}),
});

type Probe = [name: string, run: () => Promise<unknown>, expected: RegExp | ((result: unknown) => void)];

describe('issue #28 probes through the algorithms', () => {
  it('each gives the right answer or one line naming what and where', () =>
    gpuTest(async (device) => {
      const made: { destroy(): void }[] = [];
      const up = (csr: HostCsr) => {
        const graph = uploadGraph(device, csr);
        made.push(graph);
        return graph;
      };
      const built = (edges: HostEdgeList, options = {}) => up(hostCsrFromEdgeList(edges, options).csr);
      const probes: Probe[] = [
        [
          // Was [0, 5, 2, 6] (the truth with negative weights: [0, -8, 2, -7]).
          'SSSP with a negative weight',
          () =>
            sssp(
              built(
                list(
                  4,
                  [
                    [0, 1],
                    [0, 2],
                    [2, 1],
                    [1, 3],
                  ],
                  Int32Array.of(5, 2, -10, 1),
                ),
              ),
              0,
            ),
          /graph\.weights: weight -10 of edge 2 -> 1 \(edge \d\) is negative: SSSP needs finite non-negative/,
        ],
        [
          // Was a "distance" of 4294967292.
          'SSSP with a negative cycle',
          () =>
            sssp(
              built(
                list(
                  2,
                  [
                    [0, 1],
                    [1, 0],
                  ],
                  Float32Array.of(1, -3),
                ),
              ),
              0,
            ),
          /weight -3 of edge 1 -> 0 \(edge 1\) is negative/,
        ],
        [
          // Was [0, 3e9, 4294967294, ...]: saturated sums returned as distances.
          'SSSP with arcs of 3e9',
          () =>
            sssp(
              built(
                list(
                  4,
                  [
                    [0, 1],
                    [1, 2],
                    [2, 3],
                  ],
                  Uint32Array.of(3e9, 3e9, 1),
                ),
              ),
              0,
            ),
          /the distance of vertex 2 reached 2\^32 - 2 \(4294967294\)/,
        ],
        [
          'SSSP with Float64Array weights (narrowed to f32)',
          () =>
            sssp(
              built(
                list(
                  3,
                  [
                    [0, 1],
                    [1, 2],
                  ],
                  Float64Array.of(0.5, 1.25) as never,
                ),
              ),
              0,
            ),
          (r) => expect([...(r as { distances: Float64Array }).distances]).toEqual([0, 0.5, 1.75]),
        ],
        [
          'SSSP on a CSR whose weight is NaN, uploaded without the builder',
          () => sssp(up(rawCsr([1, 2, 0], Float32Array.of(1, Number.NaN, 2))), 0),
          /weight NaN of edge 1 -> 2 \(edge 1\) is NaN/,
        ],
        [
          'a CSR whose targets are an Int32Array holding -1',
          async () => up(rawCsr(Int32Array.of(1, -1, 0))),
          /csr\.targets: csr\.targets\[1\] = -1 is negative/,
        ],
        [
          'minimumSpanningForest with a NaN weight',
          () => minimumSpanningForest(up(rawCsr([1, 2, 0], Float32Array.of(1, Number.NaN, 2)))),
          /weight NaN of edge 1 -> 2 \(edge 1\) is NaN: minimumSpanningForest needs non-negative weights/,
        ],
        [
          // The forest never uses a self-loop, so its weight does not matter.
          'minimumSpanningForest with a negative self-loop',
          () =>
            minimumSpanningForest(
              built(
                list(
                  3,
                  [
                    [0, 0],
                    [0, 1],
                    [1, 2],
                  ],
                  Int32Array.of(-5, 4, 2),
                  false,
                ),
                { keepSelfLoops: true },
              ),
            ),
          (r) => expect(r).toMatchObject({ weight: 6, trees: 1 }),
        ],
        [
          'pageRank with tolerance 0 and maxIterations Infinity',
          () =>
            pageRank(
              built(
                list(3, [
                  [0, 1],
                  [1, 2],
                ]),
              ),
              {
                tolerance: 0,
                maxIterations: Number.POSITIVE_INFINITY,
              },
            ),
          /maxIterations: tolerance 0 with maxIterations Infinity may never stop/,
        ],
      ];
      for (const [name, run, expected] of probes) {
        if (typeof expected === 'function') {
          expected(await run());
          continue;
        }
        const error = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, name).toBeInstanceOf(InputError);
        const message = (error as Error).message;
        expect(message, name).toMatch(expected);
        expect(message.includes('\n'), name).toBe(false);
      }
      for (const graph of made) graph.destroy();
    }));
});

describe('what the algorithms fuzzer found', () => {
  it('pull PageRank on an undirected multigraph: (1, 0) twice and (0, 1) once', () =>
    gpuTest(async (device) => {
      // The builder made two arcs 1 -> 0 and one 0 -> 1, so pulled in-edges were not the out-edges.
      const edges = list(
        2,
        [
          [1, 0],
          [1, 0],
          [0, 1],
        ],
        Int32Array.of(7, 0, 0),
        false,
      );
      const { csr } = hostCsrFromEdgeList(edges, { dedupe: 'none' });
      expect([...csr.offsets]).toEqual([0, 2, 4]);
      const graph = uploadGraph(device, csr);
      for (const direction of ['pull', 'push'] as const) {
        const { ranks } = await pageRank(graph, { direction, weight: null });
        expect(verifyPageRank(csr, ranks, { weight: null }), direction).toBeNull();
        // Weighted: the arcs listed (1, 0) and (0, 1) weigh differently, so each arc carries its own share
        // (the fuzzer's counterexample: pulled, one arc carried the other's).
        const weighted = await pageRank(graph, { direction });
        expect(verifyPageRank(csr, weighted.ranks), `${direction}, weighted`).toBeNull();
      }
      graph.destroy();
    }));
});

describe('weighted undirected PageRank pairs each arc with its reverse', () => {
  it('refuses an undirected CSR whose arc has no reverse, in one line', () =>
    gpuTest(async (device) => {
      // 0 -> 1 and 0 -> 2 listed, only 1 -> 0 back: arc 0 -> 2 has no reverse.
      const csr = {
        vertexCount: 3,
        edgeCount: 3,
        offsets: Uint32Array.of(0, 2, 3, 3),
        targets: Uint32Array.of(1, 2, 0),
        weights: Float32Array.of(1, 2, 1),
        directed: false,
      };
      const graph = uploadGraph(device, csr);
      try {
        const error = await pageRank(graph).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(InputError);
        expect(String((error as Error).message)).toMatch(/arc 1 has no reverse arc/);
        // Unweighted it needs no pairing.
        await expect(pageRank(graph, { weight: null })).resolves.toBeDefined();
      } finally {
        graph.destroy();
      }
    }));
});

describe('option typos, fractions and destroyed graphs', () => {
  // Each ran before: a typo fell back to a default, a fraction was truncated or rounded up, a destroyed
  // graph failed inside a kernel's bind group.
  it('are refused in one line naming the option', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(
        device,
        hostCsrFromEdgeList(
          list(
            4,
            [
              [0, 1],
              [1, 2],
              [2, 3],
              [3, 0],
            ],
            undefined,
            false,
          ),
        ).csr,
      );
      const dead = uploadGraph(device, hostCsrFromEdgeList(list(3, [[0, 1]])).csr);
      dead.destroy();
      const probes: [string, () => Promise<unknown>, RegExp][] = [
        [
          'bfs loadBalance',
          () => bfs(graph, 0, { loadBalance: 'twc' as never }),
          /^loadBalance: loadBalance must be/,
        ],
        [
          'sssp loadBalance',
          () => sssp(graph, 0, { loadBalance: 'twc' as never }),
          /^loadBalance: .*got 'twc'/,
        ],
        [
          'bfs blocks loadBalance',
          () => bfs(graph, 0, { strategy: 'blocks', loadBalance: 'twc' as never }),
          /^loadBalance: .*got 'twc'/,
        ],
        [
          'sssp blocks loadBalance',
          () => sssp(graph, 0, { strategy: 'blocks', loadBalance: 'twc' as never }),
          /^loadBalance: .*got 'twc'/,
        ],
        [
          'betweennessCentrality loadBalance',
          () => betweennessCentrality(graph, { loadBalance: 'twc' as never }),
          /^loadBalance: .*got 'twc'/,
        ],
        [
          'label propagation loadBalance',
          () => connectedComponents(graph, { algorithm: 'label-propagation', loadBalance: 'twc' as never }),
          /^loadBalance: .*got 'twc'/,
        ],
        [
          'coreNumber advance loadBalance',
          () => coreNumber(graph, { peel: 'advance', loadBalance: 'twc' as never }),
          /^loadBalance: .*got 'twc'/,
        ],
        ['bfs direction', () => bfs(graph, 0, { direction: 'pul' as never }), /^direction: .*got 'pul'/],
        ['bfs claim', () => bfs(graph, 0, { claim: 'bitmp' as never }), /^claim: .*got 'bitmp'/],
        [
          'bfs smallFrontier',
          () => bfs(graph, 0, { smallFrontier: 'of' as never }),
          /^smallFrontier: .*got of/,
        ],
        [
          'pageRank maxIterations',
          () => pageRank(graph, { maxIterations: 1.5 }),
          /^maxIterations: .*got 1.5/,
        ],
        [
          'coreNumber peel',
          () => coreNumber(graph, { peel: 'locl' as never }),
          /^peel: coreNumber: .*got 'locl'/,
        ],
        ['graphColoring seed', () => graphColoring(graph, { seed: 1.5 }), /^seed: graphColoring: .*got 1.5/],
        [
          'maximalIndependentSet seed',
          () => maximalIndependentSet(graph, { seed: Number.NaN }),
          /^seed: .*got NaN/,
        ],
        ['connectedComponents destroyed', () => connectedComponents(dead), /^graph: the graph was destroyed/],
        [
          'personalizedPageRank with both',
          () => personalizedPageRank(graph, { sources: [0], weights: [1, 1, 1, 1] } as never),
          /^personalization: .*exactly one/,
        ],
        [
          'personalizedPageRank with an array',
          () => personalizedPageRank(graph, [1, 1, 1, 1] as never),
          /^personalization: .*exactly one/,
        ],
        [
          'sssp weight as text',
          () => sssp(graph, 0, { weight: 'w' as never }),
          /^weight: weight must be a wgsl/,
        ],
      ];
      for (const [name, run, expected] of probes) {
        const error = await run().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error, name).toBeInstanceOf(InputError);
        expect((error as Error).message, name).toMatch(expected);
        expect((error as Error).message.includes('\n'), name).toBe(false);
      }
      // Integer seeds, negative ones included, still run.
      expect((await maximalIndependentSet(graph, { seed: -1 })).size).toBe(2);
      graph.destroy();
    }));
});

describe('tolerance across the PageRank family', () => {
  // pageRank took Infinity (every change passed it: "converged" after one iteration), NaN and the dynamic
  // one likewise; the power iterations already refused them, in the words all now share.
  it('is a finite number >= 0 for pageRank (device and neighbor graphs), ppr, katz, eigenvector and hits', () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(
        list(3, [
          [0, 1],
          [1, 2],
          [2, 0],
        ]),
      ).csr;
      const graph = uploadGraph(device, csr, { csc: true });
      const neighbors = csrNeighbors(graph);
      const runs: [string, (tolerance: number) => Promise<unknown>][] = [
        ['pageRank', (tolerance) => pageRank(graph, { tolerance })],
        ['pageRank on neighbors', (tolerance) => pageRank(neighbors, { tolerance })],
        ['personalizedPageRank', (tolerance) => personalizedPageRank(graph, { sources: [0] }, { tolerance })],
        ['katzCentrality', (tolerance) => katzCentrality(graph, { tolerance })],
        ['eigenvectorCentrality', (tolerance) => eigenvectorCentrality(graph, { tolerance })],
        ['hits', (tolerance) => hits(graph, { tolerance })],
      ];
      try {
        for (const [name, run] of runs) {
          for (const tolerance of [Number.POSITIVE_INFINITY, Number.NaN, -1e-9, Number.NEGATIVE_INFINITY]) {
            await expect(run(tolerance), `${name} ${tolerance}`).rejects.toThrow(
              `tolerance: tolerance must be a finite number >= 0, got ${tolerance}`,
            );
          }
          await run(1e-3);
        }
      } finally {
        graph.destroy();
      }
    }));
});
