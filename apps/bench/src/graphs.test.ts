import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostCsrFromEdgeList } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { loadGraph } from '@weft/graph/node';
import { describe, expect, test } from 'vitest';
import { type GraphSelection, hasSelection, selectGraphs, withSymmetricWeights } from './graphs.ts';
import { graphsCommand, provideWrittenGraphs } from './graphs-command.ts';
import { makeGraph, pickSources, traversedEdges } from './suites/algorithms.ts';

const none: GraphSelection = { graph: [], kron: [], urand: [], rgg: [], grid: [] };
const load = async (path: string) => (await loadGraph(path, { build: {} })).csr;

describe('graph selection', () => {
  test('generators: names, statistics and weights', async () => {
    const graphs = await selectGraphs(
      { ...none, kron: ['6'], urand: ['5'], rgg: ['200'], grid: ['7x3'] },
      1,
      load,
    );
    expect(graphs.map((g) => g.name)).toEqual(['kron-6', 'urand-5', 'rgg-200', 'grid-7x3']);
    const grid = graphs[3]!;
    // 7 x 3 grid: 6*3 + 7*2 = 32 edges, 64 arcs; interior degree 4; no isolated vertex.
    expect(grid.stats).toMatchObject({ vertices: 21, arcs: 64, maxDegree: 4, isolated: 0, directed: false });
    for (const g of graphs) {
      expect(g.csr.weights?.length).toBe(g.csr.edgeCount);
      expect(g.stats.arcs).toBe(g.csr.edgeCount);
      expect(g.stats.weights).toBe('generator');
    }
    expect(graphs[0]!.stats.vertices).toBe(64);
  });

  test('a file: loaded as weft run loads it, unweighted files get symmetric weights', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-bench-graphs-'));
    try {
      const path = join(dir, 'small graph.el');
      await writeFile(path, '0 1\n1 2\n2 0\n2 3\n3 3\n');
      const [g] = await selectGraphs({ ...none, graph: [path] }, 1, load);
      expect(g!.name).toBe('small_graph.el');
      expect(g!.stats).toMatchObject({
        file: path,
        vertices: 4,
        arcs: 4,
        directed: true,
        weights: 'generated',
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('bad values are refused, naming the option', async () => {
    await expect(selectGraphs({ ...none, grid: ['7by3'] }, 1, load)).rejects.toThrow('--grid');
    await expect(selectGraphs({ ...none, kron: ['x'] }, 1, load)).rejects.toThrow('--kron');
    await expect(selectGraphs({ ...none, kron: ['5', '5'] }, 1, load)).rejects.toThrow('twice');
    expect(hasSelection(none)).toBe(false);
    expect(hasSelection({ ...none, rgg: ['9'] })).toBe(true);
  });

  test('symmetric weights: u -> v weighs as v -> u, in [1, 255]', () => {
    const { csr } = hostCsrFromEdgeList({
      vertexCount: 50,
      src: Uint32Array.from({ length: 200 }, (_, i) => (i * 7) % 50),
      dst: Uint32Array.from({ length: 200 }, (_, i) => (i * 13 + 5) % 50),
      directed: false,
    });
    const w = withSymmetricWeights(csr, 3).weights!;
    const of = new Map<string, number>();
    for (let u = 0; u < csr.vertexCount; u++) {
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) of.set(`${u},${csr.targets[e]}`, w[e]!);
    }
    for (const [key, weight] of of) {
      const [u, v] = key.split(',');
      expect(of.get(`${v},${u}`)).toBe(weight);
      expect(weight).toBeGreaterThanOrEqual(1);
      expect(weight).toBeLessThanOrEqual(255);
    }
  });
});

describe('sources and TEPS edges', () => {
  // A path 0-1-2 plus isolated vertices 3..9 and an edge 8-9.
  const { csr } = hostCsrFromEdgeList({
    vertexCount: 10,
    src: Uint32Array.of(0, 1, 8),
    dst: Uint32Array.of(1, 2, 9),
    directed: false,
  });

  test('distinct, seeded, out-degree > 0; fewer when the graph has fewer', () => {
    const s = pickSources(csr, 1, 64);
    expect(new Set(s).size).toBe(s.length);
    expect([...s].sort()).toEqual([0, 1, 2, 8, 9]);
    expect(pickSources(csr, 1, 2)).toEqual(s.slice(0, 2));
    expect(pickSources(csr, 2, 5)).not.toEqual(s);
  });

  test('an undirected edge counts once; a directed arc once', () => {
    expect(traversedEdges(csr, (v) => v <= 2)).toBe(2);
    const directed = hostCsrFromEdgeList({
      vertexCount: 3,
      src: Uint32Array.of(0, 1),
      dst: Uint32Array.of(1, 2),
      directed: true,
    }).csr;
    expect(traversedEdges(directed, () => true)).toBe(2);
  });
});

describe('weft graphs, then bench --graphs-dir', () => {
  test('the suite reads the written graphs of its seed instead of generating them, bit for bit the same', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-graphs-'));
    try {
      expect(await graphsCommand(['--out', dir, '--sizes', '12', '--shapes', 'kronecker,grid'])).toBe(0);
      expect(await provideWrittenGraphs(dir, 2)).toEqual([]);
      const provided = await provideWrittenGraphs(dir, 1);
      expect(provided.map((p) => `${p.shape}-${p.n}`)).toEqual(['kronecker-4096', 'grid-4096']);
      const kron = provided[0]!.csr;
      expect(makeGraph('kronecker', 4096, 1, true)).toBe(kron);
      const fresh = hostCsrFromEdgeList(kronecker({ scale: 7, edgeFactor: 16, seed: 1, weights: true })).csr;
      expect(kron.vertexCount).toBe(fresh.vertexCount);
      expect(kron.directed).toBe(false);
      expect(Array.from(kron.offsets)).toEqual(Array.from(fresh.offsets));
      expect(Array.from(kron.targets)).toEqual(Array.from(fresh.targets));
      expect(Array.from(kron.weights!)).toEqual(Array.from(fresh.weights!));
      // A manifest from before seeds were recorded is refused, not guessed.
      await writeFile(
        join(dir, 'manifest.json'),
        JSON.stringify([{ graph: 'grid', n: 4096, file: 'grid-4096.wcsr' }]),
      );
      await expect(provideWrittenGraphs(dir, 1)).rejects.toThrow(/names no seed/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
