import { readdir, readFile } from 'node:fs/promises';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { bytesSource, parseMatrixMarket } from '@weft/graph/io';
import { expectArrayEqual, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { runProblem } from './common.ts';
import { coreNumber, LocalCoreNumberProblem } from './kcore.ts';
import { coreNumberReference } from './kcore-reference.ts';
import { disjointUnion, randomEdges, randomFamilies, testGraphs } from './test-graphs.ts';
import { simpleUndirectedGraph } from './undirected.ts';
import { verifyCoreNumbers } from './verify.ts';

const BALANCES = ['merge-path', 'thread-mapped', 'per-advance'] as const;

/** A CSR of `edges` as given: self-loops and parallel edges kept (symmetrized when undirected). */
function rawCsr(vertexCount: number, edges: [number, number][], directed: boolean): HostCsr {
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

/** Fixed shapes with their largest core number. */
function shapes(): [string, HostCsr, number][] {
  const clique = (n: number, shift = 0) =>
    range(n).flatMap((i) => range(i).map((j): [number, number] => [i + shift, j + shift]));
  const path = range(199).map((i): [number, number] => [i, i + 1]);
  return [
    ['empty', rawCsr(0, [], false), 0],
    ['one vertex', rawCsr(1, [], false), 0],
    ['one vertex with a self-loop', rawCsr(1, [[0, 0]], false), 0],
    ['path 200', rawCsr(200, path, false), 1],
    ['directed path 200', rawCsr(200, path, true), 1],
    ['cycle 200', rawCsr(200, [...path, [199, 0]], false), 2],
    [
      'star 300',
      rawCsr(
        300,
        range(299).map((i) => [0, i + 1]),
        false,
      ),
      1,
    ],
    [
      'complete 20 with loops and both arcs, directed',
      rawCsr(20, [...clique(20), ...clique(20).map(([a, b]): [number, number] => [b, a]), [3, 3]], true),
      19,
    ],
    // A 9-clique with a pendant path, a 5-clique beside it, parallel edges and isolated vertices.
    [
      'nested cores',
      rawCsr(
        40,
        [...clique(9), ...clique(5, 20), [8, 9], [9, 10], [10, 11], [0, 1], [0, 1], [11, 11]],
        false,
      ),
      8,
    ],
  ];
}

describe('coreNumber', () => {
  it('matches Batagelj-Zaversnik on fixed shapes', () =>
    gpuTest(async (device) => {
      for (const [i, [name, csr, maxCore]] of shapes().entries()) {
        expect(coreNumberReference(csr).maxCore, `${name}: reference`).toBe(maxCore);
        const graph = uploadGraph(device, csr);
        for (const peel of ['local', 'advance'] as const) {
          const result = await coreNumber(graph, { peel, loadBalance: BALANCES[i % 3]! });
          expect(verifyCoreNumbers(csr, result.core, result.maxCore), `${name}, ${peel}`).toBeNull();
          expect(result.undirected, name).toBe(csr.directed);
        }
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
        const r = await coreNumber(graph);
        expect(verifyCoreNumbers(csr, r.core, r.maxCore), file).toBeNull();
        if (file === 'karate.mtx') expect(r.maxCore).toBe(4);
        graph.destroy();
      }
    }));
  it('matches the reference on the corpus and random graphs, directed ones read as undirected', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 20)) {
        const graph = uploadGraph(device, csr);
        const result = await coreNumber(graph);
        expect(verifyCoreNumbers(csr, result.core, result.maxCore), name).toBeNull();
        graph.destroy();
      }
    }));

  it('finishes levels whose cascades overflow a workgroup queue of 1 or 5 vertices', () =>
    gpuTest(async (device) => {
      const graphs = [
        ...shapes().map(([name, csr]) => ({ name, csr })),
        ...testGraphs(false, 3),
        {
          name: 'families',
          csr: hostCsrFromEdgeList(disjointUnion(randomFamilies(24, 93, false), false, 1).edges).csr,
        },
      ];
      for (const { name, csr } of graphs) {
        const graph = uploadGraph(device, csr);
        const simple = await simpleUndirectedGraph(graph);
        for (const queue of [1, 5]) {
          const problem = new LocalCoreNumberProblem(simple, { queue });
          const run = await runProblem(simple, problem, (rec) => problem.reset(rec), {});
          expect(
            verifyCoreNumbers(csr, run.result.core, run.result.maxCore),
            `${name}, queue ${queue}`,
          ).toBeNull();
        }
        if (simple !== graph) simple.destroy();
        graph.destroy();
      }
    }));

  it('matches the reference on 240 seeded graphs of five families with loops and duplicates, batched', () =>
    gpuTest(async (device) => {
      for (const directed of [true, false]) {
        const union = disjointUnion(randomFamilies(120, directed ? 91 : 92, directed), false, 1);
        const { csr } = hostCsrFromEdgeList(union.edges, { dedupe: 'none', keepSelfLoops: true });
        const graph = uploadGraph(device, csr);
        for (const peel of ['local', 'advance'] as const) {
          const result = await coreNumber(graph, { peel, loadBalance: 'per-advance' });
          expect(
            verifyCoreNumbers(csr, result.core, result.maxCore),
            `${directed ? 'directed' : 'undirected'}, ${peel}`,
          ).toBeNull();
        }
        graph.destroy();
      }
    }));
});

describe('coreNumberReference', () => {
  it('agrees with naive peeling on small random graphs', () => {
    for (let seed = 0; seed < 30; seed++) {
      const n = 1 + 2 * seed;
      const { csr } = hostCsrFromEdgeList(randomEdges(n, n * 3, seed, seed % 2 === 0));
      const adj = range(n).map(() => new Set<number>());
      for (let u = 0; u < n; u++) {
        for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
          const v = csr.targets[e]!;
          if (u !== v) {
            adj[u]!.add(v);
            adj[v]!.add(u);
          }
        }
      }
      // The k-core: repeatedly drop vertices of degree below k; a vertex's core is the last k it survives.
      const want = new Uint32Array(n);
      for (let k = 1; k <= n; k++) {
        const alive = new Set(range(n));
        for (let changed = true; changed; ) {
          changed = false;
          for (const v of alive) {
            if ([...adj[v]!].filter((w) => alive.has(w)).length < k) {
              alive.delete(v);
              changed = true;
            }
          }
        }
        for (const v of alive) want[v] = k;
      }
      expectArrayEqual(coreNumberReference(csr).core, want, `seed ${seed}`);
    }
  });
});
