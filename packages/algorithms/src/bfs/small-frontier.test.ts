import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { smallFrontierCapacity } from '@weft/operators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { testGraphs, testSources } from '../test-graphs.ts';
import { verifyBfs } from '../verify.ts';
import { bfs } from './bfs.ts';
import type { BfsOptions } from './options.ts';
import { bfsReference } from './reference.ts';

function undirected(vertexCount: number, pairs: [number, number][]): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount,
    src: Uint32Array.from(pairs, (p) => p[0]),
    dst: Uint32Array.from(pairs, (p) => p[1]),
    directed: false,
  }).csr;
}

/**
 * A path of `handle` vertices ending in a hub with `bristles` neighbours, each with a twig, all twigs joined
 * to a knot, then a path of `tail`: from 0 the frontier is one vertex a level, `bristles` for two levels, then
 * one again.
 */
function broom(handle: number, bristles: number, tail: number): HostCsr {
  const pairs: [number, number][] = [];
  for (let i = 0; i + 1 < handle; i++) pairs.push([i, i + 1]);
  const hub = handle - 1;
  const knot = handle + 2 * bristles;
  for (let j = 0; j < bristles; j++) {
    pairs.push([hub, handle + j], [handle + j, handle + bristles + j], [handle + bristles + j, knot]);
  }
  for (let t = 0; t < tail; t++) pairs.push([knot + t, knot + t + 1]);
  return undirected(knot + tail + 1, pairs);
}

const levelsOf = (csr: HostCsr, source: number) => Math.max(...bfsReference(csr, source).depths) + 1;

const MODES: [string, NonNullable<BfsOptions['smallFrontier']>][] = [
  ['on', 'on'],
  ['off', 'off'],
  ['capacity 256, 7 levels a dispatch', { capacity: 256, maxLevels: 7 }],
];

describe('bfs with the small-frontier engine', () => {
  for (const [label, smallFrontier] of MODES) {
    it(`engine ${label}: the corpus and random graphs match the reference (depths, parents, levels)`, () =>
      gpuTest(async (device) => {
        for (const { name, csr } of testGraphs(false, 16)) {
          const graph = uploadGraph(device, csr);
          for (const source of testSources(csr)) {
            const loadBalance = source % 2 === 0 ? 'merge-path' : 'thread-mapped';
            const result = await bfs(graph, source, { parents: true, loadBalance, smallFrontier });
            const where = `${name}, source ${source}, ${loadBalance}`;
            expect(verifyBfs(csr, source, result.depths, result.parents), where).toBeNull();
            expect(result.iterations, `${where}: levels`).toBe(levelsOf(csr, source));
            expect(result.steps, `${where}: steps`).toBeLessThanOrEqual(result.iterations);
          }
          graph.destroy();
        }
      }));
  }

  it('grids and road graphs: few steps for many levels', () =>
    gpuTest(async (device) => {
      const graphs: [string, HostCsr][] = [
        ['grid', hostCsrFromEdgeList(grid({ width: 64, height: 40 })).csr],
        ['road', hostCsrFromEdgeList(road({ width: 70, height: 50, seed: 3 })).csr],
      ];
      for (const [name, csr] of graphs) {
        const graph = uploadGraph(device, csr);
        for (const source of [0, Math.floor(csr.vertexCount / 2)]) {
          const result = await bfs(graph, source, { parents: true });
          expect(verifyBfs(csr, source, result.depths, result.parents), name).toBeNull();
          expect(result.iterations).toBe(levelsOf(csr, source));
          // The engine runs every level in the first step; the bulk level it leaves is empty.
          expect(result.steps, `${name} steps`).toBe(1);
          const off = await bfs(graph, source, { smallFrontier: 'off' });
          expect(off.steps).toBe(off.iterations);
        }
        graph.destroy();
      }
    }));

  for (const capacity of [256, undefined]) {
    it(`a broom: the frontier outgrows the capacity (${capacity ?? 'default'}) mid-run and shrinks again`, () =>
      gpuTest(async (device) => {
        const bristles = (capacity ?? smallFrontierCapacity(device)) + 37;
        const csr = broom(120, bristles, 90);
        const graph = uploadGraph(device, csr);
        const smallFrontier = capacity === undefined ? 'on' : { capacity };
        const result = await bfs(graph, 0, { parents: true, smallFrontier });
        expect(verifyBfs(csr, 0, result.depths, result.parents)).toBeNull();
        expect(result.iterations).toBe(levelsOf(csr, 0));
        // Engine to the bristles, a bulk level to the twigs; too large, a bulk level to the knot; the engine
        // to the end.
        expect(result.steps).toBe(3);
        graph.destroy();
      }));
  }

  it('a grid whose diamond frontier passes the capacity: engine, bulk levels, engine again', () =>
    gpuTest(async (device) => {
      const w = 151;
      const csr = hostCsrFromEdgeList(grid({ width: w, height: w })).csr;
      const graph = uploadGraph(device, csr);
      const source = 75 * w + 75;
      const result = await bfs(graph, source, { parents: true, smallFrontier: { capacity: 256 } });
      expect(verifyBfs(csr, source, result.depths, result.parents)).toBeNull();
      expect(result.iterations).toBe(levelsOf(csr, source));
      expect(result.steps).toBeGreaterThan(1);
      expect(result.steps).toBeLessThan(result.iterations);
      graph.destroy();
    }));

  it('a single vertex, an isolated source, a source in the smaller of two components', () =>
    gpuTest(async (device) => {
      const cases: [HostCsr, number][] = [
        [undirected(1, []), 0],
        [undirected(5, [[0, 1]]), 3],
        [
          undirected(9, [
            [0, 1],
            [1, 2],
            [2, 3],
            [5, 6],
            [6, 7],
          ]),
          7,
        ],
      ];
      for (const [csr, source] of cases) {
        const graph = uploadGraph(device, csr);
        for (const smallFrontier of ['on', { capacity: 256, maxLevels: 1 }] as const) {
          const result = await bfs(graph, source, { parents: true, smallFrontier });
          expect(verifyBfs(csr, source, result.depths, result.parents)).toBeNull();
          expect(result.iterations).toBe(levelsOf(csr, source));
        }
        graph.destroy();
      }
    }));

  it('refuses the engine with variants it cannot run and with a trace, naming the option', () =>
    gpuTest(async (device) => {
      const csr = undirected(3, [[0, 1]]);
      const graph = uploadGraph(device, csr);
      await expect(bfs(graph, 0, { smallFrontier: 'on', claim: 'bitmap' })).rejects.toThrow(/small-frontier/);
      await expect(bfs(graph, 0, { smallFrontier: 'on', direction: 'auto' })).rejects.toThrow(
        /small-frontier/,
      );
      await expect(bfs(graph, 0, { smallFrontier: 'on', trace: true })).rejects.toThrow(/smallFrontier/);
      // 'auto' with a trace: one logged frontier a level.
      const traced = await bfs(graph, 0, { trace: true });
      expect(traced.trace?.frontier).toEqual([1, 1]);
      graph.destroy();
    }));
});
