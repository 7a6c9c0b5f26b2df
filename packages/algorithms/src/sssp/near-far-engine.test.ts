import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { broom, randomEdges, testGraphs, testSources, undirected } from '../test-graphs.ts';
import { verifySssp } from '../verify.ts';
import { type SsspOptions, sssp, ssspDelta } from './sssp.ts';

type Mode = NonNullable<SsspOptions['smallFrontier']>;

const MODES: [string, Mode][] = [
  ['on', 'on'],
  ['off', 'off'],
  ['capacity 256, 5 levels a dispatch', { capacity: 256, maxLevels: 5 }],
  ['capacity 256, 1 level a dispatch', { capacity: 256, maxLevels: 1 }],
  ['1 level and 1 phase a dispatch', { capacity: 256, maxLevels: 1, maxPhases: 1 }],
  ['far scans of 16 at most', { capacity: 256, farScan: 16 }],
  ['every phase change in bulk', { maxPhases: 0 }],
];

describe('sssp near-far with the small-frontier engine', () => {
  for (const [label, smallFrontier] of MODES) {
    it(`engine ${label}: random graphs match Dijkstra with tiny, automatic and huge deltas`, () =>
      gpuTest(async (device) => {
        for (const weights of ['u32', 'f32'] as const) {
          const deltas = weights === 'u32' ? [1, 'auto', 1e9] : [0.25, 'auto', 1e30];
          for (const { name, csr } of testGraphs(weights, 3)) {
            const graph = uploadGraph(device, csr);
            for (const [i, source] of testSources(csr).slice(0, 2).entries()) {
              const delta = deltas[(i + name.length) % 3] as number | 'auto';
              const result = await sssp(graph, source, { parents: true, smallFrontier, delta });
              const where = `${weights} ${name}, source ${source}, delta ${delta}`;
              const tolerance = weights === 'f32' ? 1e-6 : 0;
              expect(verifySssp(csr, source, result.distances, tolerance, result.parents), where).toBeNull();
              expect(result.steps, `${where}: steps`).toBeLessThanOrEqual(result.iterations);
            }
            graph.destroy();
          }
        }
      }));
  }

  it('grids and road graphs: every mode and delta matches Dijkstra; the default takes few steps', () =>
    gpuTest(async (device) => {
      const graphs: [string, HostCsr][] = [
        ['grid', hostCsrFromEdgeList(grid({ width: 40, height: 30, seed: 4, weights: true })).csr],
        ['road', hostCsrFromEdgeList(road({ width: 50, height: 40, seed: 5, weights: true })).csr],
      ];
      for (const [name, csr] of graphs) {
        const graph = uploadGraph(device, csr);
        const auto = await ssspDelta(graph);
        expect(Number.isInteger(auto) && auto >= 1, `${name}: delta ${auto}`).toBe(true);
        const source = Math.floor(csr.vertexCount / 3);
        const plain = await sssp(graph, source, { delta: 'off' });
        const byDefault = await sssp(graph, source, { parents: true });
        expect(verifySssp(csr, source, byDefault.distances, 0, byDefault.parents), name).toBeNull();
        expect(byDefault.steps, `${name}: steps`).toBeLessThan(plain.iterations / 4);
        for (const [label, smallFrontier] of MODES) {
          for (const delta of [1, 64, 1e9]) {
            const where = `${name}, engine ${label}, delta ${delta}`;
            const result = await sssp(graph, source, { parents: true, smallFrontier, delta });
            expect(verifySssp(csr, source, result.distances, 0, result.parents), where).toBeNull();
          }
        }
        graph.destroy();
      }
    }));

  it('a broom outgrows the capacity mid-run: the bulk near-far level takes it', () =>
    gpuTest(async (device) => {
      const csr = broom(60, 256 + 37, 50, 7);
      const graph = uploadGraph(device, csr);
      for (const source of [0, csr.vertexCount - 1]) {
        for (const delta of [2, 'auto', 1e9] as const) {
          const result = await sssp(graph, source, {
            parents: true,
            smallFrontier: { capacity: 256 },
            delta,
          });
          const where = `source ${source}, delta ${delta}`;
          expect(verifySssp(csr, source, result.distances, 0, result.parents), where).toBeNull();
        }
      }
      graph.destroy();
    }));

  it('zero-weight edges, a single vertex and sources cut off from most of the graph', () =>
    gpuTest(async (device) => {
      const cases: [string, HostCsr, number][] = [
        ['single vertex', undirected(1, [], () => 1), 0],
        ['isolated source', undirected(5, [[0, 1]], () => 4), 3],
        [
          'two components',
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
      for (const seed of [1, 2]) {
        const edges = randomEdges(300, 900, seed, seed !== 2);
        const r = mulberry32(seed);
        const weights = Uint32Array.from(edges.src, () => (r() < 0.33 ? 0 : Math.floor(r() * 4)));
        cases.push([`zero weights ${seed}`, hostCsrFromEdgeList({ ...edges, weights }).csr, 0]);
      }
      for (const [name, csr, source] of cases) {
        const graph = uploadGraph(device, csr);
        for (const smallFrontier of ['on', { capacity: 256, maxLevels: 2 }] as const) {
          for (const delta of [1, 'auto', 1e9] as const) {
            const result = await sssp(graph, source, { parents: true, smallFrontier, delta });
            const where = `${name}, delta ${delta}`;
            expect(verifySssp(csr, source, result.distances, 0, result.parents), where).toBeNull();
          }
        }
        graph.destroy();
      }
    }));

  it('phase changes inside the engine: many phases a dispatch, fewer steps than the bulk phase step', () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(road({ width: 40, height: 40, seed: 8, weights: true })).csr;
      const graph = uploadGraph(device, csr);
      const source = 5;
      for (const delta of [1, 16]) {
        const inKernel = await sssp(graph, source, { parents: true, smallFrontier: 'on', delta });
        const bulk = await sssp(graph, source, { parents: true, smallFrontier: { maxPhases: 0 }, delta });
        for (const [label, r] of [
          ['in kernel', inKernel],
          ['bulk', bulk],
        ] as const) {
          const where = `delta ${delta}, ${label}`;
          expect(verifySssp(csr, source, r.distances, 0, r.parents), where).toBeNull();
        }
        // Every phase change in bulk takes a step of its own; in the kernel a step runs many phases.
        expect(inKernel.steps * 4, `delta ${delta}: steps`).toBeLessThan(bulk.steps);
        // The far queue outgrows a scan of 8: phases alternate between the engine and the bulk step.
        const mixed = await sssp(graph, source, {
          parents: true,
          smallFrontier: { farScan: 8, maxLevels: 3 },
          delta,
        });
        expect(
          verifySssp(csr, source, mixed.distances, 0, mixed.parents),
          `delta ${delta}, mixed`,
        ).toBeNull();
      }
      graph.destroy();
    }));

  it('a phase change that releases more far vertices than the capacity hands the level to the bulk path', () =>
    gpuTest(async (device) => {
      // A star whose 600 leaves sit past the first threshold at equal distance, each with a tail of two.
      const leaves = 600;
      const pairs: [number, number][] = [];
      for (let j = 0; j < leaves; j++) {
        pairs.push([0, 1 + j]);
        pairs.push([1 + j, 1 + leaves + j]);
        pairs.push([1 + leaves + j, 1 + 2 * leaves + j]);
      }
      const csr = undirected(1 + 3 * leaves, pairs, (i) => (i % 3 === 0 ? 50 : 1 + (i % 2)));
      const graph = uploadGraph(device, csr);
      for (const smallFrontier of [{ capacity: 256 }, { capacity: 256, maxLevels: 1, maxPhases: 1 }]) {
        for (const delta of [1, 3, 60]) {
          const result = await sssp(graph, 0, { parents: true, smallFrontier, delta });
          const where = `${JSON.stringify(smallFrontier)}, delta ${delta}`;
          expect(verifySssp(csr, 0, result.distances, 0, result.parents), where).toBeNull();
        }
      }
      graph.destroy();
    }));
});
