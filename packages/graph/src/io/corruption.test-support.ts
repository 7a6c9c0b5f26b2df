import { mulberry32 } from '@weft/testing';
import type { HostEdgeList, HostWeights } from '../host-graph.ts';

/* Seeded random graphs and random corruptions of the files written from them, for the loader fuzz tests. */

export type Random = () => number;

export const rng = (seed: number): Random => mulberry32(seed);
export const below = (r: Random, n: number) => Math.floor(r() * n);
export const pick = <T>(r: Random, items: readonly T[]): T => items[below(r, items.length)]!;

/** A small graph with duplicate edges, self-loops and isolated vertices, with weights of the given kind. */
export function randomEdges(r: Random, weights: 'none' | 'u32' | 'i32' | 'f32'): HostEdgeList {
  const n = 1 + below(r, 12);
  const m = below(r, 16);
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    src[i] = below(r, n);
    // Every third edge repeats the previous one or loops, so duplicates and self-loops are common.
    dst[i] = i > 0 && r() < 0.2 ? dst[i - 1]! : r() < 0.15 ? src[i]! : below(r, n);
    if (i > 0 && r() < 0.15) src[i] = src[i - 1]!;
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed: true };
  let w: HostWeights | undefined;
  if (weights === 'u32')
    w = Uint32Array.from({ length: m }, () => (r() < 0.1 ? 2 ** 32 - 1 - below(r, 3) : below(r, 256)));
  if (weights === 'i32') w = Int32Array.from({ length: m }, () => below(r, 2001) - 1000);
  if (weights === 'f32') w = Float32Array.from({ length: m }, () => (r() - 0.5) * 10 ** below(r, 12));
  if (w !== undefined) edges.weights = w;
  return edges;
}

export function concat(chunks: Iterable<Uint8Array>): Uint8Array {
  const parts = [...chunks];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const encode = (s: string) => new TextEncoder().encode(s);

/** Replacement tokens: huge, negative, signed zero, float, non-numeric, empty, and words of the formats' syntax. */
const TOKENS = [
  '0',
  '1',
  '2',
  '7',
  '13',
  '-1',
  '-0',
  '+3',
  '4294967295',
  '4294967296',
  '2147483648',
  '-2147483649',
  '9007199254740991',
  '9007199254740993',
  '123456789012345678901234567890',
  '1.5',
  '-2.25',
  '1e3',
  '.5',
  '5.',
  '1e999',
  '-1e999',
  '1e-999',
  '3.5e38',
  '1e39',
  'x',
  'NaN',
  'Infinity',
  '0x10',
  '1,2',
  '',
  '%',
  '#',
  'c',
  'a',
  'p',
  'sp',
  '%%MatrixMarket',
  'matrix',
  'coordinate',
  'array',
  'real',
  'integer',
  'pattern',
  'complex',
  'general',
  'symmetric',
  'skew-symmetric',
  'hermitian',
  'REAL',
];

/** Bytes that mean something to a line parser, plus a high byte. */
export const BYTES = encode(' \t\r\n\v\f,#%-+.0123456789eEacpx\u00ff').filter((b) => b !== 0xc3);

function lineSpans(bytes: Uint8Array): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 10) {
      spans.push([start, i + 1]);
      start = i + 1;
    }
  }
  if (start < bytes.length) spans.push([start, bytes.length]);
  return spans;
}

const splice = (b: Uint8Array, at: number, remove: number, insert: Uint8Array) =>
  concat([b.subarray(0, at), insert, b.subarray(at + remove)]);

/** A random line, biased towards the first few (banner, size and problem lines). */
function someLine(r: Random, spans: [number, number][]): [number, number] | undefined {
  if (spans.length === 0) return undefined;
  return spans[r() < 0.4 ? below(r, Math.min(3, spans.length)) : below(r, spans.length)];
}

export const CORRUPTIONS: Record<string, (b: Uint8Array, r: Random) => Uint8Array> = {
  'set a byte': (b, r) => {
    if (b.length === 0) return b;
    const out = b.slice();
    out[below(r, b.length)] = r() < 0.5 ? below(r, 256) : pick(r, [...BYTES]);
    return out;
  },
  'insert bytes': (b, r) =>
    splice(
      b,
      below(r, b.length + 1),
      0,
      Uint8Array.from({ length: 1 + below(r, 3) }, () => pick(r, [...BYTES])),
    ),
  'delete bytes': (b, r) => splice(b, below(r, b.length + 1), 1 + below(r, 4), new Uint8Array(0)),
  truncate: (b, r) => b.subarray(0, below(r, b.length + 1)),
  'duplicate a line': (b, r) => {
    const s = someLine(r, lineSpans(b));
    return s ? splice(b, s[1], 0, b.slice(s[0], s[1])) : b;
  },
  'drop a line': (b, r) => {
    const s = someLine(r, lineSpans(b));
    return s ? splice(b, s[0], s[1] - s[0], new Uint8Array(0)) : b;
  },
  'swap two lines': (b, r) => {
    const spans = lineSpans(b);
    const x = someLine(r, spans);
    const y = someLine(r, spans);
    if (!x || !y || x === y) return b;
    const [first, second] = x[0] < y[0] ? [x, y] : [y, x];
    return concat([
      b.subarray(0, first[0]),
      b.subarray(second[0], second[1]),
      b.subarray(first[1], second[0]),
      b.subarray(first[0], first[1]),
      b.subarray(second[1]),
    ]);
  },
  'replace a token': (b, r) => {
    const s = someLine(r, lineSpans(b));
    if (!s) return b;
    const tokens: [number, number][] = [];
    for (let i = s[0]; i < s[1]; ) {
      while (i < s[1] && (b[i] === 32 || b[i] === 9 || b[i] === 10 || b[i] === 13)) i++;
      const start = i;
      while (i < s[1] && !(b[i] === 32 || b[i] === 9 || b[i] === 10 || b[i] === 13)) i++;
      if (i > start) tokens.push([start, i]);
    }
    if (tokens.length === 0) return b;
    const [start, end] = pick(r, tokens);
    return splice(b, start, end - start, encode(pick(r, TOKENS)));
  },
  'append a line': (b, r) =>
    concat([b, encode(`${pick(r, TOKENS)} ${pick(r, TOKENS)}${r() < 0.5 ? ` ${pick(r, TOKENS)}` : ''}\n`)]),
  'CRLF line ends': (b, r) => {
    const all = r() < 0.5;
    const out: number[] = [];
    for (const x of b) {
      if (x === 10 && (all || r() < 0.5)) out.push(13);
      out.push(x);
    }
    return Uint8Array.from(out);
  },
};

const NAMES = Object.keys(CORRUPTIONS);

/** One to three random corruptions; returns the bytes and what was done. */
export function corrupt(bytes: Uint8Array, r: Random): { bytes: Uint8Array; done: string[] } {
  let out = bytes;
  const done: string[] = [];
  for (let k = 1 + below(r, 3); k > 0; k--) {
    const name = pick(r, NAMES);
    out = CORRUPTIONS[name]!(out, r);
    done.push(name);
  }
  return { bytes: out, done };
}

/** Chunkings of `bytes`: one chunk, random sizes (empty chunks included), or two chunks split at `at`. */
export function randomChunks(bytes: Uint8Array, r: Random): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const len = r() < 0.1 ? 0 : 1 + below(r, 12);
    out.push(bytes.subarray(i, i + len));
    i += len;
  }
  return out;
}
