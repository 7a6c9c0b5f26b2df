import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { InputError } from '@weft/gpu';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HostEdgeList, HostWeights } from '../host-graph.ts';
import type { LoadBudget } from './budget.ts';
import { concat } from './corruption.test-support.ts';
import { parseDimacs } from './dimacs.ts';
import { parseEdgeList } from './edge-list.ts';
import { bytesSource } from './lines.ts';
import { parseMatrixMarket } from './matrix-market.ts';
import {
  type ReferenceResult,
  referenceDimacs,
  referenceEdgeList,
  referenceMatrixMarket,
} from './reference-parsers.test-support.ts';
import { dimacsChunks, edgeListChunks, matrixMarketChunks } from './text-writers.ts';

/*
 * Property-based fuzzing of the text loaders (#28): files written from small random graphs, then mutated. Every
 * outcome is the graph the independent reference parser reads, or an InputError naming the line it names; never
 * another exception, a wrong graph or a hang. WEFT_FUZZ_RUNS sets the cases per format and WEFT_FUZZ_SEED the
 * seed (CI keeps the defaults).
 */

const RUNS = Number(process.env.WEFT_FUZZ_RUNS ?? 1000);
/** A fixed seed keeps CI reproducible; WEFT_FUZZ_SEED explores others (a failure prints the seed to replay). */
const SEED = Number(process.env.WEFT_FUZZ_SEED ?? 20261126);
const NAME = 'f.txt';
/** Per case: a parse of a few hundred bytes that takes longer is a hang. */
const CASE_TIMEOUT_MS = 2000;

type Format = 'mtx' | 'el' | 'el1' | 'gr';
type Parse = (bytes: Uint8Array, chunk: number, budget: LoadBudget) => Promise<HostEdgeList>;
type Reference = (bytes: Uint8Array, budget: LoadBudget) => ReferenceResult;

const FORMATS: Record<
  Format,
  { write: (g: HostEdgeList) => Uint8Array; parse: Parse; reference: Reference }
> = {
  mtx: {
    write: (g) => concat(matrixMarketChunks(g)),
    parse: (b, chunk, budget) => parseMatrixMarket(bytesSource(b, chunk), { name: NAME, ...budget }),
    reference: (b, budget) => referenceMatrixMarket(b, 'auto', budget),
  },
  el: {
    write: (g) => concat(edgeListChunks(g)),
    parse: (b, chunk, budget) => parseEdgeList(bytesSource(b, chunk), { name: NAME, ...budget }),
    reference: (b, budget) => referenceEdgeList(b, budget),
  },
  el1: {
    write: (g) => concat(edgeListChunks(g, { oneBased: true })),
    parse: (b, chunk, budget) =>
      parseEdgeList(bytesSource(b, chunk), { name: NAME, oneBased: true, ...budget }),
    reference: (b, budget) => referenceEdgeList(b, { oneBased: true, ...budget }),
  },
  gr: {
    write: (g) => concat(dimacsChunks(g)),
    parse: (b, chunk, budget) => parseDimacs(bytesSource(b, chunk), { name: NAME, ...budget }),
    reference: (b, budget) => referenceDimacs(b, budget),
  },
};

const weightOf = {
  none: fc.constant(0),
  u32: fc.oneof(fc.nat(300), fc.integer({ min: 2 ** 32 - 3, max: 2 ** 32 - 1 })),
  i32: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }),
  f32: fc.float({ noNaN: true, noDefaultInfinity: true }),
};

/** A small graph with self-loops, duplicates and isolated vertices; DIMACS files hold u32 weights only. */
const graphArb = (format: Format) =>
  fc
    .constantFrom(
      ...((format === 'gr' ? ['u32'] : ['none', 'u32', 'i32', 'f32']) as (keyof typeof weightOf)[]),
    )
    .chain((kind) =>
      fc.record({
        kind: fc.constant(kind),
        n: fc.integer({ min: 1, max: 10 }),
        edges: fc.array(fc.tuple(fc.nat(40), fc.nat(40), weightOf[kind]), { maxLength: 12 }),
      }),
    )
    .map(({ kind, n, edges }): HostEdgeList => {
      const g: HostEdgeList = {
        vertexCount: n,
        src: Uint32Array.from(edges, ([s]) => s % n),
        dst: Uint32Array.from(edges, ([, d]) => d % n),
        directed: true,
      };
      const w = edges.map(([, , x]) => x);
      const weights: HostWeights | undefined =
        kind === 'u32'
          ? Uint32Array.from(w)
          : kind === 'i32'
            ? Int32Array.from(w)
            : kind === 'f32'
              ? Float32Array.from(w)
              : undefined;
      if (weights !== undefined) g.weights = weights;
      return g;
    });

/** Tokens a mutation writes over another: huge, negative, not a number, or words of the formats. */
const TOKENS = [
  '4294967295',
  '4294967296',
  '9007199254740993',
  '99999999999999999999999',
  '-1',
  '-0',
  'NaN',
  'Infinity',
  '1e999',
  '3.5e38',
  '0x1f',
  '1.5',
  '',
  '%',
  '#',
  'c',
  'a',
  'p',
  'symmetric',
  'pattern',
];

const enc = (s: string) => new TextEncoder().encode(s);
const splice = (b: Uint8Array, at: number, remove: number, insert: Uint8Array) =>
  concat([b.subarray(0, at), insert, b.subarray(at + remove)]);

/** Start offsets of the lines of `b`, and its length as the last end. */
function lineStarts(b: Uint8Array): number[] {
  const starts = [0];
  for (let i = 0; i < b.length; i++) if (b[i] === 10 && i + 1 < b.length) starts.push(i + 1);
  return starts;
}

const lineAt = (b: Uint8Array, k: number): [number, number] => {
  const starts = lineStarts(b);
  const s = starts[k % starts.length]!;
  const e = starts[(k % starts.length) + 1] ?? b.length;
  return [s, e];
};

type Mutation = (b: Uint8Array) => Uint8Array;

const mutationArb: fc.Arbitrary<[string, Mutation]> = fc.oneof(
  fc
    .tuple(fc.nat(), fc.nat(255))
    .map(([at, byte]): [string, Mutation] => [
      `set byte ${at} to ${byte}`,
      (b) => (b.length === 0 ? b : splice(b, at % b.length, 1, Uint8Array.of(byte))),
    ]),
  fc.nat().map((at): [string, Mutation] => [`truncate at ${at}`, (b) => b.subarray(0, at % (b.length + 1))]),
  fc.nat().map((k): [string, Mutation] => [
    `duplicate line ${k}`,
    (b) => {
      const [s, e] = lineAt(b, k);
      return splice(b, e, 0, b.slice(s, e));
    },
  ]),
  fc.nat().map((k): [string, Mutation] => [
    `remove line ${k}`,
    (b) => {
      const [s, e] = lineAt(b, k);
      return splice(b, s, e - s, new Uint8Array(0));
    },
  ]),
  fc.tuple(fc.nat(), fc.constantFrom(...TOKENS)).map(([at, token]): [string, Mutation] => [
    `write '${token}' over the token at ${at}`,
    (b) => {
      if (b.length === 0) return b;
      const sep = (x: number | undefined) => x === undefined || x === 32 || x === 9 || x === 10 || x === 13;
      let s = at % b.length;
      while (s > 0 && !sep(b[s - 1])) s--;
      let e = s;
      while (e < b.length && !sep(b[e])) e++;
      return splice(b, s, e - s, enc(token));
    },
  ]),
  fc.constant<[string, Mutation]>(['prepend a BOM', (b) => concat([Uint8Array.of(0xef, 0xbb, 0xbf), b])]),
  fc.constant<[string, Mutation]>([
    'CRLF line endings',
    (b) => enc(new TextDecoder('latin1').decode(b).replaceAll('\n', '\r\n')).map((x) => x),
  ]),
);

/** Bounds: mostly the defaults, sometimes small enough that a line or the graph passes them. */
const budgetArb: fc.Arbitrary<LoadBudget> = fc.record(
  { maxBytes: fc.integer({ min: 1, max: 600 }), maxLineBytes: fc.integer({ min: 1, max: 30 }) },
  { requiredKeys: [] },
);

function sameGraph(a: HostEdgeList, b: HostEdgeList): string | undefined {
  if (a.vertexCount !== b.vertexCount) return `vertexCount ${a.vertexCount} != ${b.vertexCount}`;
  if (a.directed !== b.directed) return `directed ${a.directed} != ${b.directed}`;
  for (const key of ['src', 'dst', 'weights'] as const) {
    const x = a[key];
    const y = b[key];
    if (x === undefined || y === undefined) {
      if (x !== y) return `${key}: one is missing`;
      continue;
    }
    if (x.constructor !== y.constructor) return `${key}: ${x.constructor.name} != ${y.constructor.name}`;
    if (x.length !== y.length) return `${key}: length ${x.length} != ${y.length}`;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) return `${key}[${i}]: ${x[i]} != ${y[i]}`;
  }
  return undefined;
}

/** Parses and compares with the reference: a failure description, or undefined. */
async function outcome(
  parse: () => Promise<HostEdgeList>,
  expected: ReferenceResult,
): Promise<string | undefined> {
  let graph: HostEdgeList;
  try {
    graph = await parse();
  } catch (e) {
    if (!(e instanceof InputError)) return `threw ${String(e)}, not an InputError`;
    if (!('errorLine' in expected)) return `threw '${e.message}' but the reference reads a graph`;
    const prefix = `${NAME}:${expected.errorLine}: `;
    if (!e.message.startsWith(prefix) || e.message.length < prefix.length + 5 || e.message.includes('\n')) {
      return `message '${e.message}' is not one line starting with '${prefix}' and a reason`;
    }
    return undefined;
  }
  if ('errorLine' in expected) return `read a graph but the reference refuses line ${expected.errorLine}`;
  const diff = sameGraph(graph, expected.graph);
  return diff === undefined ? undefined : `wrong graph: ${diff}`;
}

describe('text loaders under property-based mutation', () => {
  for (const format of Object.keys(FORMATS) as Format[]) {
    it(`${format}: ${RUNS} mutated files give the reference's graph or an InputError at its line`, async () => {
      const { write, parse, reference } = FORMATS[format];
      const outcomes = { graphs: 0, errors: 0 };
      await fc.assert(
        fc.asyncProperty(
          graphArb(format),
          fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
          fc.option(budgetArb, { freq: 3 }),
          fc.integer({ min: 1, max: 64 }),
          async (graph, mutations, budget, chunk) => {
            let bytes = write(graph);
            for (const [, mutate] of mutations) bytes = mutate(bytes);
            const limits = budget ?? {};
            const expected = reference(bytes, limits);
            if ('graph' in expected) outcomes.graphs++;
            else outcomes.errors++;
            for (const size of [chunk, 1 << 20]) {
              const failure = await outcome(() => parse(bytes, size, limits), expected);
              if (failure !== undefined) {
                throw new Error(
                  `${failure} (chunks of ${size}): ${JSON.stringify(new TextDecoder('latin1').decode(bytes))}`,
                );
              }
            }
          },
        ),
        { numRuns: RUNS, seed: SEED, timeout: CASE_TIMEOUT_MS, markInterruptAsFailure: true },
      );
      // Both outcomes must be common, or the mutations test too little (Matrix Market's strict header makes
      // about one mutated file in twenty still a graph).
      expect(outcomes.errors).toBeGreaterThan(RUNS / 10);
      expect(outcomes.graphs).toBeGreaterThan(RUNS / 40);
    }, 120_000);
  }
});

describe('seed corpus (__fuzz__)', () => {
  const dir = join(import.meta.dirname, '__fuzz__');
  const byExtension: Record<string, Format> = { '.mtx': 'mtx', '.el': 'el', '.gr': 'gr' };
  // Small bounds keep the corpus small: the long-line input needs only a few KiB.
  const budget: LoadBudget = { maxBytes: 2 ** 31, maxLineBytes: 1024 };
  for (const file of readdirSync(dir).sort()) {
    it(`replays ${file}`, async () => {
      const { parse, reference } = FORMATS[byExtension[extname(file)]!];
      const bytes = new Uint8Array(readFileSync(join(dir, file)));
      for (const chunk of [1, 7, 1 << 20]) {
        expect(
          await outcome(() => parse(bytes, chunk, budget), reference(bytes, budget)),
          `chunks of ${chunk}`,
        ).toBe(undefined);
      }
    });
  }
});
