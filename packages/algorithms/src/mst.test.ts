import { InputError } from '@weft/gpu';
import { type HostCsr, type HostWeights, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { componentsReference } from './components-reference.ts';
import { minimumSpanningForest } from './mst.ts';
import { mstReference } from './mst-reference.ts';
import { verifySpanningForest } from './verify.ts';

type Weights = 'distinct' | 'few' | 'f32' | 'i32' | 'none';

function randomGraph(n: number, m: number, seed: number, kind: Weights, directed = false): HostCsr {
  const r = mulberry32(seed);
  const src = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  const dst = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  const w: Record<Weights, () => HostWeights | undefined> = {
    distinct: () => Uint32Array.from({ length: m }, (_, i) => i * 7919 + 13).sort(() => r() - 0.5),
    few: () => Uint32Array.from({ length: m }, () => Math.floor(r() * 3)),
    f32: () => Float32Array.from({ length: m }, () => Math.fround(r() * 100)),
    i32: () => Int32Array.from({ length: m }, () => Math.floor(r() * 50)),
    none: () => undefined,
  };
  const weights = w[kind]();
  return hostCsrFromEdgeList(
    { vertexCount: n, src, dst, ...(weights ? { weights } : {}), directed },
    { dedupe: 'none', keepSelfLoops: true },
  ).csr;
}

/** Null when `edges` is an acyclic edge set of `csr` that spans each component, else what is wrong. */
function verifyForest(csr: HostCsr, edges: Uint32Array, trees: number): string | null {
  const n = csr.vertexCount;
  const src = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < n; v++) for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) src[e] = v;
  const parent = Uint32Array.from({ length: n }, (_, i) => i);
  const find = (v: number): number => {
    while (parent[v] !== v) v = parent[v]!;
    return v;
  };
  for (const e of edges) {
    const a = find(src[e]!);
    const b = find(csr.targets[e]!);
    if (a === b) return `edge ${e} closes a cycle`;
    parent[Math.max(a, b)] = Math.min(a, b);
  }
  const components = componentsReference(csr).count;
  if (n - edges.length !== components) return `${n - edges.length} trees for ${components} components`;
  if (trees !== components) return `reported ${trees} trees for ${components} components`;
  return null;
}

function cases(): [string, HostCsr][] {
  const withWeights = (edges: ReturnType<typeof grid>, seed: number) => {
    const r = mulberry32(seed);
    return { ...edges, weights: Uint32Array.from(edges.src, () => 1 + Math.floor(r() * 20)) };
  };
  return [
    ['random, distinct weights', randomGraph(2000, 6000, 1, 'distinct')],
    ['random, three weights', randomGraph(1500, 5000, 2, 'few')],
    ['random, f32 weights', randomGraph(1000, 4000, 3, 'f32')],
    ['random, i32 weights', randomGraph(700, 2000, 4, 'i32')],
    ['unweighted (all equal)', randomGraph(1000, 2500, 5, 'none')],
    ['disconnected, sparse', randomGraph(3000, 1200, 6, 'distinct')],
    ['self-loops and duplicates', randomGraph(40, 400, 7, 'few')],
    ['directed, read as undirected', randomGraph(800, 2400, 8, 'f32', true)],
    ['grid 40 x 30', hostCsrFromEdgeList(withWeights(grid({ width: 40, height: 30 }), 9)).csr],
    ['grid, equal weights', hostCsrFromEdgeList(grid({ width: 33, height: 17 })).csr],
    ['road 60 x 50', hostCsrFromEdgeList(road({ width: 60, height: 50, weights: true, seed: 10 })).csr],
    ['one vertex', randomGraph(1, 0, 11, 'distinct')],
    ['no edges', randomGraph(65, 0, 12, 'distinct')],
    ['empty', randomGraph(0, 0, 13, 'distinct')],
  ];
}

describe('minimumSpanningForest', () => {
  it('finds a spanning forest of minimum weight, the one Kruskal finds with ties by edge id', () =>
    gpuTest(async (device) => {
      for (const [name, csr] of cases()) {
        const graph = uploadGraph(device, csr);
        const result = await minimumSpanningForest(graph);
        const want = mstReference(csr);
        expect(verifyForest(csr, result.edges, result.trees), name).toBeNull();
        expect(verifySpanningForest(csr, result.edges, result.weight, result.trees), name).toBeNull();
        expect(result.weight, name).toBeCloseTo(want.weight, 2);
        expect(result.trees, name).toBe(want.trees);
        expectArrayEqual(result.edges, want.edges, `${name} edges`);
        expect(result.undirected, name).toBe(csr.directed);
        graph.destroy();
      }
    }));

  it('refuses negative weights', () =>
    gpuTest(async (device) => {
      const csr = randomGraph(50, 200, 14, 'f32');
      const weights = Float32Array.from(csr.weights!, (w, e) => (e % 5 === 0 ? -1 : w));
      const graph = uploadGraph(device, { ...csr, weights });
      await expect(minimumSpanningForest(graph)).rejects.toThrow(/non-negative/);
      graph.destroy();
    }));

  it('refuses a negative weight on the arc with source > target, which the forest never reads', () =>
    gpuTest(async (device) => {
      // Without de-duplication the list's 1-2 and 2-1 are one undirected edge whose arcs weigh 0 and -1.5.
      const list = (weights: Float32Array | Int32Array) =>
        hostCsrFromEdgeList(
          {
            vertexCount: 4,
            src: Uint32Array.of(0, 1, 2),
            dst: Uint32Array.of(1, 2, 1),
            weights,
            directed: false,
          },
          { dedupe: 'none' },
        ).csr;
      const f32 = list(Float32Array.of(2, 0, -1.5));
      expect([...f32.targets]).toEqual([1, 0, 2, 1]);
      expect([...f32.weights!]).toEqual([2, 2, 0, -1.5]);
      for (const csr of [f32, list(Int32Array.of(2, 0, -1))]) {
        const graph = uploadGraph(device, csr);
        const error = await minimumSpanningForest(graph).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InputError);
        expect((error as Error).message).toMatch(
          /^graph\.weights: weight -1(\.5)? of edge 2 -> 1 \(edge 3\) is negative: minimumSpanningForest needs non-negative weights$/,
        );
        graph.destroy();
      }
    }));
});

describe('verifySpanningForest', () => {
  it("accepts Kruskal's forest and refuses broken ones", () => {
    for (const [name, csr] of cases()) {
      const want = mstReference(csr);
      expect(verifySpanningForest(csr, want.edges, want.weight, want.trees), name).toBeNull();
    }
    const csr = randomGraph(300, 1200, 21, 'distinct');
    const { edges, weight, trees } = mstReference(csr);
    const w = (e: number) => csr.weights![e]!;
    expect(verifySpanningForest(csr, edges, weight, trees + 1)).toMatch(/trees/);
    expect(verifySpanningForest(csr, edges.subarray(1), weight - w(edges[0]!))).toMatch(/forest edges/);
    expect(verifySpanningForest(csr, edges, weight * 1.01)).toMatch(/weigh/);
    const repeated = edges.slice();
    repeated[1] = repeated[0]!;
    expect(verifySpanningForest(csr, repeated, weight)).toMatch(/twice/);
    const outside = edges.slice();
    outside[0] = csr.edgeCount;
    expect(verifySpanningForest(csr, outside, weight)).toMatch(/not an edge/);
    // The reverse arc of a forest edge: not a candidate (the arc with source > target).
    const src = new Uint32Array(csr.edgeCount);
    for (let v = 0; v < csr.vertexCount; v++) src.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
    const reverse = [...Array(csr.edgeCount).keys()].find(
      (e) => src[e] === csr.targets[edges[0]!] && csr.targets[e] === src[edges[0]!],
    )!;
    const swapped = edges.slice();
    swapped[0] = reverse;
    expect(verifySpanningForest(csr, swapped, weight)).toMatch(/not a candidate/);
    // A forest edge swapped for another edge: that one closes a cycle, or the forest is heavier than Kruskal's.
    const inForest = new Set(edges);
    const cands = [...Array(csr.edgeCount).keys()].filter(
      (e) => src[e]! < csr.targets[e]! && !inForest.has(e),
    );
    const extra = Uint32Array.from([...edges.subarray(0, edges.length - 1), cands[0]!]);
    const r = verifySpanningForest(csr, extra, weight - w(edges[edges.length - 1]!) + w(cands[0]!));
    expect(r).toMatch(/cycle|Kruskal/);
  });
});
