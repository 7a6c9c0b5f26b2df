import { describe, expect, it } from 'vitest';
import { bytesSource } from './lines.ts';
import { parseMatrixMarket } from './matrix-market.ts';
import { expectRejected } from './rejects.test-support.ts';

const parse = (text: string, chunk = 1 << 20) =>
  parseMatrixMarket(bytesSource(text, chunk), { name: 'm.mtx' });

const SYMMETRIC_REAL = `%%MatrixMarket matrix coordinate real symmetric
% a comment
%another

4 4 4
1 1 2.5
3 1 -1e-3
4 2 0
4 4 7
`;

describe('parseMatrixMarket', () => {
  it('mirrors symmetric entries once, keeps the diagonal single and explicit zeros, for any chunking', async () => {
    for (const chunk of [1, 2, 3, 7, 1 << 20]) {
      for (const text of [
        SYMMETRIC_REAL,
        SYMMETRIC_REAL.replaceAll('\n', '\r\n'),
        SYMMETRIC_REAL.trimEnd(),
      ]) {
        const g = await parse(text, chunk);
        expect(g.vertexCount).toBe(4);
        expect(g.directed).toBe(false);
        expect([...g.src]).toEqual([0, 2, 0, 3, 1, 3]);
        expect([...g.dst]).toEqual([0, 0, 2, 1, 3, 3]);
        expect(g.weights).toBeInstanceOf(Float32Array);
        expect([...g.weights!]).toEqual([2.5, Math.fround(-1e-3), Math.fround(-1e-3), 0, 0, 7]);
      }
    }
  });

  it('reads pattern files without weights, and integer and skew-symmetric values', async () => {
    const pattern = await parse('%%MatrixMarket matrix coordinate pattern general\n3 5 2\n1 5\n3 2\n');
    expect(pattern.vertexCount).toBe(5);
    expect(pattern.directed).toBe(true);
    expect(pattern.weights).toBeUndefined();
    expect([...pattern.src]).toEqual([0, 2]);
    expect([...pattern.dst]).toEqual([4, 1]);

    const integer = await parse(
      '%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 4000000000\n2 1 3\n',
    );
    expect(integer.weights).toBeInstanceOf(Uint32Array);
    expect([...integer.weights!]).toEqual([4000000000, 3]);

    const skew = await parse('%%MatrixMarket MATRIX Coordinate INTEGER skew-symmetric\n3 3 1\n3 1 5\n');
    expect(skew.weights).toBeInstanceOf(Int32Array);
    expect([...skew.src]).toEqual([2, 0]);
    expect([...skew.weights!]).toEqual([5, -5]);
  });

  it('reads lines of separators only (vertical tab, form feed, a lone CR) as blank', async () => {
    const g = await parse(
      '%%MatrixMarket matrix coordinate pattern general\n\v\n2 2 1\n\f \r\r\n2 1\n\t\n',
      1,
    );
    expect([...g.src]).toEqual([1]);
    expect([...g.dst]).toEqual([0]);
  });

  it('keeps isolated vertices and takes the larger dimension', async () => {
    const g = await parse('%%MatrixMarket matrix coordinate real general\n10 3 0\n');
    expect(g.vertexCount).toBe(10);
    expect(g.src.length).toBe(0);
  });

  const header = '%%MatrixMarket matrix coordinate real general\n';
  const cases: [string, string, RegExp][] = [
    ['bad banner', '%%MatrixMarkt matrix coordinate real general\n1 1 0\n', /m\.mtx:1: bad banner/],
    ['missing banner', '1 1 0\n', /m\.mtx:1: bad banner/],
    [
      'complex',
      '%%MatrixMarket matrix coordinate complex general\n1 1 0\n',
      /m\.mtx:1: unsupported field 'complex'/,
    ],
    ['array', '%%MatrixMarket matrix array real general\n1 1\n', /m\.mtx:1: unsupported format 'array'/],
    ['hermitian', '%%MatrixMarket matrix coordinate real hermitian\n', /m\.mtx:1: unsupported symmetry/],
    [
      'skew pattern',
      '%%MatrixMarket matrix coordinate pattern skew-symmetric\n',
      /m\.mtx:1: a pattern matrix/,
    ],
    ['negative count', `${header}% c\n3 -3 1\n1 1 1\n`, /m\.mtx:3: column count is negative/],
    ['size tokens', `${header}3 3\n`, /m\.mtx:2: size line must be/],
    ['row out of range', `${header}3 3 2\n1 1 1\n4 1 1\n`, /m\.mtx:4: row index 4 is out of range \[1, 3\]/],
    ['zero index', `${header}3 3 1\n1 0 1\n`, /m\.mtx:3: column index 0 is out of range/],
    ['too few', `${header}3 3 3\n1 1 1\n2 2 2\n`, /m\.mtx:4: the file ends after 2 of the 3 entries/],
    ['too many', `${header}3 3 1\n1 1 1\n\n2 2 2\n`, /m\.mtx:5: more entries than the 1/],
    ['non-numeric', `${header}3 3 1\n1 x 1\n`, /m\.mtx:3: column index is not a non-negative integer: 'x'/],
    ['bad real', `${header}3 3 1\n1 1 1.2.3\n`, /m\.mtx:3: value is not a number: '1\.2\.3'/],
    ['infinite real', `${header}3 3 1\n1 1 -1e400\n`, /m\.mtx:3: value is too large: '-1e400'/],
    ['real beyond f32', `${header}3 3 2\n1 1 1\n2 1 3.5e38\n`, /m\.mtx:4: weight 3\.5e\+38 does not fit f32/],
    [
      'integer beyond i32',
      '%%MatrixMarket matrix coordinate integer general\n3 3 2\n1 1 -1\n2 1 3000000000\n',
      /m\.mtx:4: weight 3000000000 does not fit i32 \(weights are stored as i32 because they are all integers, some negative/,
    ],
    [
      'skew mirror beyond i32',
      '%%MatrixMarket matrix coordinate integer skew-symmetric\n3 3 1\n2 1 -2147483648\n',
      /m\.mtx:3: weight 2147483648 does not fit i32/,
    ],
    ['missing value', `${header}3 3 1\n1 1\n`, /m\.mtx:3: a real entry needs 3 values, found 2/],
    ['no size line', `${header}% only comments\n`, /m\.mtx:2: the file ends before the size line/],
    ['empty', '', /m\.mtx:1: empty file/],
    [
      'skew diagonal',
      '%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 2 1\n',
      /m\.mtx:3: a skew-symmetric/,
    ],
  ];
  for (const [what, text, message] of cases) {
    it(`rejects ${what} with the line`, () => expectRejected((chunk) => parse(text, chunk), message));
  }
});
