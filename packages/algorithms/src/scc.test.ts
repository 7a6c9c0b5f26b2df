import { readdir, readFile } from 'node:fs/promises';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { bytesSource, parseMatrixMarket } from '@weft/graph/io';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { stronglyConnectedComponents } from './scc.ts';
import { sccReference } from './scc-reference.ts';
import { disjointUnion, randomEdges, randomFamilies, testGraphs } from './test-graphs.ts';
import { verifyScc } from './verify.ts';

/** A CSR of `edges` as given: self-loops and parallel edges kept. */
function rawCsr(vertexCount: number, edges: [number, number][], directed = true): HostCsr {
  return hostCsrFromEdgeList(
    {
      vertexCount,
      src: Uint32Array.from(edges, (e) => e[0]),
      dst: Uint32Array.from(edges, (e) => e[1]),
      directed,
    },
    { dedupe: 'none', keepSelfLoops: true },
  ).csr;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Fixed shapes with their component counts. */
function shapes(): [string, HostCsr, number][] {
  const cycle = (n: number, shift = 0) =>
    range(n).map((i): [number, number] => [i + shift, ((i + 1) % n) + shift]);
  const complete = (n: number) => range(n).flatMap((i) => range(n).map((j): [number, number] => [i, j]));
  const r = mulberry32(3);
  const shuffled = range(120).sort(() => r() - 0.5);
  return [
    ['empty', rawCsr(0, []), 0],
    ['one vertex', rawCsr(1, []), 1],
    ['one vertex with a self-loop', rawCsr(1, [[0, 0]]), 1],
    [
      'path 0 -> 1 -> ... -> 119',
      rawCsr(
        120,
        range(119).map((i) => [i, i + 1]),
      ),
      120,
    ],
    [
      'path 119 -> ... -> 0',
      rawCsr(
        120,
        range(119).map((i) => [i + 1, i]),
      ),
      120,
    ],
    ['cycle 120', rawCsr(120, cycle(120)), 1],
    [
      'cycle through shuffled ids',
      rawCsr(
        120,
        range(120).map((i) => [shuffled[i]!, shuffled[(i + 1) % 120]!]),
      ),
      1,
    ],
    ['complete 12 with loops and both arcs', rawCsr(12, complete(12)), 1],
    [
      'out-star',
      rawCsr(
        200,
        range(199).map((i) => [0, i + 1]),
      ),
      200,
    ],
    [
      'in-star with a cycle through the hub',
      rawCsr(200, [...range(199).map((i): [number, number] => [i + 1, 0]), [0, 5]]),
      199,
    ],
    [
      'DAG: each vertex to the next three',
      rawCsr(
        100,
        range(100).flatMap((i) =>
          [1, 2, 3].filter((d) => i + d < 100).map((d): [number, number] => [i, i + d]),
        ),
      ),
      100,
    ],
    // A chain of 2-cycles: trimming removes nothing, each colouring round finds one component.
    [
      'chain of 2-cycles',
      rawCsr(
        40,
        range(20).flatMap((i) => {
          const e: [number, number][] = [
            [2 * i, 2 * i + 1],
            [2 * i + 1, 2 * i],
          ];
          if (i < 19) e.push([2 * i + 1, 2 * i + 2]);
          return e;
        }),
      ),
      20,
    ],
    [
      'two cycles joined one way, parallel arcs',
      rawCsr(10, [...cycle(5), ...cycle(5, 5), [4, 5], [4, 5], [9, 9]]),
      2,
    ],
    [
      'undirected path',
      rawCsr(
        50,
        range(49).map((i) => [i, i + 1]),
        false,
      ),
      1,
    ],
  ];
}

describe('stronglyConnectedComponents', () => {
  it('labels each component by its smallest vertex on fixed shapes', () =>
    gpuTest(async (device) => {
      for (const [name, csr, count] of shapes()) {
        expect(sccReference(csr).count, `${name}: reference`).toBe(count);
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const result = await stronglyConnectedComponents(graph);
        expect(verifyScc(csr, result.labels, result.count), name).toBeNull();
        graph.destroy();
      }
    }));

  it('matches Tarjan on the corpus and random graphs, directed and undirected', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 12)) {
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const result = await stronglyConnectedComponents(graph);
        expect(verifyScc(csr, result.labels, result.count), name).toBeNull();
        graph.destroy();
      }
    }));

  it('matches the reference on the small real graphs of test-data', () =>
    gpuTest(async (device) => {
      const dir = new URL('../test-data/', import.meta.url);
      for (const file of (await readdir(dir)).filter((f) => f.endsWith('.mtx'))) {
        const bytes = new Uint8Array(await readFile(new URL(file, dir)));
        const { csr } = hostCsrFromEdgeList(await parseMatrixMarket(bytesSource(bytes), { name: file }));
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const r = await stronglyConnectedComponents(graph);
        expect(verifyScc(csr, r.labels, r.count), file).toBeNull();
        graph.destroy();
      }
    }));
  it('matches Tarjan on 240 seeded graphs of five families, batched as one union per direction', () =>
    gpuTest(async (device) => {
      for (const directed of [true, false]) {
        const union = disjointUnion(randomFamilies(120, directed ? 81 : 82, directed), false, 1);
        const { csr } = hostCsrFromEdgeList(union.edges, { dedupe: 'none', keepSelfLoops: true });
        const graph = uploadGraph(device, csr, { csc: directed });
        const result = await stronglyConnectedComponents(graph);
        expect(verifyScc(csr, result.labels, result.count), directed ? 'directed' : 'undirected').toBeNull();
        graph.destroy();
      }
    }));

  it('a directed graph needs its in-edges', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, rawCsr(3, [[0, 1]]));
      await expect(stronglyConnectedComponents(graph)).rejects.toThrow(/csc: true/);
      graph.destroy();
    }));
});

describe('sccReference', () => {
  it('agrees with mutual reachability on small random graphs', () => {
    for (let seed = 0; seed < 30; seed++) {
      const n = 1 + seed;
      const { csr } = hostCsrFromEdgeList(randomEdges(n, Math.floor(n * 1.5), seed, true));
      const reach = range(n).map((s) => {
        const seen = new Uint8Array(n);
        const stack = [s];
        seen[s] = 1;
        while (stack.length > 0) {
          const u = stack.pop()!;
          for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
            const w = csr.targets[e]!;
            if (!seen[w]) {
              seen[w] = 1;
              stack.push(w);
            }
          }
        }
        return seen;
      });
      const want = range(n).map((v) => range(n).find((u) => reach[u]![v] && reach[v]![u])!);
      expectArrayEqual(sccReference(csr).labels, want, `seed ${seed}`);
    }
  });
});
