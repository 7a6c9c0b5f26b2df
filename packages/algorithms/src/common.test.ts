import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker } from '@weft/graph/generators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { maxOutDegree, resolveLoadBalance } from './common.ts';
import { testGraphs } from './test-graphs.ts';

describe('load balancing choice', () => {
  it('measures the largest out-degree and maps threads only for low-degree graphs', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 5)) {
        const graph = uploadGraph(device, csr);
        let want = 0;
        for (let v = 0; v < csr.vertexCount; v++)
          want = Math.max(want, csr.offsets[v + 1]! - csr.offsets[v]!);
        expect(await maxOutDegree(device, graph), name).toBe(want);
        graph.destroy();
      }
      const mesh = uploadGraph(device, hostCsrFromEdgeList(grid({ width: 20, height: 20 })).csr);
      const skewed = uploadGraph(device, hostCsrFromEdgeList(kronecker({ scale: 10, seed: 2 })).csr);
      expect(await resolveLoadBalance(device, mesh, 'auto')).toBe('thread-mapped');
      expect(await resolveLoadBalance(device, skewed, undefined)).toBe('merge-path');
      expect(await resolveLoadBalance(device, skewed, 'thread-mapped')).toBe('thread-mapped');
      mesh.destroy();
      skewed.destroy();
    }));
});
