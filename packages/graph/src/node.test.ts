import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeviceLimitError, InputError } from '@weft/gpu';
import { expectArrayEqual } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniformRandom } from './generators/uniform.ts';
import { hostCsrFromEdgeList } from './host-build.ts';
import { graphFormatOf, loadGraph, readGraphFile, writeGraphFile } from './node.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-graph-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('@weft/graph/node', () => {
  it('picks the format from the extension', () => {
    expect(graphFormatOf('a/b.MTX')).toBe('mtx');
    expect(graphFormatOf('x.el')).toBe('edgelist');
    expect(graphFormatOf('x.csv')).toBe('edgelist');
    expect(graphFormatOf('x.tsv')).toBe('edgelist');
    expect(graphFormatOf('road.gr')).toBe('dimacs');
    expect(graphFormatOf('g.wcsr')).toBe('wcsr');
    expect(() => graphFormatOf('g.bin')).toThrow(/unknown graph file extension '\.bin'/);
  });

  it('streams a multi-megabyte edge list and matches the generated edges', async () => {
    const edges = uniformRandom({ scale: 15, edgeFactor: 8, seed: 5 });
    const lines = ['# generated'];
    for (let i = 0; i < edges.src.length; i++) lines.push(`${edges.src[i]}\t${edges.dst[i]}`);
    const path = join(dir, 'urand.el');
    await writeFile(path, `${lines.join('\n')}\n`);
    const file = await readGraphFile(path);
    if (file.kind !== 'edges') throw new Error('expected edges');
    expectArrayEqual(file.edges.src, edges.src, 'src');
    expectArrayEqual(file.edges.dst, edges.dst, 'dst');

    const loaded = await loadGraph(path, { directed: false });
    const built = hostCsrFromEdgeList(edges);
    expectArrayEqual(loaded.csr.targets, built.csr.targets, 'targets');
    expect(loaded.report).toEqual(built.report);
  });

  it('renumbers named ids on load, keeps them through the CSR and writes them back', async () => {
    const path = join(dir, 'names.el');
    await writeFile(path, 'paris lyon 465\nlyon marseille 315\nparis lille 225\nlyon paris 465\n');
    const { csr } = await loadGraph(path, { renumber: true, weightType: 'u32' });
    expect(csr.ids).toEqual(['paris', 'lyon', 'marseille', 'lille']);
    expect([...csr.offsets]).toEqual([0, 2, 4, 4, 4]);
    expect([...csr.targets]).toEqual([1, 3, 0, 2]);
    const out = join(dir, 'names-out.el');
    await writeGraphFile(out, csr);
    const again = await loadGraph(out, { renumber: true, weightType: 'u32' });
    // Numbering follows first appearance, so compare the named edges.
    const named = (g: typeof csr) => {
      const edges: string[] = [];
      for (let v = 0; v < g.vertexCount; v++) {
        for (let e = g.offsets[v]!; e < g.offsets[v + 1]!; e++) {
          edges.push(`${g.ids![v]} ${g.ids![g.targets[e]!]} ${g.weights![e]}`);
        }
      }
      return edges.sort();
    };
    expect(named(again.csr)).toEqual(named(csr));
    expect(named(csr)).toContain('lyon marseille 315');
    const refused = await writeGraphFile(join(dir, 'names.mtx'), csr).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InputError);
    expect((refused as Error).message).toMatch(/names\.mtx: .*cannot store: write an edge list/);
    const mtx = join(dir, 'numbered.mtx');
    await writeFile(mtx, '%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n');
    const wrong = await loadGraph(mtx, { renumber: true }).catch((e: unknown) => e);
    expect((wrong as Error).message).toMatch(/renumber is for edge lists/);
  });

  it('loads Matrix Market and DIMACS files into CSR and names the file in errors', async () => {
    const mtx = join(dir, 'tiny.mtx');
    await writeFile(mtx, '%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n');
    const { csr } = await loadGraph(mtx, { build: { keepSelfLoops: true } });
    expect([...csr.offsets]).toEqual([0, 1, 2, 3]);
    expect([...csr.targets]).toEqual([1, 0, 2]);
    expect(csr.directed).toBe(false);

    const gr = join(dir, 'road.gr');
    await writeFile(gr, 'p sp 3 2\na 1 2 5\na 2 4 1\n');
    const err = await readGraphFile(gr).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe('road.gr:3: arc head 4 is out of range [1, 3]');

    const asEdges = join(dir, 'data.dat');
    await writeFile(asEdges, '1 2\n');
    const forced = await readGraphFile(asEdges, { format: 'edgelist', oneBased: true });
    expect(forced.kind === 'edges' && [...forced.edges.src]).toEqual([0]);

    // A size line claiming more vertices than the target holds: refused at once, naming the file.
    const huge = join(dir, 'huge.mtx');
    await writeFile(huge, '%%MatrixMarket matrix coordinate pattern general\n4294967295 4294967295 1\n1 2\n');
    const limited = await loadGraph(huge, {
      maxBytes: 2 ** 40,
      build: { maxVertexCount: 2 ** 25 - 1 },
    }).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(DeviceLimitError);
    expect((limited as Error).message).toMatch(/^huge\.mtx: a CSR of 4294967295 vertices/);
  });

  it('refuses declared sizes, ids and lines beyond the budget before allocating (#28)', async () => {
    const refused = async (file: string, text: string, message: RegExp, options = {}) => {
      const path = join(dir, file);
      await writeFile(path, text);
      const err = await loadGraph(path, options).catch((e: unknown) => e);
      expect(err, file).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(message);
    };
    const mtx = '%%MatrixMarket matrix coordinate pattern general\n';
    await refused(
      'rows.mtx',
      `${mtx}4000000000 4000000000 1\n1 2\n`,
      /^rows\.mtx:2: a 4000000000 x 4000000000 matrix with 1 entries needs about 32000000020 bytes, over the budget of 1000000 \(maxBytes\)$/,
      { maxBytes: 1e6 },
    );
    await refused(
      'entries.mtx',
      `${mtx}3 3 1000\n1 2\n`,
      /^entries\.mtx:2: 1000 entries cannot fit in the file's/,
    );
    await refused(
      'far.el',
      '0 1\n4294967294 1\n',
      /^far\.el:2: a graph of 4294967295 vertices and 2 edges needs/,
      {
        maxBytes: 2 ** 31,
      },
    );
    await refused('arcs.gr', 'p sp 3 100\na 1 2 1\n', /^arcs\.gr:1: 100 arcs cannot fit/);
    await refused(
      'long.el',
      `0 1\n${'0'.repeat(100)} 1\n`,
      /^long\.el:2: line is longer than 64 bytes \(maxLineBytes\)$/,
      {
        maxLineBytes: 64,
      },
    );
  });

  it('writes and reads .wcsr files and rejects a truncated one before allocating', async () => {
    const { csr } = hostCsrFromEdgeList(uniformRandom({ scale: 10, seed: 1, weights: true }));
    const path = join(dir, 'g.wcsr');
    await writeGraphFile(path, csr);
    const back = await loadGraph(path);
    expect(back.report).toBeUndefined();
    expectArrayEqual(back.csr.offsets, csr.offsets, 'offsets');
    expectArrayEqual(back.csr.targets, csr.targets, 'targets');
    expectArrayEqual(back.csr.weights!, csr.weights!, 'weights');

    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(path);
    const cut = join(dir, 'cut.wcsr');
    await writeFile(cut, bytes.subarray(0, 100));
    await expect(readGraphFile(cut)).rejects.toThrow(
      /cut\.wcsr: byte 16: the header implies \d+ bytes but the file has 100/,
    );
  });
});

describe('writeGraphFile', () => {
  it('writes every format so that loadGraph reads back the same CSR', async () => {
    const { csr } = hostCsrFromEdgeList(uniformRandom({ scale: 8, seed: 4, weights: true }));
    for (const [file, options] of [
      ['w.wcsr', {}],
      ['w.mtx', { symmetric: true }],
      ['w.mtx', {}],
      ['w.wel', {}],
      ['w.gr', {}],
    ] as const) {
      const path = join(dir, file);
      await writeGraphFile(path, csr, options);
      const back = await loadGraph(path, { build: { symmetrize: false } });
      expectArrayEqual(back.csr.offsets, csr.offsets, `${file} offsets`);
      expectArrayEqual(back.csr.targets, csr.targets, `${file} targets`);
      expectArrayEqual(back.csr.weights!, csr.weights!, `${file} weights`);
    }
    await expect(writeGraphFile(join(dir, 'x.wcsr'), uniformRandom({ scale: 2, seed: 1 }))).rejects.toThrow(
      /holds a CSR/,
    );
  });
});
