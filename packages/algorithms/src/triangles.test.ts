import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { randomEdges, testGraphs, undirectedSimple } from './test-graphs.ts';
import { triangleCount } from './triangles.ts';
import { trianglesReference } from './triangles-reference.ts';

describe('triangleCount', () => {
  it('counts each triangle once on the undirected corpus and random graphs', () =>
    gpuTest(async (device) => {
      let total = 0;
      for (const { name, csr } of testGraphs(false, 60)) {
        if (csr.directed) continue;
        const graph = uploadGraph(device, csr);
        const { count } = await triangleCount(graph);
        const want = trianglesReference(csr);
        expect(count, name).toBe(want);
        total += want;
        graph.destroy();
      }
      expect(total).toBeGreaterThan(100);
    }));

  it('the reference agrees with brute force on small random graphs', () =>
    gpuTest(async (device) => {
      for (let seed = 0; seed < 20; seed++) {
        const n = 5 + seed * 2;
        const { csr } = hostCsrFromEdgeList(randomEdges(n, n * 3, seed, false));
        const adjacent = (a: number, b: number) => {
          for (let e = csr.offsets[a]!; e < csr.offsets[a + 1]!; e++) if (csr.targets[e] === b) return true;
          return false;
        };
        let brute = 0;
        for (let a = 0; a < n; a++)
          for (let b = a + 1; b < n; b++)
            for (let c = b + 1; c < n; c++) if (adjacent(a, b) && adjacent(b, c) && adjacent(a, c)) brute++;
        expect(trianglesReference(csr), `seed ${seed}`).toBe(brute);
        const graph = uploadGraph(device, csr);
        expect((await triangleCount(graph)).count, `seed ${seed}`).toBe(brute);
        graph.destroy();
      }
    }));

  it('a clique of 40 has C(40, 3) triangles; a directed graph counts its undirected graph and says so', () =>
    gpuTest(async (device) => {
      const src: number[] = [];
      const dst: number[] = [];
      for (let a = 0; a < 40; a++)
        for (let b = a + 1; b < 40; b++) {
          src.push(a);
          dst.push(b);
        }
      const edges = { vertexCount: 41, src: Uint32Array.from(src), dst: Uint32Array.from(dst) };
      const clique = uploadGraph(device, hostCsrFromEdgeList({ ...edges, directed: false }).csr);
      expect((await triangleCount(clique)).count).toBe((40 * 39 * 38) / 6);
      clique.destroy();
      const directed = uploadGraph(device, hostCsrFromEdgeList({ ...edges, directed: true }).csr);
      expect(await triangleCount(directed)).toMatchObject({ count: (40 * 39 * 38) / 6, undirected: true });
      directed.destroy();
      // Arcs both ways, self-loops and parallel arcs: each pair is one edge of the undirected graph.
      for (const { name, csr } of testGraphs(false, 20)) {
        if (!csr.directed) continue;
        const graph = uploadGraph(device, csr, { csc: true });
        const ug = undirectedSimple(csr);
        const r = await triangleCount(graph);
        expect(r.count, name).toBe(trianglesReference(ug));
        expect(r.undirected).toBe(true);
        expect((await triangleCount(uploadGraph(device, ug))).undirected).toBe(false);
        graph.destroy();
      }
    }));
});
