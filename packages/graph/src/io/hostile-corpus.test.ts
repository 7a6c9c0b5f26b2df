import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '@weft/gpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostCsrFromEdgeList } from '../host-build.ts';
import type { HostEdgeList, HostWeights } from '../host-graph.ts';
import { detectGraphFormat, loadGraph, readGraphFile } from '../node.ts';
import { parseEdgeList } from './edge-list.ts';
import { bytesSource } from './lines.ts';
import { parseMatrixMarket } from './matrix-market.ts';
import { expectRejected } from './rejects.test-support.ts';

// Hostile inputs from issue #28 that were read silently wrong; each must now parse right or be refused.

const edgeList = (text: string, chunk = 1 << 20) =>
  parseEdgeList(bytesSource(text, chunk), { name: 'g.csv' });
const matrixMarket = (text: string, chunk = 1 << 20) =>
  parseMatrixMarket(bytesSource(text, chunk), { name: 'm.mtx' });
const BOM = '\ufeff';

describe('hostile text inputs', () => {
  it('refuses empty CSV fields naming the line', async () => {
    for (const text of ['1,2\n0,,1\n', '1,2\n,0,1\n', '1,2\n0 , ,1\n']) {
      await expectRejected((chunk) => edgeList(text, chunk), /g\.csv:2: empty field/);
    }
    expect([...(await edgeList('0 , 1\n2,\t3,\n,,\n')).dst]).toEqual([1, 3]);
  });

  it('strips a UTF-8 byte order mark', async () => {
    for (const chunk of [1, 2, 1 << 20]) {
      const g = await edgeList(`${BOM}0 1\n1 2\n`, chunk);
      expect([...g.src]).toEqual([0, 1]);
      const m = await matrixMarket(
        `${BOM}%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n`,
        chunk,
      );
      expect([...m.dst]).toEqual([1]);
    }
  });

  it('refuses NaN, infinite and out-of-range weights naming the line', async () => {
    await expectRejected((chunk) => edgeList('0 1 2\n1 2 NaN\n', chunk), /g\.csv:2: weight is not a number/);
    await expectRejected((chunk) => edgeList('0 1 Infinity\n', chunk), /g\.csv:1: weight is not a number/);
    await expectRejected(
      (chunk) => edgeList('0 1 1.5\n1 2 1e39\n', chunk),
      /g\.csv:2: weight 1e\+39 does not fit f32/,
    );
    await expectRejected(
      (chunk) => edgeList('0 1 1\n1 2 4294967296\n', chunk),
      /g\.csv:2: weight 4294967296 does not fit u32/,
    );
  });

  it('keeps skew-symmetric arcs distinct: a_ji = -a_ij, directed', async () => {
    const m = await matrixMarket(
      '%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 4\n3 2 -1.5\n',
    );
    expect(m.directed).toBe(true);
    const { csr } = hostCsrFromEdgeList(m);
    // Before: built as undirected, both arcs of a pair merged to -|w|.
    expect([...csr.targets]).toEqual([1, 0, 2, 1]);
    expect([...csr.weights!]).toEqual([-4, 4, 1.5, -1.5]);
  });

  it('refuses hermitian files in one line', async () => {
    await expectRejected(
      (chunk) => matrixMarket('%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n', chunk),
      /^m\.mtx:1: unsupported symmetry 'hermitian'/,
    );
  });
});

describe('hostile edge arrays', () => {
  const edges = (src: ArrayLike<number>, weights?: unknown): HostEdgeList => ({
    vertexCount: 3,
    src: src as Uint32Array,
    dst: Uint32Array.of(1, 2),
    directed: true,
    ...(weights === undefined ? {} : { weights: weights as HostWeights }),
  });

  it('refuses negative and fractional ids from other typed arrays', () => {
    expect(() => hostCsrFromEdgeList(edges(Int32Array.of(0, -1)))).toThrow(
      /edges\.src\[1\] = -1 is negative/,
    );
    expect(() => hostCsrFromEdgeList(edges(Float64Array.of(0, 1.5)))).toThrow(/= 1\.5 is not an integer/);
    expect(hostCsrFromEdgeList(edges(Int32Array.of(0, 1))).csr.targets).toEqual(Uint32Array.of(1, 2));
  });

  it('refuses NaN and infinite weights; narrows Float64Array weights to f32', () => {
    expect(() => hostCsrFromEdgeList(edges(Uint32Array.of(0, 1), Float32Array.of(1, Number.NaN)))).toThrow(
      /edges\.weights\[1\] = NaN is not a finite number/,
    );
    expect(() =>
      hostCsrFromEdgeList(edges(Uint32Array.of(0, 1), Float32Array.of(Number.NEGATIVE_INFINITY, 1))),
    ).toThrow(/edges\.weights\[0\] = -Infinity/);
    expect(() => hostCsrFromEdgeList(edges(Uint32Array.of(0, 1), Float64Array.of(1, 1e39)))).toThrow(
      /= 1e\+39 does not fit f32/,
    );
    expect(() => hostCsrFromEdgeList(edges(Uint32Array.of(0, 1), [1, 2]))).toThrow(InputError);
    const { csr } = hostCsrFromEdgeList(edges(Uint32Array.of(0, 1), Float64Array.of(0.1, 2)));
    expect(csr.weights).toEqual(Float32Array.of(0.1, 2));
  });
});

describe('hostile files', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-hostile-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const banner = '%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 2 5\n2 3 7\n';

  it('lets a Matrix Market banner decide, and names both on a mismatched extension', async () => {
    for (const name of ['g.txt', 'g.el']) {
      await writeFile(join(dir, name), banner);
      await expect(loadGraph(join(dir, name))).rejects.toThrow(
        new RegExp(`banner but its extension '\\.${name.slice(2)}' names edgelist`),
      );
      const forced = await readGraphFile(join(dir, name), { format: 'mtx' });
      expect(forced.kind === 'edges' && [...forced.edges.dst]).toEqual([1, 2]);
    }
    await writeFile(join(dir, 'noext'), `${BOM}${banner}`);
    expect(await detectGraphFormat(join(dir, 'noext'))).toBe('mtx');
    expect((await loadGraph(join(dir, 'noext'))).csr.edgeCount).toBe(2);
  });

  it('says a directory is a directory and a missing file is missing', async () => {
    await mkdir(join(dir, 'd.mtx'));
    await expect(loadGraph(join(dir, 'd.mtx'))).rejects.toThrow(/d\.mtx: is a directory/);
    await expect(loadGraph(dir)).rejects.toThrow(/is a directory/);
    await expect(loadGraph(join(dir, 'none.el'))).rejects.toThrow(/none\.el: no such file/);
  });
});
