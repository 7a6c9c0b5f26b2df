import { describe, expect, it } from 'vitest';
import { parseDimacs } from './dimacs.ts';
import { bytesSource } from './lines.ts';
import { expectRejected } from './rejects.test-support.ts';

const parse = (text: string, chunk = 1 << 20) => parseDimacs(bytesSource(text, chunk), { name: 'r.gr' });

const ROAD = `c 9th DIMACS Implementation Challenge: Shortest Paths
c
p sp 4 3
c arcs
a 1 2 803
a 2 1 803
a 4 3 0
`;

describe('parseDimacs', () => {
  it('reads arcs 1-based with u32 lengths, for any chunking and CRLF', async () => {
    for (const chunk of [1, 4, 1 << 20]) {
      for (const text of [ROAD, ROAD.replaceAll('\n', '\r\n')]) {
        const g = await parse(text, chunk);
        expect(g.vertexCount).toBe(4);
        expect(g.directed).toBe(true);
        expect([...g.src]).toEqual([0, 1, 3]);
        expect([...g.dst]).toEqual([1, 0, 2]);
        expect(g.weights).toBeInstanceOf(Uint32Array);
        expect([...g.weights!]).toEqual([803, 803, 0]);
      }
    }
  });

  const cases: [string, string, RegExp][] = [
    ['arc before p', 'c x\na 1 2 3\n', /r\.gr:2: an arc before the 'p sp n m' line/],
    ['bad p', 'p max 3 3\n', /r\.gr:1: problem line must be 'p sp <vertices> <arcs>'/],
    ['second p', 'p sp 2 0\np sp 2 0\n', /r\.gr:2: a second 'p' line/],
    ['negative count', 'p sp -2 0\n', /r\.gr:1: vertex count is negative/],
    ['unknown line', 'p sp 2 1\nx 1 2 3\n', /r\.gr:2: unknown line type 'x'/],
    ['head out of range', 'p sp 2 1\na 1 3 1\n', /r\.gr:2: arc head 3 is out of range \[1, 2\]/],
    ['zero tail', 'p sp 2 1\na 0 1 1\n', /r\.gr:2: arc tail 0 is out of range/],
    ['too few arcs', 'p sp 2 2\na 1 2 1\n', /r\.gr:2: the file ends after 1 of the 2 arcs/],
    ['too many arcs', 'p sp 2 1\na 1 2 1\nc\na 2 1 1\n', /r\.gr:4: more arcs than the 1/],
    [
      'non-numeric length',
      'p sp 2 1\na 1 2 1.5\n',
      /r\.gr:2: arc length is not a non-negative integer: '1\.5'/,
    ],
    ['missing length', 'p sp 2 1\na 1 2\n', /r\.gr:2: an arc needs 'a u v w', found 3/],
    ['no p line', 'c only\n', /r\.gr:1: no 'p sp n m' line/],
    ['empty file', '', /r\.gr:1: no 'p sp n m' line/],
    [
      'length beyond u32',
      'p sp 2 1\na 1 2 4294967296\n',
      /r\.gr:2: arc length 4294967296 does not fit in u32/,
    ],
    ['separators after blank lines', 'p sp 2 1\n\v\na 1 2 1 x\n', /r\.gr:3: an arc needs 'a u v w', found 5/],
  ];
  for (const [what, text, message] of cases) {
    it(`rejects ${what} with the line`, () => expectRejected((chunk) => parse(text, chunk), message));
  }
});
