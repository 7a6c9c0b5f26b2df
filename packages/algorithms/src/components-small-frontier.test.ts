import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { smallFrontierCapacity } from '@weft/operators';
import { expectArrayEqual, gpuTest, randomPermutation } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { type ComponentsOptions, connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { testGraphs } from './test-graphs.ts';
import { verifyComponents } from './verify.ts';

function csrOf(vertexCount: number, pairs: [number, number][], directed = false): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount,
    src: Uint32Array.from(pairs, (p) => p[0]),
    dst: Uint32Array.from(pairs, (p) => p[1]),
    directed,
  }).csr;
}

/** `n` vertices in a random order (seeded). */
const shuffled = (n: number, seed: number): number[] => Array.from(randomPermutation(n, seed));

/** A path through `ids` in their order. */
const pathThrough = (ids: readonly number[]) => ids.slice(1).map((v, i): [number, number] => [ids[i]!, v]);

/**
 * Vertex 0, a path of `handle` more vertices to a hub, `leaves` leaves on the hub, then a path of `tail` from
 * the hub. The leaves take the smallest ids after 0, so each holds the smallest leaf's label from the second
 * level on and drops again only when label 0 reaches the hub: a frontier of `leaves` in one level, between
 * levels of a few vertices.
 */
function lateFan(handle: number, leaves: number, tail: number, directed = false): HostCsr {
  const hub = leaves + 1;
  const handleIds = Array.from({ length: handle }, (_, i) => hub + 1 + i);
  const tailIds = Array.from({ length: tail }, (_, i) => hub + 1 + handle + i);
  const pairs: [number, number][] = [
    ...pathThrough([0, ...handleIds, hub, ...tailIds]),
    ...Array.from({ length: leaves }, (_, i): [number, number] => [hub, 1 + i]),
  ];
  return csrOf(hub + 1 + handle + tail, pairs, directed);
}

async function expectComponents(
  device: Parameters<Parameters<typeof gpuTest>[0]>[0],
  csr: HostCsr,
  name: string,
  options: ComponentsOptions,
) {
  const graph = uploadGraph(device, csr, { csc: csr.directed });
  const result = await connectedComponents(graph, { algorithm: 'label-propagation', ...options });
  graph.destroy();
  expect(verifyComponents(csr, result.labels, result.count), name).toBeNull();
  expectArrayEqual(result.labels, componentsReference(csr).labels, `${name} labels`);
  // The enactor steps at least once, even on an empty frontier.
  expect(result.steps, `${name}: steps`).toBeLessThanOrEqual(Math.max(1, result.iterations));
  return result;
}

const MODES: [string, NonNullable<ComponentsOptions['smallFrontier']>][] = [
  ['on', 'on'],
  ['capacity 256, 7 levels a dispatch', { capacity: 256, maxLevels: 7 }],
];

describe('connectedComponents: label propagation on the small-frontier engine', () => {
  for (const [label, smallFrontier] of MODES) {
    it(`engine ${label}: the corpus and random graphs, directed ones too, match the reference`, () =>
      gpuTest(async (device) => {
        for (const [i, { name, csr }] of testGraphs(false, 16).entries()) {
          const loadBalance = i % 2 === 0 ? 'merge-path' : 'thread-mapped';
          await expectComponents(device, csr, `${name}, ${loadBalance}`, { smallFrontier, loadBalance });
        }
      }));
  }

  it('paths, grids, road graphs, many small components, stars: fewer steps than levels with the engine on', () =>
    gpuTest(async (device) => {
      const n = 1200;
      const ids = Array.from({ length: n }, (_, i) => i);
      const many: [number, number][] = [];
      const order = shuffled(2100, 5);
      for (let c = 0; c < 300; c++) many.push(...pathThrough(order.slice(7 * c, 7 * c + 7)));
      const graphs: [string, HostCsr, boolean][] = [
        ['path', csrOf(n, pathThrough(ids)), true],
        // Weak components: label 0 flows against every arc.
        ['directed path, arcs into 0', csrOf(n, pathThrough([...ids].reverse()), true), true],
        ['path, ids falling', csrOf(n, pathThrough([...ids].reverse())), true],
        ['path through shuffled ids', csrOf(n, pathThrough(shuffled(n, 1))), true],
        ['grid 64 x 40', hostCsrFromEdgeList(grid({ width: 64, height: 40 })).csr, true],
        ['road 70 x 50', hostCsrFromEdgeList(road({ width: 70, height: 50, seed: 3 })).csr, true],
        [
          'directed road 70 x 50',
          hostCsrFromEdgeList({ ...road({ width: 70, height: 50, seed: 4 }), directed: true }).csr,
          true,
        ],
        ['300 paths of 7, shuffled ids', csrOf(2100, many), false],
        [
          'star, hub last',
          csrOf(
            n,
            ids.slice(0, -1).map((v): [number, number] => [n - 1, v]),
          ),
          false,
        ],
        [
          'directed star, arcs into the hub',
          csrOf(
            n,
            ids.filter((v) => v !== 600).map((v): [number, number] => [v, 600]),
            true,
          ),
          false,
        ],
        [
          'two stars and isolated vertices',
          csrOf(n, [
            [5, 1],
            ...shuffled(n, 5)
              .slice(0, n >> 1)
              .map((v): [number, number] => [7, v]),
          ]),
          false,
        ],
      ];
      for (const [name, csr, long] of graphs) {
        const on = await expectComponents(device, csr, name, { smallFrontier: 'on' });
        const off = await expectComponents(device, csr, `${name}, engine off`, { smallFrontier: 'off' });
        expect(off.steps, `${name}: one level a step without the engine`).toBe(off.iterations);
        // The default leaves the engine off (see the README): one level a step.
        const byDefault = await expectComponents(device, csr, `${name}, default`, {});
        expect(byDefault.steps, `${name}: default`).toBe(byDefault.iterations);
        if (long) expect(on.steps * 4, `${name}: steps`).toBeLessThan(off.steps);
      }
    }));

  for (const capacity of [256, undefined]) {
    it(`a frontier that outgrows the capacity (${capacity ?? 'default'}) mid-run and shrinks again`, () =>
      gpuTest(async (device) => {
        const leaves = (capacity ?? smallFrontierCapacity(device)) + 37;
        const smallFrontier = capacity === undefined ? 'on' : { capacity };
        for (const directed of [false, true]) {
          const csr = lateFan(150, leaves, 120, directed);
          const result = await expectComponents(device, csr, `late fan, directed ${directed}`, {
            smallFrontier,
          });
          // The engine to the hub, a bulk level for the leaves, the engine again down the tail.
          expect(result.steps).toBeGreaterThanOrEqual(2);
          expect(result.steps * 10).toBeLessThan(result.iterations);
        }
      }));
  }

  it('a grid whose frontier passes the capacity: bulk levels, then the engine', () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(grid({ width: 91, height: 91 })).csr;
      const result = await expectComponents(device, csr, 'grid 91', { smallFrontier: { capacity: 256 } });
      expect(result.steps).toBeGreaterThan(1);
      expect(result.steps).toBeLessThan(result.iterations);
    }));

  it('an empty graph, one vertex, self-loops and duplicate edges', () =>
    gpuTest(async (device) => {
      const cases: [string, HostCsr][] = [
        ['empty', csrOf(0, [])],
        ['one vertex', csrOf(1, [])],
        [
          'loops and duplicates',
          csrOf(6, [
            [0, 0],
            [3, 4],
            [4, 3],
            [3, 4],
            [5, 5],
            [2, 1],
          ]),
        ],
      ];
      for (const [name, csr] of cases) {
        for (const smallFrontier of ['on', { capacity: 256, maxLevels: 1 }] as const) {
          await expectComponents(device, csr, name, { smallFrontier });
        }
      }
    }));

  it('refuses the engine for union-find and with a trace, naming the option', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, csrOf(3, [[0, 1]]));
      await expect(connectedComponents(graph, { smallFrontier: 'on' })).rejects.toThrow(/small-frontier/);
      await expect(
        connectedComponents(graph, { algorithm: 'label-propagation', smallFrontier: 'on', trace: true }),
      ).rejects.toThrow(/smallFrontier/);
      // 'auto' with a trace: one logged frontier a level.
      const traced = await connectedComponents(graph, { algorithm: 'label-propagation', trace: true });
      expect(traced.trace?.frontier.length).toBe(traced.iterations);
      expect(traced.steps).toBe(traced.iterations);
      graph.destroy();
    }));
});
