import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { expectOptionsRefused, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  DynamicComponents,
  DynamicGraph,
  DynamicPageRank,
  DynamicSssp,
  dynamicPageRank,
  dynamicSssp,
} from './index.ts';

describe('@weft/dynamic functions given null or non-object options', () => {
  // Each failed as a TypeError reading the first option.
  it('throw an InputError naming the function, and change nothing', () =>
    gpuTest(async (device) => {
      const edges = {
        vertexCount: 4,
        src: Uint32Array.of(0, 1, 2),
        dst: Uint32Array.of(1, 2, 3),
        directed: false,
      };
      const { csr } = hostCsrFromEdgeList(edges);
      const uploaded = uploadGraph(device, csr);
      const g = await DynamicGraph.fromEdgeList(device, edges);
      const valued = await DynamicGraph.create(device, { vertexCount: 4, directed: true, values: 'u32' });
      const cc = await DynamicComponents.create(g);
      const src = Uint32Array.of(0);
      const dst = Uint32Array.of(3);
      try {
        await expectOptionsRefused([
          ['DynamicGraph.fromCsr', (o) => DynamicGraph.fromCsr(device, csr, o)],
          ['DynamicGraph.fromDeviceGraph', (o) => DynamicGraph.fromDeviceGraph(device, uploaded, o)],
          ['DynamicGraph.fromEdgeList', (o) => DynamicGraph.fromEdgeList(device, edges, o)],
          ['DynamicGraph.insertEdges', (o) => g.insertEdges(src, dst, undefined, o)],
          ['DynamicGraph.deleteEdges', (o) => g.deleteEdges(src, dst, o)],
          ['DynamicGraph.deleteVertices', (o) => g.deleteVertices([0], o)],
          ['DynamicGraph.rehash', (o) => g.rehash(o)],
          ['DynamicComponents.create', (o) => DynamicComponents.create(g, o)],
          ['DynamicComponents.recompute', (o) => cc.recompute(o)],
          ['DynamicComponents.afterInsert', (o) => cc.afterInsert(src, dst, o)],
          ['DynamicComponents.deleteEdges', (o) => cc.deleteEdges(src, dst, o)],
          ['DynamicComponents.deleteVertices', (o) => cc.deleteVertices([0], o)],
          ['DynamicPageRank.create', (o) => DynamicPageRank.create(g, o)],
          ['dynamicPageRank', (o) => dynamicPageRank(g, o)],
          ['DynamicSssp.create', (o) => DynamicSssp.create(valued, 0, o)],
          ['dynamicSssp', (o) => dynamicSssp(valued, 0, o)],
        ]);
        await expectOptionsRefused(
          [
            ['DynamicGraph.create', (o) => DynamicGraph.create(device, o)],
            ['DynamicGraph.fromArcs', (o) => DynamicGraph.fromArcs(device, { src, dst }, o)],
          ],
          true,
        );
        // No refused batch reached the graph.
        expect(Array.from(await g.degrees())).toEqual([1, 2, 2, 1]);
        expect(Array.from(await cc.result())).toEqual([0, 0, 0, 0]);
      } finally {
        cc.destroy();
        g.destroy();
        valued.destroy();
        uploaded.destroy();
      }
    }));
});
