import { expectOptionsRefused, gpuTest } from '@weft/testing';
import { describe, it } from 'vitest';
import {
  grid,
  kronecker,
  kroneckerMultigraphOnDevice,
  kroneckerMultigraphPartitioned,
  kroneckerOnDevice,
  philoxKronecker,
  philoxKroneckerMultigraph,
  philoxUniform,
  philoxUniformMultigraph,
  randomGeometric,
  recordKroneckerEdges,
  recordUniformEdges,
  road,
  uniformMultigraphOnDevice,
  uniformMultigraphPartitioned,
  uniformOnDevice,
  uniformRandom,
} from './generators/index.ts';
import {
  bitmapToQueue,
  DeviceBuildPlan,
  deviceGraphFromCsr,
  deviceGraphFromEdgeList,
  FrontierBitmap,
  FrontierQueue,
  hostCsrFromEdgeList,
  PartitionedGraph,
  uploadBinaryCsr,
  uploadGraph,
} from './index.ts';
import {
  binaryCsrHeader,
  edgeListChunks,
  matrixMarketChunks,
  parseDimacs,
  parseEdgeList,
  parseMatrixMarket,
  readBinaryCsr,
} from './io/index.ts';
import { loadGraph, readGraphFile, uploadBinaryCsrFile, writeGraphFile } from './node.ts';

describe('@weft/graph functions given null or non-object options', () => {
  // Each failed as a TypeError reading the first option, or (a parser) deep inside its read loop.
  it('throw an InputError naming the function', () =>
    gpuTest(async (device) => {
      const edges = { vertexCount: 3, src: Uint32Array.of(0, 1), dst: Uint32Array.of(1, 2), directed: true };
      const { csr } = hostCsrFromEdgeList(edges);
      const graph = uploadGraph(device, csr);
      const queue = new FrontierQueue(device, 3);
      const bitmap = new FrontierBitmap(device, 3);
      const text = new TextEncoder().encode('0 1\n1 2\n');
      const plan = DeviceBuildPlan.create(device, { vertexCount: 3, edgeCount: 2, directed: true });
      try {
        await expectOptionsRefused([
          ['hostCsrFromEdgeList', (o) => hostCsrFromEdgeList(edges, o)],
          ['uploadGraph', (o) => uploadGraph(device, csr, o)],
          ['PartitionedGraph.upload', (o) => PartitionedGraph.upload([device], csr, o)],
          ['new FrontierQueue', (o) => new FrontierQueue(device, 3, o)],
          ['bitmapToQueue', (o) => bitmapToQueue(device, bitmap, queue.next, o)],
          ['deviceGraphFromEdgeList', (o) => deviceGraphFromEdgeList(device, edges, o)],
          ['deviceGraphFromCsr', (o) => deviceGraphFromCsr(device, csr, o)],
          [
            'DeviceBuildPlan.create',
            (o) => DeviceBuildPlan.create(device, { vertexCount: 3, edgeCount: 2, directed: true }, o),
          ],
          ['uploadBinaryCsr', (o) => uploadBinaryCsr(device, [text], o)],
          ['parseEdgeList', (o) => parseEdgeList([text], o)],
          ['parseMatrixMarket', (o) => parseMatrixMarket([text], o)],
          ['parseDimacs', (o) => parseDimacs([text], o)],
          ['readBinaryCsr', (o) => readBinaryCsr([text], o)],
          ['binaryCsrHeader', (o) => binaryCsrHeader(text, o)],
          ['edgeListChunks', (o) => edgeListChunks(csr, o)],
          ['matrixMarketChunks', (o) => matrixMarketChunks(csr, o)],
          ['readGraphFile', (o) => readGraphFile('/nonexistent/g.txt', o)],
          ['loadGraph', (o) => loadGraph('/nonexistent/g.txt', o)],
          ['writeGraphFile', (o) => writeGraphFile('/nonexistent/g.txt', csr, o)],
          ['uploadBinaryCsrFile', (o) => uploadBinaryCsrFile(device, '/nonexistent/g.wcsr', o)],
        ]);
      } finally {
        for (const x of [graph, queue, bitmap]) x.destroy();
        plan.destroy();
      }
    }));
});

describe('@weft/graph generators given null, non-object or no options', () => {
  // They take no defaults: each failed as a TypeError reading the first option.
  it('throw an InputError naming the generator', () =>
    gpuTest(async (device) => {
      const rec = device.recorder();
      await expectOptionsRefused(
        [
          ['kronecker', (o) => kronecker(o)],
          ['uniformRandom', (o) => uniformRandom(o)],
          ['grid', (o) => grid(o)],
          ['road', (o) => road(o)],
          ['randomGeometric', (o) => randomGeometric(o)],
          ['philoxKronecker', (o) => philoxKronecker(o)],
          ['philoxUniform', (o) => philoxUniform(o)],
          ['philoxKroneckerMultigraph', (o) => philoxKroneckerMultigraph(o)],
          ['philoxUniformMultigraph', (o) => philoxUniformMultigraph(o)],
          ['kroneckerOnDevice', (o) => kroneckerOnDevice(device, o)],
          ['uniformOnDevice', (o) => uniformOnDevice(device, o)],
          ['recordKroneckerEdges', (o) => recordKroneckerEdges(rec, undefined as never, o)],
          ['recordUniformEdges', (o) => recordUniformEdges(rec, undefined as never, o)],
          ['kroneckerMultigraphOnDevice', (o) => kroneckerMultigraphOnDevice(device, o)],
          ['uniformMultigraphOnDevice', (o) => uniformMultigraphOnDevice(device, o)],
          ['kroneckerMultigraphPartitioned', (o) => kroneckerMultigraphPartitioned([device], o)],
          ['uniformMultigraphPartitioned', (o) => uniformMultigraphPartitioned([device], o)],
        ],
        true,
      );
      // The partition options beside the required generator options.
      const small = { scale: 4, edgeFactor: 2, seed: 1 };
      await expectOptionsRefused([
        ['kroneckerMultigraphPartitioned', (o) => kroneckerMultigraphPartitioned([device], small, o)],
        ['uniformMultigraphPartitioned', (o) => uniformMultigraphPartitioned([device], small, o)],
      ]);
      await rec.submit();
    }));
});
