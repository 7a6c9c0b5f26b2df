import { expectOptionsRefused, gpuTest } from '@weft/testing';
import * as graphology from 'graphology';
import type { AbstractGraph } from 'graphology-types';
import { describe, it } from 'vitest';
import {
  betweennessCentrality,
  connectedComponents,
  dijkstraSingleSourceLength,
  fromGraphology,
  pagerank,
  singleSourceLength,
  toDevice,
} from './index.ts';

const { default: Graph } = graphology;

describe('@weft/graphology functions given null or non-object options', () => {
  // Each failed as a TypeError reading the first option.
  it('throw an InputError naming the function', () =>
    gpuTest(async (device) => {
      const g = new Graph({ type: 'directed' }) as unknown as AbstractGraph;
      g.mergeEdge('a', 'b');
      g.mergeEdge('b', 'c');
      await expectOptionsRefused([
        ['pagerank', (o) => pagerank(g, o)],
        ['pagerank.assign', (o) => pagerank.assign(g, o)],
        ['betweennessCentrality', (o) => betweennessCentrality(g, o)],
        ['betweennessCentrality.assign', (o) => betweennessCentrality.assign(g, o)],
        ['connectedComponents', (o) => connectedComponents(g, o)],
        ['singleSourceLength', (o) => singleSourceLength(g, 'a', o)],
        ['dijkstraSingleSourceLength', (o) => dijkstraSingleSourceLength(g, 'a', o)],
        ['fromGraphology', (o) => fromGraphology(g, o)],
        ['toDevice', (o) => toDevice(device, g, o)],
      ]);
    }));
});
