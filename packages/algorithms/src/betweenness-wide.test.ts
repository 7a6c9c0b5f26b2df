import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, road } from '@weft/graph/generators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { BetweennessProblem, betweennessCentrality } from './betweenness.ts';
import { verifyBetweenness } from './verify.ts';

// Graphs whose shortest-path counts pass f32's range: meshes, long strips, roads, chains of diamonds.

function csrOf(n: number, edges: [number, number][]): HostCsr {
  const src = Uint32Array.from(edges, (e) => e[0]);
  const dst = Uint32Array.from(edges, (e) => e[1]);
  return hostCsrFromEdgeList({ vertexCount: n, src, dst, directed: false }).csr;
}

describe('betweennessCentrality with wide path counts', () => {
  it('matches the f64 reference where path counts pass f32 range: a 150 x 150 mesh from corners and centre', () =>
    gpuTest(async (device) => {
      // From a corner the far corner has C(298, 149) > 1e88 shortest paths: 'auto' turns to wide counts.
      const side = 150;
      const csr = hostCsrFromEdgeList(grid({ width: side, height: side })).csr;
      const graph = uploadGraph(device, csr);
      const sources = [0, side * side - 1, (side / 2) * side + side / 2];
      const r = await betweennessCentrality(graph, { sources });
      expect(verifyBetweenness(csr, r.centrality, { sources })).toBeNull();
      await expect(betweennessCentrality(graph, { sources: [0], counts: 'f32' })).rejects.toThrow(
        /graph: shortest-path counts passed f32's range \(2\^120\) from some source/,
      );
      // A problem driven by hand refuses a result that left out an overflowed source.
      const problem = new BetweennessProblem(graph);
      const rec = device.recorder();
      problem.clear(rec);
      await problem.reset(rec, 0);
      for (let i = 0; i < 2 * side - 1; i++) await problem.step(rec, i);
      await problem.accumulate(rec, 0, 2 * side - 1);
      await rec.submit();
      expect(await problem.overflowed()).toBe(true);
      await expect(problem.result([0])).rejects.toThrow(/passed f32's range/);
      problem.destroy();
      graph.destroy();
    }));

  it('keeps wide counts within the tolerance on a strip 1000 levels deep and on road graphs', () =>
    gpuTest(async (device) => {
      // C(1018, 19) > 2^130 paths to the far corner, over a thousand levels of f32 sums.
      const strip = hostCsrFromEdgeList(grid({ width: 20, height: 1000 })).csr;
      const long = uploadGraph(device, strip);
      const r = await betweennessCentrality(long, { sources: [0] });
      expect(verifyBetweenness(strip, r.centrality, { sources: [0] }), 'strip').toBeNull();
      expect(r.iterations).toBe(20 + 1000 - 1);
      long.destroy();
      for (const [width, height, seed] of [[64, 48, 1]] as const) {
        const csr = hostCsrFromEdgeList(road({ width, height, seed })).csr;
        const graph = uploadGraph(device, csr);
        for (const options of [
          { k: 3, seed, counts: 'wide' as const },
          { k: 2, seed, counts: 'wide' as const, normalized: false, endpoints: true },
          { k: 2, seed },
        ]) {
          const got = await betweennessCentrality(graph, options);
          expect(verifyBetweenness(csr, got.centrality, options), `road ${width} x ${height}`).toBeNull();
        }
        graph.destroy();
      }
    }));

  it('counts past f64 range on a chain of fat diamonds, and refuses past the wide range', () =>
    gpuTest(async (device) => {
      // Stage i joins junction (fan + 1)i to the next junction through `fan` middle vertices: fan^i paths.
      const chain = (stages: number, fan = 16) => {
        const edges: [number, number][] = [];
        for (let i = 0; i < stages; i++) {
          const j = (fan + 1) * i;
          for (let m = 1; m <= fan; m++) edges.push([j, j + m], [j + m, j + fan + 1]);
        }
        return csrOf((fan + 1) * stages + 1, edges);
      };
      const stages = 270;
      const csr = chain(stages);
      const graph = uploadGraph(device, csr);
      const r = await betweennessCentrality(graph, { sources: [0], normalized: false });
      // Junction i carries every path to the 17(stages - i) vertices past it, a middle a 16th of the next
      // junction's share; from one source of n, networkx's scale is (n - 1) / 2 (undirected).
      const scale = (csr.vertexCount - 1) / 2;
      const want = Array.from({ length: csr.vertexCount }, (_, v) => {
        const [stage, m] = [Math.floor(v / 17), v % 17];
        return m === 0 ? 17 * (stages - stage) * scale : ((1 + 17 * (stages - stage - 1)) / 16) * scale;
      });
      want[0] = Number.NaN;
      for (let v = 0; v < want.length; v++) {
        const w = want[v]!;
        if (Number.isNaN(w)) expect(r.centrality[v]).toBeNaN();
        else expect(Math.abs(r.centrality[v]! - w), `vertex ${v}`).toBeLessThanOrEqual(1e-5 * w);
      }
      graph.destroy();
      const far = uploadGraph(device, chain(342, 64));
      await expect(betweennessCentrality(far, { sources: [0], counts: 'wide' })).rejects.toThrow(
        /graph: shortest-path counts passed the wide range \(2\^2046/,
      );
      far.destroy();
    }));
});
