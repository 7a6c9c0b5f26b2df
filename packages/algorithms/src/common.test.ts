import { InputError } from '@weft/gpu';
import { DeviceGraph, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker } from '@weft/graph/generators';
import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { BfsProblem, bfs } from './bfs/bfs.ts';
import { bfsReference } from './bfs/reference.ts';
import { pageRank } from './pagerank.ts';
import { sssp } from './sssp/sssp.ts';
import { testGraphs } from './test-graphs.ts';
import { triangleCount } from './triangles.ts';

describe("loadBalance 'auto' (the algorithms' default)", () => {
  it('measures the largest out-degree once and maps threads only for low-degree graphs', () =>
    gpuTest(async (device) => {
      for (const { name, csr } of testGraphs(false, 5)) {
        const uploaded = uploadGraph(device, csr);
        // The same arrays without the host's degrees, as a GPU-built graph has them.
        const { vertexCount, edgeCount, directed } = csr;
        const bare = new DeviceGraph(
          device,
          vertexCount,
          edgeCount,
          directed,
          uploaded.offsets,
          uploaded.targets,
          undefined,
          undefined,
        );
        let want = 0;
        for (let v = 0; v < vertexCount; v++) want = Math.max(want, csr.offsets[v + 1]! - csr.offsets[v]!);
        expect(uploaded.knownMaxOutDegree, name).toBe(want);
        expect(bare.knownMaxOutDegree, name).toBeUndefined();
        expect(await bare.maxOutDegree(), name).toBe(want);
        uploaded.destroy();
      }
      const mesh = uploadGraph(device, hostCsrFromEdgeList(grid({ width: 20, height: 20 })).csr);
      const skewed = uploadGraph(device, hostCsrFromEdgeList(kronecker({ scale: 10, seed: 2 })).csr);
      const balanceOf = (problem: BfsProblem) => {
        problem.destroy();
        return problem.loadBalance;
      };
      expect(balanceOf(new BfsProblem(mesh))).toBe('thread-mapped');
      expect(balanceOf(new BfsProblem(skewed))).toBe('merge-path');
      expect(balanceOf(new BfsProblem(skewed, { loadBalance: 'thread-mapped' }))).toBe('thread-mapped');
      expect(balanceOf(new BfsProblem(mesh, { loadBalance: 'per-advance' }))).toBe('per-advance');
      mesh.destroy();
      skewed.destroy();
    }));

  it('a graph without known degrees: problems ask for the measurement, run functions make it', () =>
    gpuTest(async (device) => {
      const { csr } = hostCsrFromEdgeList(grid({ width: 12, height: 9 }));
      const uploaded = uploadGraph(device, csr);
      const bare = new DeviceGraph(
        device,
        csr.vertexCount,
        csr.edgeCount,
        false,
        uploaded.offsets,
        uploaded.targets,
        undefined,
        undefined,
      );
      expect(() => new BfsProblem(bare)).toThrow(/maxOutDegree/);
      const { depths } = await bfs(bare, 3);
      expect(Array.from(depths)).toEqual(Array.from(bfsReference(csr, 3).depths));
      expect(bare.knownMaxOutDegree).toBe(4);
      uploaded.destroy();
    }));
});

describe('a graph that is not a DeviceGraph', () => {
  it('gets a one-line InputError saying how to convert it', async () => {
    const graphologyLike = { order: 3, size: 2, forEachEdge: () => {}, forEachNode: () => {} };
    const toGraphology =
      /^graph: this is a graphology graph: convert it with @weft\/graphology's toDevice\(device, graph\)/;
    await expect(pageRank(graphologyLike as never)).rejects.toThrow(toGraphology);
    await expect(bfs(graphologyLike as never, 0)).rejects.toThrow(toGraphology);
    await expect(sssp(graphologyLike as never, 0)).rejects.toThrow(InputError);
    const host = hostCsrFromEdgeList({
      vertexCount: 2,
      src: Uint32Array.of(0),
      dst: Uint32Array.of(1),
      directed: true,
    }).csr;
    await expect(pageRank(host as never)).rejects.toThrow(
      /^graph: this is a host graph: put it on the GPU with uploadGraph/,
    );
    await expect(bfs(undefined as never, 0)).rejects.toThrow(
      /^graph: expected a DeviceGraph \(from uploadGraph\), got undefined$/,
    );
    // A graphology graph has a forEachNeighbor too: it is still not taken for a NeighborGraph.
    const withNeighbors = { ...graphologyLike, forEachNeighbor: () => {} };
    await expect(bfs(withNeighbors as never, 0)).rejects.toThrow(toGraphology);
    await expect(triangleCount(null as never)).rejects.toThrow(/^graph: expected a DeviceGraph/);
  });
});
