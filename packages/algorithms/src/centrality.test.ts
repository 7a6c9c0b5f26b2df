import { ConvergenceError, InputError } from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { eigenvectorCentrality, hits, katzCentrality, personalizedPageRank } from './centrality.ts';
import {
  eigenvectorCentralityReference,
  hitsReference,
  katzCentralityReference,
  personalizedPageRankReference,
} from './centrality-reference.ts';
import { disjointUnion, randomFamilies, testGraphs } from './test-graphs.ts';

/**
 * The kernels sum in f32: against the f64 reference after the same iterations, every value lies within
 * `bound` of the largest (tiny values, such as PPR ranks far from the sources, carry the same absolute
 * error, so a per-value relative bound would not hold).
 */
function expectNear(got: ArrayLike<number>, want: ArrayLike<number>, what: string, bound = 2e-6): void {
  expect(got.length, what).toBe(want.length);
  let largest = 0;
  for (let i = 0; i < want.length; i++) largest = Math.max(largest, Math.abs(want[i]!));
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i]! - want[i]!) <= bound * largest)) {
      expect.fail(`${what}: value ${i} is ${got[i]}, want ${want[i]} (within ${bound} x ${largest})`);
    }
  }
}

/** Both converge and agree, or both raise `ConvergenceError` (a path's power iterations converge slowly). */
async function agree<G, R>(gpu: () => Promise<G>, reference: () => R, check: (g: G, r: R) => void) {
  let want: R;
  try {
    want = reference();
  } catch (e) {
    expect(e).toBeInstanceOf(ConvergenceError);
    await expect(gpu()).rejects.toThrow(ConvergenceError);
    return;
  }
  check(await gpu(), want);
}

function csrOf(n: number, pairs: [number, number][], directed: boolean): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(pairs, (p) => p[0]),
    dst: Uint32Array.from(pairs, (p) => p[1]),
    directed,
  }).csr;
}

// networkx 3.6 on a directed graph with a dangling vertex (4) and one without in-edges (3), and on star_graph(4).
const D = csrOf(
  5,
  [
    [0, 1],
    [0, 2],
    [1, 2],
    [2, 0],
    [3, 2],
    [2, 4],
  ],
  true,
);
const STAR = csrOf(
  5,
  [
    [0, 1],
    [0, 2],
    [0, 3],
    [0, 4],
  ],
  false,
);

/** A CSR of weighted arcs (undirected: each pair once, both arcs weighing the same). */
function weightedCsr(
  n: number,
  arcs: [number, number, number][],
  directed: boolean,
  type: 'u32' | 'f32',
): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(arcs, (a) => a[0]),
    dst: Uint32Array.from(arcs, (a) => a[1]),
    weights: type === 'u32' ? Uint32Array.from(arcs, (a) => a[2]) : Float32Array.from(arcs, (a) => a[2]),
    directed,
  }).csr;
}

// networkx 3.6.1 with the 'weight' attribute: D weighted (3 -> 2 weighs 0, so 3 is dangling for PageRank)
// and star_graph(4) with edge 0-i weighing i.
const WD = weightedCsr(
  5,
  [
    [0, 1, 2],
    [0, 2, 0.5],
    [1, 2, 3],
    [2, 0, 1],
    [3, 2, 0],
    [2, 4, 4],
  ],
  true,
  'f32',
);
const WSTAR = weightedCsr(
  5,
  [
    [0, 1, 1],
    [0, 2, 2],
    [0, 3, 3],
    [0, 4, 4],
  ],
  false,
  'u32',
);

/**
 * A disjoint union of small random graphs of every family with u32 or f32 weights, a fifth of them 0 (on
 * both arcs of an undirected edge, as `(u + v) % 5` is symmetric).
 */
function weightedUnion(count: number, seed: number, directed: boolean, type: 'u32' | 'f32') {
  const union = disjointUnion(randomFamilies(count, seed, directed), type, seed);
  const csr = hostCsrFromEdgeList(union.edges).csr;
  const w = csr.weights!;
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      if ((u + csr.targets[e]!) % 5 === 0) w[e] = 0;
    }
  }
  return { csr, firsts: union.firsts };
}

/** Half the inverse of the largest weighted in-degree, which bounds A^T's largest eigenvalue: Katz converges. */
function safeKatzAlpha(csr: HostCsr): number {
  const inWeight = new Float64Array(csr.vertexCount);
  for (let e = 0; e < csr.edgeCount; e++) inWeight[csr.targets[e]!]! += csr.weights![e]!;
  return 0.5 / Math.max(1, ...inWeight);
}

describe('power-iteration centralities on gas', () => {
  it('match networkx on hand-checked tiny graphs', () =>
    gpuTest(async (device) => {
      const d = uploadGraph(device, D, { csc: true });
      const star = uploadGraph(device, STAR);
      const ppr = await personalizedPageRank(d, { sources: [0, 3] });
      expectNear(ppr.ranks, [0.2757084036, 0.1171764434, 0.3314067493, 0.1348608822, 0.1408475215], 'ppr');
      const weighted = await personalizedPageRank(d, { weights: [2, 1, 0, 0, 1] }, { alpha: 0.9 });
      expectNear(weighted.ranks, [0.2828664653, 0.1996525354, 0.3069775583, 0, 0.210503441], 'weighted ppr');
      const h = await hits(d);
      expectNear(h.hubs, [0.4142135606, 0.2928932175, 4.4e-9, 0.2928932175, 0], 'hubs', 1e-6);
      expectNear(h.authorities, [5.3e-9, 0.2928932157, 0.7071067738, 0, 5.3e-9], 'authorities', 1e-6);
      const katz = await katzCentrality(d);
      expectNear(
        katz.centrality,
        [0.442193313, 0.4346918281, 0.5172082407, 0.3904725319, 0.442193313],
        'katz',
      );
      const eig = await eigenvectorCentrality(d);
      expectNear(eig.centrality, [0.4808629409, 0.3629914031, 0.637007775, 1.2898e-6, 0.4808629409], 'eig');
      const starKatz = await katzCentrality(star);
      expectNear(
        starKatz.centrality,
        [0.5368754922, 0.4218307439, 0.4218307439, 0.4218307439, 0.4218307439],
        'star katz',
      );
      const starEig = await eigenvectorCentrality(star);
      expectNear(
        starEig.centrality,
        [0.707106929, 0.3535533167, 0.3535533167, 0.3535533167, 0.3535533167],
        'star eig',
      );
      const starPpr = await personalizedPageRank(star, { sources: [1] });
      expectNear(
        starPpr.ranks,
        [0.4594583377, 0.2476354156, 0.0976354156, 0.0976354156, 0.0976354156],
        'star ppr',
      );
      d.destroy();
      star.destroy();
    }));

  it('match the f64 references on 60 random graphs (families: hubs, blobs, paths, Kronecker), gathered in both orders', () =>
    gpuTest(async (device) => {
      for (const [directed, gatherOrder] of [
        [true, false],
        [false, false],
        [true, true],
        [false, true],
      ] as const) {
        const union = disjointUnion(randomFamilies(30, directed ? 7 : 8, directed), false, 1);
        const csr = hostCsrFromEdgeList(union.edges).csr;
        const graph = uploadGraph(device, csr, { csc: directed });
        const name = `${directed ? 'directed' : 'undirected'}${gatherOrder ? ' in gather order' : ''}`;
        const sources = { sources: [0, 5, union.firsts[7]!] };
        const ppr = await personalizedPageRank(graph, sources, { gatherOrder });
        const pprWant = personalizedPageRankReference(csr, sources);
        expect(ppr.iterations, name).toBe(pprWant.iterations);
        expectNear(ppr.ranks, pprWant.ranks, `${name} ppr`);
        const weights = Float64Array.from({ length: csr.vertexCount }, (_, v) => (v % 3 === 0 ? v % 7 : 0));
        const wppr = await personalizedPageRank(
          graph,
          { weights },
          { alpha: 0.7, tolerance: 1e-8, gatherOrder },
        );
        const wpprWant = personalizedPageRankReference(csr, { weights }, { alpha: 0.7, tolerance: 1e-8 });
        expect(wppr.iterations, name).toBe(wpprWant.iterations);
        expectNear(wppr.ranks, wpprWant.ranks, `${name} weighted ppr`);
        // Hubs of up to 130 leaves: alpha below 1 / the largest eigenvalue.
        const katz = await katzCentrality(graph, { alpha: 0.02, gatherOrder });
        const katzWant = katzCentralityReference(csr, { alpha: 0.02 });
        expect(katz.iterations, name).toBe(katzWant.iterations);
        expectNear(katz.centrality, katzWant.centrality, `${name} katz`);
        const raw = await katzCentrality(graph, { alpha: 0.01, beta: 2, normalized: false, gatherOrder });
        expectNear(
          raw.centrality,
          katzCentralityReference(csr, { alpha: 0.01, beta: 2, normalized: false }).centrality,
          `${name} raw katz`,
        );
        const eig = await eigenvectorCentrality(graph, { maxIterations: 300, gatherOrder });
        const eigWant = eigenvectorCentralityReference(csr, { maxIterations: 300 });
        expect(eig.iterations, name).toBe(eigWant.iterations);
        expectNear(eig.centrality, eigWant.centrality, `${name} eigenvector`);
        const h = await hits(graph, { maxIterations: 300, gatherOrder });
        const hWant = hitsReference(csr, { maxIterations: 300 });
        expect(h.iterations, name).toBe(hWant.iterations);
        expectNear(h.hubs, hWant.hubs, `${name} hubs`);
        expectNear(h.authorities, hWant.authorities, `${name} authorities`);
        graph.destroy();
      }
    }));

  it('handle single vertices, isolated vertices, a long path and dangling vertices', () =>
    gpuTest(async (device) => {
      const pick = /single|isolated|self-loops|path|directed/;
      for (const { name, csr } of testGraphs(false, 0).filter((g) => pick.test(g.name))) {
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const n = csr.vertexCount;
        const sources = { sources: [n - 1] };
        await agree(
          () => personalizedPageRank(graph, sources),
          () => personalizedPageRankReference(csr, sources),
          (g, r) => expectNear(g.ranks, r.ranks, `${name} ppr`),
        );
        await agree(
          () => katzCentrality(graph),
          () => katzCentralityReference(csr),
          (g, r) => expectNear(g.centrality, r.centrality, `${name} katz`),
        );
        await agree(
          () => eigenvectorCentrality(graph),
          () => eigenvectorCentralityReference(csr),
          (g, r) => expectNear(g.centrality, r.centrality, `${name} eigenvector`),
        );
        if (csr.offsets[n]! > 0) {
          await agree(
            () => hits(graph),
            () => hitsReference(csr),
            (g, r) => expectNear(g.hubs, r.hubs, `${name} hubs`),
          );
        } else await expect(hits(graph)).rejects.toThrow(/HITS needs at least one edge/);
        graph.destroy();
      }
    }));

  it('refuse bad input and non-convergence with typed errors', () =>
    gpuTest(async (device) => {
      const d = uploadGraph(device, D, { csc: true });
      await expect(personalizedPageRank(d, { sources: [5] })).rejects.toThrow(InputError);
      await expect(personalizedPageRank(d, { weights: [1, 2] })).rejects.toThrow(/2 weights for 5 vertices/);
      await expect(personalizedPageRank(d, { weights: [0, 0, 0, 0, 0] })).rejects.toThrow(/all zero/);
      await expect(personalizedPageRank(d, { weights: [0, -1, 0, 0, 1] })).rejects.toThrow(
        /weight -1 of vertex 1/,
      );
      await expect(personalizedPageRank(d, { sources: [0] }, { alpha: 2 })).rejects.toThrow(/alpha/);
      await expect(katzCentrality(d, { maxIterations: 0 })).rejects.toThrow(/maxIterations/);
      const clique = uploadGraph(
        device,
        csrOf(
          4,
          [
            [0, 1],
            [0, 2],
            [0, 3],
            [1, 2],
            [1, 3],
            [2, 3],
          ],
          false,
        ),
      );
      const diverging = await katzCentrality(clique, { alpha: 0.5, maxIterations: 200 }).catch((e) => e);
      expect(diverging).toBeInstanceOf(ConvergenceError);
      expect(String(diverging)).toMatch(/katzCentrality did not converge in 200 iterations/);
      expect(() => katzCentralityReference(STAR, { alpha: 0.5 })).toThrow(ConvergenceError);
      await expect(eigenvectorCentrality(clique, { maxIterations: 1 })).rejects.toThrow(
        /eigenvectorCentrality did not converge in 1 iterations/,
      );
      const empty = uploadGraph(device, csrOf(0, [], true), { csc: true });
      await expect(eigenvectorCentrality(empty)).rejects.toThrow(/null graph/);
      expect((await hits(empty)).hubs).toHaveLength(0);
      expect((await katzCentrality(empty)).centrality).toHaveLength(0);
      expect((await personalizedPageRank(empty, { sources: [] })).ranks).toHaveLength(0);
      expect((await hits(empty)).hubs).toHaveLength(0);
      const noCsc = uploadGraph(device, D);
      await expect(katzCentrality(noCsc)).rejects.toThrow(/csc: true/);
      for (const g of [d, clique, empty, noCsc]) g.destroy();
    }));
});

describe('weighted power-iteration centralities (networkx weight semantics)', () => {
  it('weigh Katz and eigenvector centrality by the edge weights only with weight: weights', () =>
    gpuTest(async (device) => {
      const d = uploadGraph(device, WD, { csc: true });
      const star = uploadGraph(device, WSTAR);
      const katz = await katzCentrality(d, { weight: 'weights' });
      expectNear(
        katz.centrality,
        [0.3962801682, 0.426088851, 0.4944734612, 0.3468328372, 0.5446221613],
        'weighted katz',
      );
      // networkx's default is weight=None: the weights do not count unless asked for.
      const plainKatz = await katzCentrality(d);
      expectNear(
        plainKatz.centrality,
        [0.442193313, 0.4346918281, 0.5172082407, 0.3904725319, 0.442193313],
        'default katz',
      );
      const eig = await eigenvectorCentrality(d, { weight: 'weights' });
      expectNear(eig.centrality, [0.2144653813, 0.2247167515, 0.409366085, 1.2e-9, 0.8578615216], 'eig');
      const plainEig = await eigenvectorCentrality(d, { weight: null });
      expectNear(
        plainEig.centrality,
        [0.4808629409, 0.3629914031, 0.637007775, 1.2898e-6, 0.4808629409],
        'eig, weight null',
      );
      const starKatz = await katzCentrality(star, { weight: 'weights' });
      expectNear(
        starKatz.centrality,
        [0.6337242395, 0.2851759863, 0.348548371, 0.4119207557, 0.4752931403],
        'star katz',
      );
      const starEig = await eigenvectorCentrality(star, { weight: 'weights' });
      expectNear(
        starEig.centrality,
        [0.7071072846, 0.129099353, 0.2581987059, 0.3872980589, 0.5163974119],
        'star eig',
      );
      d.destroy();
      star.destroy();
    }));

  it('weigh personalized PageRank and HITS by default, as networkx, and not with weight: null', () =>
    gpuTest(async (device) => {
      const d = uploadGraph(device, WD, { csc: true });
      const star = uploadGraph(device, WSTAR);
      const sources = { sources: [0, 3] };
      expectNear(
        (await personalizedPageRank(d, sources)).ranks,
        [0.2625030529, 0.1785015152, 0.1963520523, 0.229122944, 0.1335204356],
        'weighted ppr',
      );
      expectNear(
        (await personalizedPageRank(d, sources, { weight: null })).ranks,
        [0.2757084036, 0.1171764434, 0.3314067493, 0.1348608822, 0.1408475215],
        'ppr, weight null',
      );
      // networkx's hits always reads the 'weight' attribute: ours weighs by default too.
      const h = await hits(d);
      expectNear(h.hubs, [0, 0, 1, 0, 0], 'weighted hubs', 1e-6);
      expectNear(h.authorities, [0.2, 0, 0, 0, 0.8], 'weighted authorities', 1e-6);
      const plain = await hits(d, { weight: null });
      expectNear(
        plain.hubs,
        [0.4142135606, 0.2928932175, 4.4e-9, 0.2928932175, 0],
        'hubs, weight null',
        1e-6,
      );
      // alpha 0.5: the bipartite star's iteration oscillates less, so f32 and f64 stop together.
      expectNear(
        (await personalizedPageRank(star, { sources: [1] }, { alpha: 0.5, weight: 'weights' })).ranks,
        [0.3333328247, 0.5166667175, 0.0333334351, 0.0500001526, 0.0666668701],
        'star ppr',
      );
      star.destroy();
    }));

  it('match the f64 references on random weighted graphs (u32 and f32 weights, zeros, both directions, both orders)', () =>
    gpuTest(async (device) => {
      for (const directed of [true, false]) {
        for (const [type, gatherOrder] of [
          ['u32', false],
          ['f32', false],
          ['u32', true],
        ] as const) {
          const { csr, firsts } = weightedUnion(10, directed ? 21 : 22, directed, type);
          const graph = uploadGraph(device, csr, { csc: directed });
          const name = `${directed ? 'directed' : 'undirected'} ${type}${gatherOrder ? ' in gather order' : ''}`;
          const weight = 'weights';
          const ordered = { gatherOrder };
          const alpha = safeKatzAlpha(csr);
          const katz = await katzCentrality(graph, { alpha, weight, ...ordered });
          const katzWant = katzCentralityReference(csr, { alpha, weight });
          expect(katz.iterations, name).toBe(katzWant.iterations);
          expectNear(katz.centrality, katzWant.centrality, `${name} katz`);
          const raw = { alpha: alpha / 2, beta: 3, normalized: false, weight } as const;
          expectNear(
            (await katzCentrality(graph, { ...raw, ...ordered })).centrality,
            katzCentralityReference(csr, raw).centrality,
            `${name} raw katz`,
          );
          const sources = { sources: [0, 5, firsts[7]!] };
          const ppr = await personalizedPageRank(graph, sources, ordered);
          const pprWant = personalizedPageRankReference(csr, sources);
          expect(ppr.iterations, name).toBe(pprWant.iterations);
          expectNear(ppr.ranks, pprWant.ranks, `${name} ppr`);
          const weights = Float64Array.from({ length: csr.vertexCount }, (_, v) => (v % 3 === 0 ? v % 7 : 0));
          const alphaTol = { alpha: 0.7, tolerance: 1e-8 };
          const wppr = await personalizedPageRank(graph, { weights }, { ...alphaTol, ...ordered });
          const wpprWant = personalizedPageRankReference(csr, { weights }, alphaTol);
          expect(wppr.iterations, name).toBe(wpprWant.iterations);
          expectNear(wppr.ranks, wpprWant.ranks, `${name} ppr personalized by weights`);
          await agree(
            () => hits(graph, { maxIterations: 300, ...ordered }),
            () => hitsReference(csr, { maxIterations: 300 }),
            (g, r) => {
              expect(g.iterations, name).toBe(r.iterations);
              expectNear(g.hubs, r.hubs, `${name} hubs`);
              expectNear(g.authorities, r.authorities, `${name} authorities`);
            },
          );
          await agree(
            () => eigenvectorCentrality(graph, { weight, maxIterations: 300, ...ordered }),
            () => eigenvectorCentralityReference(csr, { weight, maxIterations: 300 }),
            (g, r) => {
              expect(g.iterations, name).toBe(r.iterations);
              expectNear(g.centrality, r.centrality, `${name} eigenvector`);
            },
          );
          graph.destroy();
        }
      }
    }));

  it('refuse negative weights, and weights asked for on an unweighted graph', () =>
    gpuTest(async (device) => {
      const arcs: [number, number, number][] = [
        [0, 1, 2],
        [1, 2, -1],
        [2, 0, 1],
      ];
      const negative = weightedCsr(3, arcs, true, 'f32');
      const graph = uploadGraph(device, negative, { csc: true });
      const bad =
        /weight -1 of edge 1 -> 2 \(edge 1\) is negative: katzCentrality with weight 'weights' needs/;
      await expect(katzCentrality(graph, { weight: 'weights' })).rejects.toThrow(bad);
      expect(() => katzCentralityReference(negative, { weight: 'weights' })).toThrow(bad);
      await expect(eigenvectorCentrality(graph, { weight: 'weights' })).rejects.toThrow(
        /is negative: eigenvectorCentrality with weight 'weights' needs finite non-negative weights/,
      );
      await expect(personalizedPageRank(graph, { sources: [0] })).rejects.toThrow(
        /is negative: personalizedPageRank needs finite non-negative weights/,
      );
      expect(() => personalizedPageRankReference(negative, { sources: [0] })).toThrow(InputError);
      await expect(hits(graph)).rejects.toThrow(/is negative: hits needs finite non-negative weights/);
      expect(() => hitsReference(negative)).toThrow(InputError);
      expect((await hits(graph, { weight: null })).hubs).toHaveLength(3);
      // Edges that all weigh 0 leave no hub: refused, as a graph without edges is.
      const zero = weightedCsr(
        3,
        [
          [0, 1, 0],
          [1, 2, 0],
        ],
        true,
        'u32',
      );
      const zeroGraph = uploadGraph(device, zero, { csc: true });
      await expect(hits(zeroGraph)).rejects.toThrow(/HITS needs an edge of positive weight/);
      expect(() => hitsReference(zero)).toThrow(/HITS needs an edge of positive weight/);
      expect((await hits(zeroGraph, { weight: null })).hubs).toHaveLength(3);
      zeroGraph.destroy();
      // Unweighted (katz's default, or weight: null), the graph is fine.
      expect((await katzCentrality(graph)).centrality).toHaveLength(3);
      expect((await personalizedPageRank(graph, { sources: [0] }, { weight: null })).ranks).toHaveLength(3);
      const plain = uploadGraph(device, D, { csc: true });
      for (const run of [
        () => katzCentrality(plain, { weight: 'weights' }),
        () => eigenvectorCentrality(plain, { weight: 'weights' }),
        () => personalizedPageRank(plain, { sources: [0] }, { weight: 'weights' }),
        () => hits(plain, { weight: 'weights' }),
      ]) {
        await expect(run()).rejects.toThrow(/weight 'weights' but the graph has no weights/);
      }
      await expect(katzCentrality(plain, { weight: 'w' as 'weights' })).rejects.toThrow(
        /weight must be 'weights' or null/,
      );
      expect(() => eigenvectorCentralityReference(D, { weight: 'weights' })).toThrow(InputError);
      const empty = uploadGraph(device, weightedCsr(0, [], true, 'u32'), { csc: true });
      expect((await katzCentrality(empty, { weight: 'weights' })).centrality).toHaveLength(0);
      await expect(eigenvectorCentrality(empty, { weight: 'weights' })).rejects.toThrow(/null graph/);
      const one = uploadGraph(device, weightedCsr(1, [], false, 'f32'));
      expectNear((await katzCentrality(one, { weight: 'weights' })).centrality, [1], 'one vertex katz');
      expectNear((await eigenvectorCentrality(one, { weight: 'weights' })).centrality, [1], 'one vertex eig');
      expectNear((await personalizedPageRank(one, { sources: [0] })).ranks, [1], 'one vertex ppr');
      await expect(hits(one)).rejects.toThrow(/HITS needs at least one edge/);
      expect((await personalizedPageRank(empty, { sources: [] })).ranks).toHaveLength(0);
      expect((await hits(empty)).hubs).toHaveLength(0);
      for (const g of [graph, plain, empty, one]) g.destroy();
    }));

  it('refuse an undirected graph whose two arcs of an edge weigh differently', () =>
    gpuTest(async (device) => {
      // Arcs as given: 0 -> 1 weighs 2 but 1 -> 0 weighs 3; 1 - 2 twice (parallel), 1 + 4 both ways.
      const csr: HostCsr = {
        vertexCount: 3,
        offsets: Uint32Array.of(0, 1, 4, 6),
        targets: Uint32Array.of(1, 0, 2, 2, 1, 1),
        weights: Float32Array.of(2, 3, 1, 4, 4, 1),
        directed: false,
        edgeCount: 6,
      };
      const graph = uploadGraph(device, csr);
      const bad = /arc 0 -> 1 weighs 2 but 1 -> 0 weighs 3: katzCentrality with weight 'weights' needs/;
      await expect(katzCentrality(graph, { weight: 'weights' })).rejects.toThrow(bad);
      expect(() => katzCentralityReference(csr, { weight: 'weights' })).toThrow(bad);
      await expect(hits(graph)).rejects.toThrow(/arc 0 -> 1 weighs 2 but 1 -> 0 weighs 3: hits needs/);
      await expect(personalizedPageRank(graph, { sources: [0] })).rejects.toThrow(/weighs 2 but/);
      // Unweighted, the graph is fine; with the weights made symmetric, so are the weighted runs.
      expect((await katzCentrality(graph)).centrality).toHaveLength(3);
      const fixed: HostCsr = { ...csr, weights: Float32Array.of(2, 2, 1, 4, 4, 1) };
      const fixedGraph = uploadGraph(device, fixed);
      const want = katzCentralityReference(fixed, { weight: 'weights' }).centrality;
      expectNear((await katzCentrality(fixedGraph, { weight: 'weights' })).centrality, want, 'parallel arcs');
      graph.destroy();
      fixedGraph.destroy();
    }));
});
