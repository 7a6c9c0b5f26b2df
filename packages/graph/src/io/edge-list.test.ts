import { describe, expect, it } from 'vitest';
import { type EdgeListOptions, parseEdgeList } from './edge-list.ts';
import { bytesSource } from './lines.ts';
import { expectRejected } from './rejects.test-support.ts';

const parse = (text: string, chunk = 1 << 20, options: EdgeListOptions = {}) =>
  parseEdgeList(bytesSource(text, chunk), { name: 'g.txt', ...options });

describe('parseEdgeList', () => {
  it('reads SNAP files with comments, tabs, commas and CRLF, for any chunking', async () => {
    const text = '# Directed graph\n# FromNodeId\tToNodeId\n0\t1\n% other comment\n  12 , 3\n\n1234567 0\n';
    for (const chunk of [1, 2, 5, 1 << 20]) {
      for (const t of [text, text.replaceAll('\n', '\r\n')]) {
        const g = await parse(t, chunk);
        expect(g.vertexCount).toBe(1234568);
        expect([...g.src]).toEqual([0, 12, 1234567]);
        expect([...g.dst]).toEqual([1, 3, 0]);
        expect(g.weights).toBeUndefined();
        expect(g.directed).toBe(true);
      }
    }
  });

  it('renumbers named and 64-bit ids in order of first appearance, for any chunking', async () => {
    const text = 'alice bob 2\n9007199254740993 alice 1\n# comment\nbob -4 3\nzoë\t9007199254740993,5\n';
    for (const chunk of [1, 3, 1 << 20]) {
      const g = await parse(text, chunk, { renumber: true });
      expect(g.ids).toEqual(['alice', 'bob', '9007199254740993', '-4', 'zoë']);
      expect(g.vertexCount).toBe(5);
      expect([...g.src]).toEqual([0, 2, 1, 4]);
      expect([...g.dst]).toEqual([1, 0, 3, 2]);
      expect([...g.weights!]).toEqual([2, 1, 3, 5]);
    }
    const empty = await parse('# none\n', 1, { renumber: true });
    expect(empty.vertexCount).toBe(0);
    expect(empty.ids).toEqual([]);
    await expectRejected((c) => parse('a b\n', c, { renumber: true, oneBased: true }), /leave out oneBased/);
    await expectRejected(
      (c) => parse('a b\n', c, { renumber: true, vertexCount: 3 }),
      /leave out vertexCount/,
    );
    const bad = new Uint8Array([0x61, 0x20, 0xc3, 0x28, 0x0a]);
    await expectRejected(
      () => parseEdgeList([bad], { name: 'g.txt', renumber: true }),
      /target id is not valid UTF-8.*g\.txt:1|g\.txt:1.*UTF-8/,
    );
  });

  it('reads a weight column, one-based ids and a given vertex count', async () => {
    const ints = await parse('1 2 7\n2 3 255\n', 1, { oneBased: true, vertexCount: 5, directed: false });
    expect(ints.vertexCount).toBe(5);
    expect([...ints.src]).toEqual([0, 1]);
    expect(ints.weights).toBeInstanceOf(Uint32Array);
    expect([...ints.weights!]).toEqual([7, 255]);
    expect(ints.directed).toBe(false);
    const reals = await parse('0,1,0.5\n1,0,-2e3\n');
    expect(reals.weights).toBeInstanceOf(Float32Array);
    expect([...reals.weights!]).toEqual([0.5, -2000]);
    // Lines of separators only (vertical tab, form feed, a lone CR, commas) are blank.
    const blank = await parse('0 1\n\v\n \f\t\n\r\r\n,,\n1 0\n', 1);
    expect([...blank.src]).toEqual([0, 1]);
    const forced = await parse('0 1 3\n', 1 << 20, { weightType: 'f32' });
    expect(forced.weights).toBeInstanceOf(Float32Array);
    expect((await parse('# nothing\n')).vertexCount).toBe(0);
  });

  const cases: [string, string, EdgeListOptions, RegExp][] = [
    ['non-numeric id', '0 1\n0 a\n', {}, /g\.txt:2: target id is not a non-negative integer: 'a'/],
    ['negative id', '0 1\n-4 1\n', {}, /g\.txt:2: source id is negative/],
    ['too many columns', '0 1 2 3\n', {}, /g\.txt:1: an edge needs 'source target \[weight\]', found 4/],
    ['one column', '0 1\n7\n', {}, /g\.txt:2: found 1 values but earlier edges have 2/],
    ['mixed weights', '0 1 5\n1 2\n', {}, /g\.txt:2: found 2 values but earlier edges have 3 \(weighted\)/],
    [
      'id beyond vertexCount',
      '0 1\n\n# c\n1 9\n',
      { vertexCount: 9 },
      /g\.txt:4: target id 9 is out of range \(9 vertices\)/,
    ],
    ['zero in one-based', '1 2\n0 2\n', { oneBased: true }, /g\.txt:2: source id 0 is below 1/],
    ['bad weight', '0 1 x\n', {}, /g\.txt:1: weight is not a number: 'x'/],
    ['id too large', '0 4294967295\n', {}, /g\.txt:1: target id 4294967295 is out of range/],
    [
      'a weight beyond u32',
      '0 1 5\n# c\n1 2 4294967296\n',
      {},
      /g\.txt:3: weight 4294967296 does not fit u32 \(weights are stored as u32 because they are all integers/,
    ],
    ['a weight beyond i32', '0 1 -5\n1 2 2147483648\n', {}, /g\.txt:2: weight 2147483648 does not fit i32/],
    [
      'a fraction as u32',
      '0 1 5\n1 2 0.5\n',
      { weightType: 'u32' },
      /g\.txt:2: weight 0\.5 does not fit u32$/,
    ],
    ['a weight beyond f32', '0 1 0.5\n1 2 1e39\n', {}, /g\.txt:2: weight 1e\+39 does not fit f32/],
    ['an infinite weight', '0 1 1e999\n', {}, /g\.txt:1: weight is too large: '1e999'/],
  ];
  for (const [what, text, options, message] of cases) {
    it(`rejects ${what} with the line`, () =>
      expectRejected((chunk) => parse(text, chunk, options), message));
  }
});
