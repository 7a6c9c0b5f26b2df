// Strongly connected components, core numbers, betweenness and the minimum spanning forest on every real
// graph of ../test-data, compared with networkx's answers in ../test-data/networkx-expected.json (written by
// networkx-expected.py there; CI reads the JSON and needs no Python).
import { readdir, readFile } from 'node:fs/promises';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { bytesSource, parseMatrixMarket } from '@weft/graph/io';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { betweennessCentrality } from './betweenness.ts';
import { coreNumber } from './kcore.ts';
import { minimumSpanningForest } from './mst.ts';
import { stronglyConnectedComponents } from './scc.ts';

interface Expected {
  vertices: number;
  directed: boolean;
  /** Arcs of a directed graph, edges of an undirected one; self-loops and repeats excluded. */
  edges: number;
  scc: { count: number; labels: number[] };
  core: { max: number; values: number[] };
  betweenness: { sources: number[] | null; values: number[] };
  mst: { weight: number; edges: number; trees: number };
}

const DATA = new URL('../test-data/', import.meta.url);
const expected: { networkx: string; graphs: Record<string, Expected> } = JSON.parse(
  await readFile(new URL('networkx-expected.json', DATA), 'utf8'),
);
const files = (await readdir(DATA)).filter((f) => f.endsWith('.mtx')).sort();

/** Labels renamed by first appearance, so two labellings of the same partition compare equal. */
function canonical(labels: ArrayLike<number>): number[] {
  const names = new Map<number, number>();
  return Array.from(labels, (l) => {
    if (!names.has(l)) names.set(l, names.size);
    return names.get(l)!;
  });
}

/** The first vertex whose value is off by more than `rel` of the largest value, or null. */
function firstOff(got: ArrayLike<number>, want: number[], rel: number): string | null {
  const scale = Math.max(1e-12, ...want.map(Math.abs));
  for (let v = 0; v < want.length; v++) {
    if (!(Math.abs(got[v]! - want[v]!) <= rel * Math.max(Math.abs(want[v]!), scale * 1e-3))) {
      return `vertex ${v}: got ${got[v]}, networkx ${want[v]}`;
    }
  }
  return null;
}

describe(`networkx ${expected.networkx} on the real graphs (test-data)`, () => {
  it('has an answer for every file and no other', () => {
    expect(Object.keys(expected.graphs).sort()).toEqual(files);
    // The brief asks for a dozen of each kind; fewer directed ones were found with a licence that allows.
    expect(files.filter((f) => expected.graphs[f]!.directed).length).toBeGreaterThanOrEqual(11);
    expect(files.filter((f) => !expected.graphs[f]!.directed).length).toBeGreaterThanOrEqual(10);
  });

  for (const file of files) {
    it(`${file}: SCC, core numbers, betweenness and minimum spanning forest match networkx`, () =>
      gpuTest(async (device) => {
        const want = expected.graphs[file]!;
        const bytes = await readFile(new URL(file, DATA));
        const edges = await parseMatrixMarket(bytesSource(new Uint8Array(bytes)), { name: file });
        const { csr } = hostCsrFromEdgeList(edges);
        expect(csr.vertexCount, file).toBe(want.vertices);
        expect(csr.directed, file).toBe(want.directed);
        expect(csr.directed ? csr.edgeCount : csr.edgeCount / 2, `${file} edges`).toBe(want.edges);
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        try {
          const scc = await stronglyConnectedComponents(graph);
          expect(scc.count, `${file} scc count`).toBe(want.scc.count);
          expect(canonical(scc.labels), `${file} scc partition`).toEqual(canonical(want.scc.labels));

          const core = await coreNumber(graph);
          expect(core.maxCore, `${file} max core`).toBe(want.core.max);
          expect(Array.from(core.core), `${file} core numbers`).toEqual(want.core.values);

          const sources = want.betweenness.sources;
          const bc = await betweennessCentrality(graph, sources ? { sources } : {});
          // f32 sums against networkx's f64: 1e-4 of the value (or of a thousandth of the largest).
          expect(firstOff(bc.centrality, want.betweenness.values, 1e-4), `${file} betweenness`).toBeNull();

          const mst = await minimumSpanningForest(graph);
          expect(mst.trees, `${file} trees`).toBe(want.mst.trees);
          expect(mst.edges.length, `${file} forest edges`).toBe(want.mst.edges);
          expect(
            Math.abs(mst.weight - want.mst.weight),
            `${file} forest weight ${mst.weight}`,
          ).toBeLessThanOrEqual(1e-5 * Math.max(1, Math.abs(want.mst.weight)));
        } finally {
          graph.destroy();
        }
      }));
  }
});
