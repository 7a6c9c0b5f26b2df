import type { Recorder } from '@weft/gpu';
import { type HostCsr, type HostEdgeList, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid } from '@weft/graph/generators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { BetweennessProblem, betweennessCentrality } from './betweenness.ts';
import { type BetweennessSampling, betweennessReference } from './betweenness-reference.ts';
import { disjointUnion, randomFamilies } from './test-graphs.ts';
import { verifyBetweenness } from './verify.ts';

/** `edges` as a CSR; `raw` keeps duplicates and self-loops (networkx must see each edge once). */
function csrOf(n: number, edges: [number, number][], directed: boolean, raw = false): HostCsr {
  return csrFrom(
    {
      vertexCount: n,
      src: Uint32Array.from(edges, (e) => e[0]),
      dst: Uint32Array.from(edges, (e) => e[1]),
      directed,
    },
    raw,
  );
}

const csrFrom = (edges: HostEdgeList, raw: boolean) =>
  hostCsrFromEdgeList(edges, raw ? { dedupe: 'none', keepSelfLoops: true } : {}).csr;

const path = (n: number, directed = false) =>
  csrOf(
    n,
    Array.from({ length: n - 1 }, (_, i) => [i, i + 1] as [number, number]),
    directed,
  );
const star = (n: number) =>
  csrOf(
    n,
    Array.from({ length: n - 1 }, (_, i) => [0, i + 1] as [number, number]),
    false,
  );

function expectClose(got: ArrayLike<number>, want: number[], label: string) {
  expect(got.length, label).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    if (Number.isNaN(want[i])) expect(got[i], `${label} [${i}]`).toBeNaN();
    else expect(got[i], `${label} [${i}]`).toBeCloseTo(want[i]!, 5);
  }
}

describe('betweennessCentrality', () => {
  it("matches networkx's documented values (paths, star, k-sample scaling)", () =>
    gpuTest(async (device) => {
      const cases: [string, HostCsr, BetweennessSampling, number[]][] = [
        ['P5', path(5), {}, [0, 0.5, 2 / 3, 0.5, 0]],
        ['P5 raw', path(5), { normalized: false }, [0, 3, 4, 3, 0]],
        ['star 5', star(5), {}, [1, 0, 0, 0, 0]],
        ['star 5 raw', star(5), { normalized: false }, [6, 0, 0, 0, 0]],
        ['star 5 endpoints', star(5), { endpoints: true }, [1, 0.4, 0.4, 0.4, 0.4]],
        ['P3', path(3), { normalized: false, endpoints: true }, [2, 3, 2]],
        ['P3 normalized endpoints', path(3), { endpoints: true }, [2 / 3, 1, 2 / 3]],
        ['directed P3', path(3, true), {}, [0, 0.5, 0]],
        ['directed P3 endpoints', path(3, true), { endpoints: true }, [1 / 3, 0.5, 1 / 3]],
        ['directed P3 raw endpoints', path(3, true), { normalized: false, endpoints: true }, [2, 3, 2]],
        // networkx's seed=42 picks 0 and 2 as its k = 2 sample.
        [
          'P3 sources 0, 2',
          path(3),
          { sources: [0, 2], normalized: false, endpoints: true },
          [2.25, 3, 2.25],
        ],
        ['P3 sources 0, 2 normalized', path(3), { sources: [0, 2], endpoints: true }, [0.75, 1, 0.75]],
        // Without endpoints a sampled vertex scales by k - 1 sources: NaN for k = 1, as networkx gives.
        ['P5 source 1', path(5), { sources: [1] }, [0, Number.NaN, 2 / 3, 1 / 3, 0]],
        ['P5 sources 0, 2', path(5), { sources: [0, 2] }, [0, 2 / 3, 2 / 3, 1 / 3, 0]],
      ];
      for (const [name, csr, options, want] of cases) {
        expectClose(betweennessReference(csr, options), want, `${name} reference`);
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        expectClose((await betweennessCentrality(graph, options)).centrality, want, name);
        graph.destroy();
      }
    }));

  it('matches the f64 reference on every source of small adversarial graphs', () =>
    gpuTest(async (device) => {
      const loops: [number, number][] = [
        [0, 1],
        [0, 1],
        [1, 1],
        [1, 2],
        [2, 0],
        [2, 3],
        [2, 3],
        [3, 3],
      ];
      const graphs: [string, HostCsr][] = [
        ['empty', csrOf(0, [], false)],
        ['one vertex', csrOf(1, [], false)],
        ['one vertex with a loop', csrOf(1, [[0, 0]], true, true)],
        ['two isolated', csrOf(2, [], true)],
        ['path 16', path(16)],
        ['directed path 12', path(12, true)],
        ['star 24', star(24)],
        ['grid 4 x 3', hostCsrFromEdgeList(grid({ width: 4, height: 3 })).csr],
        ['duplicates and loops, directed', csrOf(5, loops, true, true)],
        ['duplicates and loops, undirected', csrOf(5, loops, false, true)],
        [
          'disconnected',
          csrOf(
            9,
            [
              [0, 1],
              [1, 2],
              [2, 0],
              [4, 5],
              [5, 6],
              [6, 7],
              [5, 7],
            ],
            false,
          ),
        ],
      ];
      for (const [name, csr] of graphs) {
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        for (const options of [{}, { normalized: false, endpoints: true }, { counts: 'wide' }] as const) {
          const r = await betweennessCentrality(graph, options);
          expect(verifyBetweenness(csr, r.centrality, options), name).toBeNull();
          expect(r.sources.length, name).toBe(csr.vertexCount);
        }
        graph.destroy();
      }
      // Duplicates and self-loops change nothing: the same values as the cleaned graph.
      const raw = betweennessReference(csrOf(5, loops, true, true));
      expectClose(raw, [...betweennessReference(csrOf(5, loops, true))], 'duplicates');
    }));

  it('matches the reference over sampled sources of random families (directed and undirected)', () =>
    gpuTest(async (device) => {
      for (const directed of [false, true]) {
        const { edges } = disjointUnion(randomFamilies(24, directed ? 7 : 8, directed), false, 3);
        const csr = csrFrom(edges, true);
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        for (const [i, options] of [
          { k: 24, seed: 1 },
          { k: 12, seed: 2, normalized: false, endpoints: true },
          { k: 8, seed: 3, endpoints: true, loadBalance: 'thread-mapped' as const },
          { k: 10, seed: 4, counts: 'wide' as const },
        ].entries()) {
          const r = await betweennessCentrality(graph, options);
          expect(r.sources.length).toBe(options.k);
          expect(verifyBetweenness(csr, r.centrality, options), `${directed} ${i}`).toBeNull();
        }
        graph.destroy();
      }
    }));

  it('records as many dispatches per level with wide counts as with f32', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, hostCsrFromEdgeList(grid({ width: 6, height: 5 })).csr);
      const dispatches: number[][] = [];
      for (const counts of ['f32', 'wide'] as const) {
        const problem = new BetweennessProblem(graph, { counts });
        const submit = async (record: (rec: Recorder) => Promise<void>) => {
          const rec = device.recorder();
          await record(rec);
          return (await rec.submit()).dispatches;
        };
        dispatches.push([
          await submit((rec) => problem.reset(rec, 0)),
          await submit((rec) => problem.step(rec, 0)),
          await submit((rec) => problem.accumulate(rec, 0, 2)),
          await submit((rec) => problem.accumulate(rec, 0, 3)),
        ]);
        problem.destroy();
      }
      expect(dispatches[1]).toEqual(dispatches[0]);
      graph.destroy();
    }));

  it('samples k distinct sources by seed; k = n and every vertex as sources equal the full run', () =>
    gpuTest(async (device) => {
      const csr = hostCsrFromEdgeList(grid({ width: 4, height: 3 })).csr;
      const graph = uploadGraph(device, csr);
      const a = await betweennessCentrality(graph, { k: 6, seed: 11 });
      const b = await betweennessCentrality(graph, { k: 6, seed: 11 });
      const c = await betweennessCentrality(graph, { k: 6, seed: 12 });
      expect(a.sources).toEqual(b.sources);
      expect(new Set(a.sources).size).toBe(6);
      expect(a.sources).not.toEqual(c.sources);
      expect(verifyBetweenness(csr, a.centrality, { sources: a.sources })).toBeNull();
      const full = betweennessReference(csr);
      expectClose((await betweennessCentrality(graph, { k: 12 })).centrality, [...full], 'k = n');
      const all = Array.from({ length: 12 }, (_, i) => 11 - i);
      expectClose((await betweennessCentrality(graph, { sources: all })).centrality, [...full], 'all');
      graph.destroy();
    }));

  it('refuses bad k, seed and sources with a typed error', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, path(4));
      for (const [options, message] of [
        [{ k: 0 }, /k must be an integer in \[1, 4\]/],
        [{ k: 5 }, /got 5/],
        [{ k: 1.5 }, /got 1\.5/],
        [{ k: 2, seed: 0.5 }, /seed must be an integer/],
        [{ k: 2, sources: [1] }, /not both/],
        [{ sources: [] }, /sources is empty/],
        [{ sources: [1, 4] }, /sources\[1\] = 4 is not a vertex/],
        [{ sources: [1, 1] }, /sources\[1\] = 1 repeats/],
      ] as const) {
        await expect(betweennessCentrality(graph, options), JSON.stringify(options)).rejects.toThrow(message);
      }
      graph.destroy();
    }));
});
