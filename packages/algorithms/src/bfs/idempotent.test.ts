import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { testGraphs, testSources } from '../test-graphs.ts';
import { verifyBfs } from '../verify.ts';
import { BfsProblem, bfs } from './bfs.ts';
import type { IdempotentLevel } from './idempotent.ts';
import { bfsReference } from './reference.ts';

describe('idempotent BFS', () => {
  it('gives the same depths as the atomic BFS on random and skewed graphs, with valid parents', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 12)) {
        const graph = uploadGraph(device, csr);
        for (const source of testSources(csr).slice(0, 2)) {
          const loadBalance = source % 2 === 0 ? 'merge-path' : 'thread-mapped';
          const plain = await bfs(graph, source, { loadBalance });
          const idem = await bfs(graph, source, { idempotent: true, parents: true, loadBalance });
          const what = `${name}, source ${source}`;
          expect(Array.from(idem.depths), what).toEqual(Array.from(plain.depths));
          expect(idem.iterations, what).toBe(plain.iterations);
          expect(verifyBfs(csr, source, idem.depths, idem.parents), what).toBeNull();
        }
        graph.destroy();
      }
    }));

  it('level by level: the raw output may repeat vertices, the culled frontier holds each once', () =>
    gpuTest(async (device) => {
      const { csr } = hostCsrFromEdgeList(kronecker({ scale: 10, edgeFactor: 16, seed: 9 }));
      const graph = uploadGraph(device, csr);
      const want = bfsReference(csr, 0).depths;
      let rawTotal = 0;
      let culledTotal = 0;
      for (const loadBalance of ['merge-path', 'thread-mapped'] as const) {
        const problem = new BfsProblem(graph, { idempotent: true, loadBalance });
        let rec = device.recorder();
        await problem.reset(rec, 0);
        await rec.submit();
        const raw = (problem.variant as IdempotentLevel).raw;
        for (let level = 0; ; level++) {
          rec = device.recorder();
          await problem.step(rec, level);
          await rec.submit();
          const rawLength = (await raw.count.download())[0]!;
          const rawItems = rawLength === 0 ? [] : Array.from(await raw.items.download(0, rawLength));
          const frontier = Array.from(await problem.queue.toArray());
          const atDepth = [];
          for (let v = 0; v < csr.vertexCount; v++) if (want[v] === level + 1) atDepth.push(v);
          expect(new Set(frontier).size, `level ${level}: culled without duplicates`).toBe(frontier.length);
          expect(
            frontier.sort((a, b) => a - b),
            `level ${level}`,
          ).toEqual(atDepth);
          expect(
            [...new Set(rawItems)].sort((a, b) => a - b),
            `level ${level} raw`,
          ).toEqual(atDepth);
          rawTotal += rawItems.length;
          culledTotal += frontier.length;
          if (frontier.length === 0) break;
        }
        problem.destroy();
      }
      // Every reached vertex but the source came through each run once after culling.
      const reached = want.filter((d) => d > 0).length;
      expect(culledTotal).toBe(2 * reached);
      expect(rawTotal).toBeGreaterThanOrEqual(culledTotal);
      graph.destroy();
    }));

  it('is refused with pull or direction optimization', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, testGraphs(false, 0)[3]!.csr);
      await expect(bfs(graph, 0, { idempotent: true, direction: 'auto' })).rejects.toThrow(/pushes only/);
      graph.destroy();
    }));
});
