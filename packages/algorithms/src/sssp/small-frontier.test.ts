import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { smallFrontierCapacity } from '@weft/operators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { broom, randomEdges, testGraphs, testSources, undirected } from '../test-graphs.ts';
import { verifySssp } from '../verify.ts';
import { type SsspOptions, sssp } from './sssp.ts';

type Mode = NonNullable<SsspOptions['smallFrontier']>;

const MODES: [string, Mode][] = [
  ['on', 'on'],
  ['off', 'off'],
  ['capacity 256, 7 levels a dispatch', { capacity: 256, maxLevels: 7 }],
  ['capacity 256, 1 level a dispatch', { capacity: 256, maxLevels: 1 }],
];

describe('sssp with the small-frontier engine', () => {
  for (const [label, smallFrontier] of MODES) {
    it(`engine ${label}: the corpus and random graphs match Dijkstra (distances, parents)`, () =>
      gpuTest(async (device) => {
        for (const weights of ['u32', 'f32'] as const) {
          for (const { name, csr } of testGraphs(weights, 6)) {
            const graph = uploadGraph(device, csr);
            for (const source of testSources(csr).slice(0, 2)) {
              const loadBalance = source % 2 === 0 ? 'merge-path' : 'thread-mapped';
              const result = await sssp(graph, source, { parents: true, loadBalance, smallFrontier });
              const where = `${weights} ${name}, source ${source}, ${loadBalance}`;
              const tolerance = weights === 'f32' ? 1e-6 : 0;
              expect(verifySssp(csr, source, result.distances, tolerance, result.parents), where).toBeNull();
              expect(result.steps, `${where}: steps`).toBeLessThanOrEqual(result.iterations);
              if (smallFrontier === 'off') expect(result.steps).toBe(result.iterations);
            }
            graph.destroy();
          }
        }
      }));
  }

  it('grids and road graphs: the default runs the engine, few steps for many levels', () =>
    gpuTest(async (device) => {
      const graphs: [string, HostCsr][] = [
        ['grid', hostCsrFromEdgeList(grid({ width: 48, height: 40, seed: 2, weights: true })).csr],
        ['road', hostCsrFromEdgeList(road({ width: 60, height: 50, seed: 3, weights: true })).csr],
      ];
      for (const [name, csr] of graphs) {
        const graph = uploadGraph(device, csr);
        for (const source of [0, Math.floor(csr.vertexCount / 2)]) {
          const where = `${name}, source ${source}`;
          const result = await sssp(graph, source, { parents: true });
          expect(verifySssp(csr, source, result.distances, 0, result.parents), where).toBeNull();
          expect(result.steps, `${where}: steps`).toBeLessThan(result.iterations / 4);
          const small = await sssp(graph, source, { parents: true, smallFrontier: { capacity: 256 } });
          expect(verifySssp(csr, source, small.distances, 0, small.parents), `${where}, 256`).toBeNull();
          const off = await sssp(graph, source, { smallFrontier: 'off' });
          expect(verifySssp(csr, source, off.distances), `${where}, off`).toBeNull();
          expect(off.steps).toBe(off.iterations);
        }
        graph.destroy();
      }
    }));

  for (const capacity of [256, undefined]) {
    it(`a broom: the frontier outgrows the capacity (${capacity ?? 'default'}) mid-run and shrinks again`, () =>
      gpuTest(async (device) => {
        const bristles = (capacity ?? smallFrontierCapacity(device)) + 37;
        const csr = broom(120, bristles, 90, bristles);
        const graph = uploadGraph(device, csr);
        const smallFrontier = capacity === undefined ? 'on' : { capacity };
        for (const source of [0, csr.vertexCount - 1]) {
          const result = await sssp(graph, source, { parents: true, smallFrontier });
          expect(verifySssp(csr, source, result.distances, 0, result.parents), `source ${source}`).toBeNull();
          // The engine runs the handle and the tail; the bristles and twigs need bulk levels.
          expect(result.steps).toBeGreaterThan(1);
          expect(result.steps).toBeLessThan(result.iterations / 4);
        }
        graph.destroy();
      }));
  }

  it('zero-weight edges: distances and a valid tree', () =>
    gpuTest(async (device) => {
      for (const seed of [1, 2, 3]) {
        const edges = randomEdges(400, 1200, seed, seed !== 2);
        const r = mulberry32(seed);
        // A third of the edges weigh nothing, the rest 0 to 3.
        const weights = Uint32Array.from(edges.src, () => (r() < 0.33 ? 0 : Math.floor(r() * 4)));
        const { csr } = hostCsrFromEdgeList({ ...edges, weights });
        const graph = uploadGraph(device, csr);
        for (const smallFrontier of ['on', { capacity: 256, maxLevels: 3 }] as const) {
          const result = await sssp(graph, 0, { parents: true, smallFrontier });
          expect(verifySssp(csr, 0, result.distances, 0, result.parents), `seed ${seed}`).toBeNull();
        }
        graph.destroy();
      }
    }));

  it('a single vertex, an isolated source, a source in the smaller of two components', () =>
    gpuTest(async (device) => {
      const cases: [HostCsr, number][] = [
        [undirected(1, [], () => 1), 0],
        [undirected(5, [[0, 1]], () => 4), 3],
        [
          undirected(
            9,
            [
              [0, 1],
              [1, 2],
              [2, 3],
              [5, 6],
              [6, 7],
            ],
            (i) => i + 1,
          ),
          7,
        ],
      ];
      for (const [csr, source] of cases) {
        const graph = uploadGraph(device, csr);
        for (const smallFrontier of ['on', { capacity: 256, maxLevels: 1 }] as const) {
          const result = await sssp(graph, source, { parents: true, smallFrontier });
          expect(verifySssp(csr, source, result.distances, 0, result.parents)).toBeNull();
        }
        graph.destroy();
      }
    }));

  it('near-far runs the engine; a trace is refused the engine, naming the option', () =>
    gpuTest(async (device) => {
      const csr = undirected(3, [[0, 1]], () => 2);
      const graph = uploadGraph(device, csr);
      for (const smallFrontier of ['on', { capacity: 256 }] as const) {
        const nearFar = await sssp(graph, 0, { smallFrontier, delta: 4 });
        expect(verifySssp(csr, 0, nearFar.distances)).toBeNull();
        expect(nearFar.steps).toBeLessThanOrEqual(nearFar.iterations);
      }
      await expect(sssp(graph, 0, { smallFrontier: 'on', trace: true })).rejects.toThrow(/smallFrontier/);
      // 'auto' with a trace runs without the engine: one step a level.
      const traced = await sssp(graph, 0, { trace: true });
      expect(traced.trace?.frontier).toEqual([1, 1]);
      expect(traced.steps).toBe(traced.iterations);
      graph.destroy();
    }));
});
