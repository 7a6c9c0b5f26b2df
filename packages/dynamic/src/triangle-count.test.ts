import { InputError } from '@weft/gpu';
import { kronecker } from '@weft/graph/generators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { dynamicTriangleCount } from './triangle-count.ts';

function hostTriangles(model: HostDynamicGraph): number {
  let count = 0;
  model.adjacency.forEach((adj, u) => {
    for (const v of adj.keys()) {
      if (v <= u) continue;
      for (const w of adj.keys()) if (w > v && model.adjacency[v]!.has(w)) count++;
    }
  });
  return count;
}

describe('dynamicTriangleCount', () => {
  it('counts triangles of a Kronecker graph, then after each of five insertion batches and a deletion', async () => {
    await gpuTest(async (device) => {
      const edges = kronecker({ scale: 9, edgeFactor: 8, seed: 21 });
      const g = await DynamicGraph.fromEdgeList(device, edges);
      const model = new HostDynamicGraph(edges.vertexCount, false);
      model.insertEdges(edges.src, edges.dst);
      const start = hostTriangles(model);
      expect(start).toBeGreaterThan(100);
      expect(await dynamicTriangleCount(g)).toBe(start);
      const rand = mulberry32(4);
      for (let batch = 0; batch < 5; batch++) {
        const size = 400;
        const src = Uint32Array.from({ length: size }, () => Math.floor(rand() * 64));
        const dst = Uint32Array.from({ length: size }, () => Math.floor(rand() * edges.vertexCount));
        await g.insertEdges(src, dst);
        model.insertEdges(src, dst);
        expect(await dynamicTriangleCount(g), `after batch ${batch}`).toBe(hostTriangles(model));
      }
      const gone = [0, 1, 2, 3];
      await g.deleteVertices(gone);
      model.deleteVertices(gone);
      expect(await dynamicTriangleCount(g), 'after vertex deletion').toBe(hostTriangles(model));
      g.destroy();
    });
  });

  it('counts the triangles of a complete graph and rejects directed graphs', async () => {
    await gpuTest(async (device) => {
      const n = 40;
      const src: number[] = [];
      const dst: number[] = [];
      for (let u = 0; u < n; u++) {
        for (let v = u + 1; v < n; v++) {
          src.push(u);
          dst.push(v);
        }
      }
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: false });
      await g.insertEdges(Uint32Array.from(src), Uint32Array.from(dst));
      expect(await dynamicTriangleCount(g)).toBe((n * (n - 1) * (n - 2)) / 6);
      g.destroy();
      const directed = await DynamicGraph.create(device, { vertexCount: 3, directed: true });
      await expect(dynamicTriangleCount(directed)).rejects.toThrow(InputError);
      directed.destroy();
    });
  });
});
