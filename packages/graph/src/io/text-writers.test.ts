import { InputError } from '@weft/gpu';
import { expectArrayEqual } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { kronecker } from '../generators/kronecker.ts';
import { uniformRandom } from '../generators/uniform.ts';
import { hostCsrFromEdgeList } from '../host-build.ts';
import type { HostCsr } from '../host-graph.ts';
import { parseDimacs } from './dimacs.ts';
import { parseEdgeList } from './edge-list.ts';
import { parseMatrixMarket } from './matrix-market.ts';
import { dimacsChunks, edgeListChunks, matrixMarketChunks } from './text-writers.ts';

function expectSameCsr(a: HostCsr, b: HostCsr) {
  expectArrayEqual(a.offsets, b.offsets, 'offsets');
  expectArrayEqual(a.targets, b.targets, 'targets');
  if (b.weights) {
    expect(a.weights?.constructor).toBe(b.weights.constructor);
    expectArrayEqual(a.weights!, b.weights, 'weights');
  }
}

describe('text writers', () => {
  it('round-trip a weighted Kronecker CSR through .wel and symmetric and general .mtx', async () => {
    const { csr } = hostCsrFromEdgeList(kronecker({ scale: 9, seed: 2, weights: true }));
    const el = await parseEdgeList(edgeListChunks(csr, { oneBased: true }), {
      oneBased: true,
      vertexCount: csr.vertexCount,
    });
    expectSameCsr(hostCsrFromEdgeList(el, { symmetrize: false }).csr, csr);
    for (const symmetric of [false, true]) {
      const mm = await parseMatrixMarket(matrixMarketChunks(csr, { symmetric }));
      expect(mm.directed).toBe(!symmetric);
      expectSameCsr(hostCsrFromEdgeList(mm, { symmetrize: false }).csr, csr);
    }
    const gr = await parseDimacs(dimacsChunks(csr));
    expectSameCsr(hostCsrFromEdgeList(gr, { symmetrize: false }).csr, csr);
    expect(() => dimacsChunks({ ...csr, weights: new Int32Array(csr.edgeCount).fill(-1) })).toThrow(
      /negative/,
    );
  });

  it('writes f32 weights that read back exactly, and patterns without weights', async () => {
    const edges = uniformRandom({ scale: 6, edgeFactor: 4, seed: 3 });
    const weights = new Float32Array(edges.src.length);
    for (let i = 0; i < weights.length; i++) weights[i] = Math.fround(Math.sin(i) * 10 ** ((i % 13) - 6));
    const { csr } = hostCsrFromEdgeList({ ...edges, weights });
    const mm = await parseMatrixMarket(matrixMarketChunks(csr));
    expectSameCsr(hostCsrFromEdgeList(mm, { symmetrize: false }).csr, csr);
    const { weights: _, ...pattern } = csr;
    const text = new TextDecoder().decode(matrixMarketChunks(pattern)[Symbol.iterator]().next().value);
    expect(text.split('\n')[0]).toBe('%%MatrixMarket matrix coordinate pattern general');
    expect(() => matrixMarketChunks({ ...csr, directed: true }, { symmetric: true })).toThrow(InputError);
    const oneWay = hostCsrFromEdgeList({ ...edges, directed: true }).csr;
    expect(() => matrixMarketChunks({ ...oneWay, directed: false }, { symmetric: true })).toThrow(
      /not symmetric/,
    );
  });
});
