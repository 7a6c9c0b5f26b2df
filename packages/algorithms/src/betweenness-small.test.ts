import type { Recorder } from '@weft/gpu';
import { type DeviceGraph, type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { enact } from '@weft/operators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { type BetweennessOptions, BetweennessProblem, betweennessCentrality } from './betweenness.ts';
import { broom, disjointUnion, randomFamilies } from './test-graphs.ts';
import { verifyBetweenness } from './verify.ts';

// Betweenness with small levels in one workgroup: the engine's hand-offs both ways, forward and backward.

function csrOf(n: number, edges: [number, number][], directed = false): HostCsr {
  const src = Uint32Array.from(edges, (e) => e[0]);
  const dst = Uint32Array.from(edges, (e) => e[1]);
  return hostCsrFromEdgeList({ vertexCount: n, src, dst, directed }).csr;
}

const path = (n: number) =>
  csrOf(
    n,
    Array.from({ length: n - 1 }, (_, i): [number, number] => [i, i + 1]),
  );
const cycle = (n: number) =>
  csrOf(
    n,
    Array.from({ length: n }, (_, i): [number, number] => [i, (i + 1) % n]),
  );

/** A random tree: vertex i > 0 hangs from a vertex before it, mostly the one just before (deep). */
function tree(n: number, seed: number): HostCsr {
  const r = mulberry32(seed);
  return csrOf(
    n,
    Array.from({ length: n - 1 }, (_, i): [number, number] => [
      r() < 0.7 ? i : Math.floor(r() * (i + 1)),
      i + 1,
    ]),
  );
}

/**
 * Stage i joins junction (fan + 1)i to the next junction through `fan` middle vertices: levels alternate
 * between one vertex and `fan`, and a junction k stages on has fan^k shortest paths.
 */
function diamonds(stages: number, fan: number): HostCsr {
  const edges: [number, number][] = [];
  for (let i = 0; i < stages; i++) {
    const j = (fan + 1) * i;
    for (let m = 1; m <= fan; m++) edges.push([j, j + m], [j + m, j + fan + 1]);
  }
  return csrOf((fan + 1) * stages + 1, edges);
}

const MODES = [
  'on',
  { capacity: 256 },
  { capacity: 256, maxLevels: 2 },
] as const satisfies readonly BetweennessOptions['smallFrontier'][];

describe('betweennessCentrality with small levels in one workgroup', () => {
  it('matches the reference on paths, cycles, trees, grids, roads, brooms, stars and disconnected sources', () =>
    gpuTest(async (device) => {
      const families = randomFamilies(6, 5, false);
      const graphs: [string, HostCsr, number[]][] = [
        ['one vertex', csrOf(1, []), [0]],
        ['path 300', path(300), [0, 150, 299]],
        ['cycle 257', cycle(257), [0, 100]],
        ['tree 400', tree(400, 3), [0, 399, 57]],
        ['grid 17 x 23', hostCsrFromEdgeList(grid({ width: 17, height: 23 })).csr, [0, 200, 390]],
        ['road 24 x 20', hostCsrFromEdgeList(road({ width: 24, height: 20, seed: 4 })).csr, [0, 123, 479]],
        // Levels of one vertex, then 300 and 300 (past a capacity of 256), then one again.
        ['broom 30, 300, 40', broom(30, 300, 40, 1), [0, 29, 660, 669]],
        // Levels of 700: past the default capacity's bound of two lanes a vertex, a thread a vertex.
        ['broom 5, 700, 5', broom(5, 700, 5, 2), [0, 1405]],
        [
          'star 300',
          csrOf(
            300,
            Array.from({ length: 299 }, (_, i): [number, number] => [0, i + 1]),
          ),
          [0, 5],
        ],
        // A path beside a cycle and isolated vertices: each source reaches only its own part.
        [
          'disconnected',
          csrOf(80, [
            ...Array.from({ length: 29 }, (_, i): [number, number] => [i, i + 1]),
            ...Array.from({ length: 40 }, (_, i): [number, number] => [30 + i, 30 + ((i + 1) % 40)]),
          ]),
          [0, 35, 75],
        ],
        ['random families', hostCsrFromEdgeList(disjointUnion(families, false, 2).edges).csr, [0, 40, 90]],
      ];
      for (const [g, [name, csr, sources]] of graphs.entries()) {
        const graph = uploadGraph(device, csr);
        // Each mode once, f32 and wide counts in turn (with the raw scores and endpoints).
        for (const [i, smallFrontier] of MODES.entries()) {
          const options =
            (i + g) % 2 === 0
              ? { sources, smallFrontier }
              : { sources, smallFrontier, counts: 'wide' as const, normalized: false, endpoints: true };
          const r = await betweennessCentrality(graph, options);
          const where = `${name} ${JSON.stringify(options)}`;
          expect(verifyBetweenness(csr, r.centrality, options), where).toBeNull();
        }
        graph.destroy();
      }
    }));

  it('hands levels past the capacity to the bulk path and back, with counts that need wide', () =>
    gpuTest(async (device) => {
      // 300^16 > 2^120 paths to the last junction: f32 overflows and 'auto' re-runs the source wide, while
      // every other level (300 middles) outgrows a capacity of 256.
      const csr = diamonds(16, 300);
      const graph = uploadGraph(device, csr);
      for (const smallFrontier of ['off', ...MODES] as const) {
        const r = await betweennessCentrality(graph, { sources: [0], smallFrontier });
        expect(
          verifyBetweenness(csr, r.centrality, { sources: [0] }),
          JSON.stringify(smallFrontier),
        ).toBeNull();
        expect(r.iterations).toBe(33);
      }
      // The 16 levels of middles are big: the forward search hands each to the bulk path.
      const problem = new BetweennessProblem(graph, { smallFrontier: { capacity: 256 }, counts: 'wide' });
      const rec = device.recorder();
      await problem.reset(rec, 0);
      await rec.submit();
      const run = await enact(device, problem, { maxIterations: csr.vertexCount });
      expect(await problem.forward(run.iterations)).toEqual({ overflowed: false, levels: 33, bigLevels: 16 });
      problem.destroy();
      await expect(
        betweennessCentrality(graph, { sources: [0], counts: 'f32', smallFrontier: { capacity: 256 } }),
      ).rejects.toThrow(/passed f32's range/);
      graph.destroy();
      // A 70 x 70 mesh from a corner: C(138, 69) > 2^120 paths to the far corner, every level small.
      const mesh = hostCsrFromEdgeList(grid({ width: 70, height: 70 })).csr;
      const g = uploadGraph(device, mesh);
      const r = await betweennessCentrality(g, { sources: [0, 4899], smallFrontier: 'on' });
      expect(verifyBetweenness(mesh, r.centrality, { sources: [0, 4899] }), 'mesh').toBeNull();
      g.destroy();
    }));

  it('runs a path in a few dispatches a source, where the bulk path takes several a level', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, path(200));
      const on = await dispatchesPerSource(graph, 'on', 0);
      const off = await dispatchesPerSource(graph, 'off', 0);
      expect(on.levels).toBe(200);
      expect(off.levels).toBe(200);
      expect(on.dispatches).toBeLessThan(40);
      expect(off.dispatches).toBeGreaterThan(5 * 200);
      graph.destroy();
    }));

  it("'auto' picks the small levels on sparse graphs only, and refuses a bad mode", () =>
    gpuTest(async (device) => {
      const sparse = uploadGraph(device, path(10));
      expect(new BetweennessProblem(sparse).smallLevels).toBeDefined();
      const dense = uploadGraph(
        device,
        csrOf(
          20,
          Array.from({ length: 20 * 19 }, (_, k): [number, number] => [Math.floor(k / 19), k % 19]),
        ),
      );
      expect(new BetweennessProblem(dense).smallLevels).toBeUndefined();
      expect(() => new BetweennessProblem(sparse, { smallFrontier: 'yes' as never })).toThrow(
        /smallFrontier must be/,
      );
      expect(() => new BetweennessProblem(sparse, { smallFrontier: { capacity: 100 } })).toThrow(/capacity/);
      sparse.destroy();
      dense.destroy();
    }));
});

/** One source's dispatches: reset, the enactor's steps (each with its status kernel) and the backward sweep. */
async function dispatchesPerSource(
  graph: DeviceGraph,
  smallFrontier: 'on' | 'off',
  source: number,
): Promise<{ dispatches: number; levels: number }> {
  const device = graph.device;
  const problem = new BetweennessProblem(graph, { smallFrontier });
  const record = async (f: (rec: Recorder) => Promise<void>) => {
    const rec = device.recorder();
    await f(rec);
    return (await rec.submit()).dispatches;
  };
  await record((rec) => problem.reset(rec, source));
  const run = await enact(device, problem, { maxIterations: graph.vertexCount });
  const { levels, bigLevels } = await problem.forward(run.iterations);
  let dispatches = await record((rec) => problem.reset(rec, source));
  dispatches += await record(async (rec) => {
    for (let i = 0; i < run.iterations; i++) await problem.step(rec, i);
  });
  dispatches += run.iterations;
  dispatches += await record((rec) => problem.accumulate(rec, source, levels, bigLevels));
  problem.destroy();
  return { dispatches, levels };
}
