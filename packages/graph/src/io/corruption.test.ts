import { Buffer } from 'node:buffer';
import { InputError } from '@weft/gpu';
import { describe, expect, it } from 'vitest';
import { hostCsrFromEdgeList } from '../host-build.ts';
import type { HostCsr, HostEdgeList } from '../host-graph.ts';
import { readBinaryCsr, writeBinaryCsr } from './binary-csr.ts';
import {
  BYTES,
  below,
  CORRUPTIONS,
  concat,
  corrupt,
  pick,
  type Random,
  randomChunks,
  randomEdges,
  rng,
} from './corruption.test-support.ts';
import { crc32 } from './crc32.ts';
import { parseDimacs } from './dimacs.ts';
import { parseEdgeList } from './edge-list.ts';
import type { ByteSource } from './lines.ts';
import { parseMatrixMarket } from './matrix-market.ts';
import {
  type ReferenceResult,
  referenceBinaryCsr,
  referenceDimacs,
  referenceEdgeList,
  referenceMatrixMarket,
} from './reference-parsers.test-support.ts';
import { dimacsChunks, edgeListChunks, matrixMarketChunks } from './text-writers.ts';
import type { WeightType } from './weights.ts';

/*
 * Random corruption of valid files: every result must be an InputError naming the file and the line the
 * reference reader finds first, or exactly the graph the reference reader makes of the text. Never another
 * exception, never a different graph, whatever the chunk boundaries.
 */

const CASES = 400;
const NAME = 'f.txt';

/** A valid file written from a random graph, with the options a reader needs, and the graph it holds. */
interface Written {
  bytes: Uint8Array;
  parse: (source: ByteSource) => Promise<HostEdgeList>;
  reference: (bytes: Uint8Array) => ReferenceResult;
  /** What the uncorrupted file means, to check the reference reader itself. */
  expected: HostEdgeList;
  /** The weight type asked for: an explicit one may not hold the written weights. */
  weightType: WeightType;
}

const WEIGHTS = ['none', 'u32', 'i32', 'f32'] as const;
const WEIGHT_TYPES: WeightType[] = ['auto', 'auto', 'u32', 'i32', 'f32'];

function writeMatrixMarket(r: Random): Written {
  const edges = randomEdges(r, pick(r, WEIGHTS));
  const weightType = pick(r, WEIGHT_TYPES);
  const symmetric = r() < 0.4;
  // A symmetric file holds one triangle of a symmetrized CSR; reading mirrors it back.
  const graph = symmetric
    ? hostCsrFromEdgeList({ ...edges, directed: false }, { keepSelfLoops: true }).csr
    : edges;
  const bytes = concat(matrixMarketChunks(graph, { symmetric }));
  return {
    bytes,
    parse: (source) => parseMatrixMarket(source, { name: NAME, weightType }),
    reference: (b) => referenceMatrixMarket(b, weightType),
    expected: symmetric ? mirroredLowerTriangle(graph as HostCsr) : edges,
    weightType,
  };
}

/** The entries of a symmetric file written from `csr`, each mirrored, in file order. */
function mirroredLowerTriangle(csr: HostCsr): HostEdgeList {
  const src: number[] = [];
  const dst: number[] = [];
  const w: number[] = [];
  for (let v = 0; v < csr.vertexCount; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const t = csr.targets[e]!;
      if (v < t) continue;
      src.push(v);
      dst.push(t);
      w.push(csr.weights?.[e] ?? 0);
      if (v !== t) {
        src.push(t);
        dst.push(v);
        w.push(csr.weights?.[e] ?? 0);
      }
    }
  }
  const out: HostEdgeList = {
    vertexCount: csr.vertexCount,
    src: Uint32Array.from(src),
    dst: Uint32Array.from(dst),
    directed: false,
  };
  if (csr.weights) out.weights = new (csr.weights.constructor as Float32ArrayConstructor)(w);
  return out;
}

function writeEdgeList(r: Random): Written {
  const edges = randomEdges(r, pick(r, WEIGHTS));
  const oneBased = r() < 0.5;
  const vertexCount = r() < 0.5 ? edges.vertexCount : undefined;
  const weightType = pick(r, WEIGHT_TYPES);
  const options = { name: NAME, oneBased, weightType, ...(vertexCount === undefined ? {} : { vertexCount }) };
  let maxId = -1;
  for (const id of [...edges.src, ...edges.dst]) maxId = Math.max(maxId, id);
  return {
    bytes: concat(edgeListChunks(edges, { oneBased })),
    parse: (source) => parseEdgeList(source, options),
    reference: (b) => referenceEdgeList(b, options),
    expected: withoutWeightsWhenEmpty({ ...edges, vertexCount: vertexCount ?? maxId + 1 }),
    weightType,
  };
}

/** Without edges an edge list has no weight column to read. */
function withoutWeightsWhenEmpty(edges: HostEdgeList): HostEdgeList {
  if (edges.src.length > 0) return edges;
  const { weights: _, ...rest } = edges;
  return rest;
}

function writeDimacs(r: Random): Written {
  const edges = randomEdges(r, 'u32');
  return {
    bytes: concat(dimacsChunks(edges)),
    parse: (source) => parseDimacs(source, { name: NAME }),
    reference: referenceDimacs,
    expected: edges,
    weightType: 'u32',
  };
}

/** `loose`: weights compare as numbers (f32-rounded), whatever their storage type. */
function sameEdges(a: HostEdgeList, b: HostEdgeList, loose = false): string | undefined {
  if (a.vertexCount !== b.vertexCount) return `vertexCount ${a.vertexCount} != ${b.vertexCount}`;
  if (a.directed !== b.directed) return `directed ${a.directed} != ${b.directed}`;
  for (const key of ['src', 'dst', 'weights'] as const) {
    const x = a[key];
    const y = b[key];
    if (x === undefined || y === undefined) {
      if (x !== y) return `${key}: one is missing`;
      continue;
    }
    if (loose && key === 'weights') {
      for (let i = 0; i < x.length; i++) {
        if (Math.fround(x[i]!) !== Math.fround(y[i]!)) return `weights[${i}]: ${x[i]} != ${y[i]}`;
      }
      if (x.length !== y.length) return `weights: length ${x.length} != ${y.length}`;
      continue;
    }
    if (x.constructor !== y.constructor) return `${key}: ${x.constructor.name} != ${y.constructor.name}`;
    if (x.length !== y.length) return `${key}: length ${x.length} != ${y.length}`;
    for (let i = 0; i < x.length; i++) {
      if (!Object.is(x[i], y[i]) && x[i] !== y[i]) return `${key}[${i}]: ${x[i]} != ${y[i]}`;
    }
  }
  return undefined;
}

/** Parses and checks against the reference; returns a failure description or undefined. */
async function mismatch(
  file: Written,
  source: ByteSource,
  expected: ReferenceResult,
): Promise<string | undefined> {
  let graph: HostEdgeList;
  try {
    graph = await file.parse(source);
  } catch (e) {
    if (!(e instanceof InputError)) return `threw ${String(e)}, not an InputError`;
    if (!('errorLine' in expected)) return `threw '${e.message}' but the text means a graph`;
    const prefix = `${NAME}:${expected.errorLine}: `;
    if (
      !e.message.startsWith(prefix) ||
      e.message.length < prefix.length + 5 ||
      /undefined/.test(e.message)
    ) {
      return `message '${e.message}' does not start with '${prefix}' and a reason`;
    }
    return undefined;
  }
  if ('errorLine' in expected) return `read a graph but the reference rejects line ${expected.errorLine}`;
  const diff = sameEdges(graph, expected.graph);
  return diff === undefined ? undefined : `wrong graph: ${diff}`;
}

const show = (b: Uint8Array) => JSON.stringify(Buffer.from(b).toString('latin1'));

function fuzz(format: string, write: (r: Random) => Written, seedBase: number) {
  it(`${format}: ${CASES} seeded corruptions give an InputError naming file and line, or the exact graph`, async () => {
    const outcomes = { errors: 0, graphs: 0 };
    for (let seed = seedBase; seed < seedBase + CASES; seed++) {
      const r = rng(seed);
      const file = write(r);
      // The reference reader must read the valid file as the graph it was written from.
      const clean = file.reference(file.bytes);
      if ('graph' in clean) {
        expect(sameEdges(clean.graph, file.expected, true), `seed ${seed} clean`).toBe(undefined);
      } else {
        expect(file.weightType, `seed ${seed} clean: only a chosen weight type may reject it`).not.toBe(
          'auto',
        );
      }
      const { bytes, done } = corrupt(file.bytes, r);
      const expected = file.reference(bytes);
      if ('errorLine' in expected) outcomes.errors++;
      else outcomes.graphs++;
      const what = `seed ${seed} (${done.join(', ')}): ${show(bytes)}`;
      expect(await mismatch(file, [bytes], expected), `${what}, one chunk`).toBe(undefined);
      expect(await mismatch(file, randomChunks(bytes, r), expected), `${what}, random chunks`).toBe(
        undefined,
      );
      // Every chunk boundary, for some of the cases (it costs one parse per byte).
      if (seed % 40 === 0) {
        for (let at = 0; at <= bytes.length; at++) {
          const parts = [bytes.subarray(0, at), bytes.subarray(at)];
          expect(await mismatch(file, parts, expected), `${what}, split at ${at}`).toBe(undefined);
        }
      }
    }
    // Both outcomes must be common, or the corruptions test too little.
    expect(outcomes.errors).toBeGreaterThan(CASES / 4);
    expect(outcomes.graphs).toBeGreaterThan(CASES / 20);
  });
}

describe('loaders under random corruption', () => {
  fuzz('Matrix Market', writeMatrixMarket, 1000);
  fuzz('edge list', writeEdgeList, 2000);
  fuzz('DIMACS', writeDimacs, 3000);

  it('every byte of a small file of each format, set to every interesting byte', async () => {
    for (const [format, write] of [
      ['Matrix Market', writeMatrixMarket],
      ['edge list', writeEdgeList],
      ['DIMACS', writeDimacs],
    ] as const) {
      // The first seed whose file has a few weighted edges.
      let seed = 1;
      let file = write(rng(seed));
      while (file.bytes.length < 60 || file.bytes.length > 160) file = write(rng(++seed));
      for (let at = 0; at < file.bytes.length; at++) {
        for (const b of BYTES) {
          if (b === file.bytes[at]) continue;
          const bytes = file.bytes.slice();
          bytes[at] = b;
          const what = `${format} seed ${seed}, byte ${at} = ${b}: ${show(bytes)}`;
          expect(await mismatch(file, [bytes], file.reference(bytes)), what).toBe(undefined);
        }
      }
    }
  });
});

/** Rewrites the trailing CRC so that only the structural checks can catch an edit. */
function resealed(bytes: Uint8Array): Uint8Array {
  if (bytes.length < 4) return bytes;
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(out.length - 4, crc32(0, out.subarray(0, out.length - 4)), true);
  return out;
}

/** Header fields and array words set to values at the edges of what is valid. */
function editWord(bytes: Uint8Array, r: Random, csr: HostCsr): Uint8Array {
  const out = bytes.slice();
  const view = new DataView(out.buffer);
  const words = (out.length - 4) / 4;
  const at = r() < 0.3 ? pick(r, [8, 12, 16, 20, 24, 28]) : 4 * below(r, words);
  const n = csr.vertexCount;
  const m = csr.edgeCount;
  const value = pick(r, [
    0,
    1,
    2,
    3,
    n - 1,
    n,
    n + 1,
    m - 1,
    m,
    m + 1,
    2 ** 31,
    2 ** 32 - 1,
    2 ** 32 - 2,
    below(r, 2 ** 32),
  ]);
  view.setUint32(at, value >>> 0, true);
  return out;
}

function sameCsr(a: HostCsr, b: HostCsr): string | undefined {
  const diff = sameEdges(
    {
      vertexCount: a.vertexCount,
      src: a.offsets,
      dst: a.targets,
      directed: a.directed,
      ...(a.weights ? { weights: a.weights } : {}),
    },
    {
      vertexCount: b.vertexCount,
      src: b.offsets,
      dst: b.targets,
      directed: b.directed,
      ...(b.weights ? { weights: b.weights } : {}),
    },
  );
  return diff ?? (a.edgeCount === b.edgeCount ? undefined : `edgeCount ${a.edgeCount} != ${b.edgeCount}`);
}

describe('binary CSR under random corruption', () => {
  it(`${CASES} seeded corruptions, raw or with the checksum rewritten, give an InputError naming the byte, or the exact CSR`, async () => {
    const outcomes = { errors: 0, graphs: 0 };
    const raw = ['set a byte', 'insert bytes', 'delete bytes', 'truncate', 'append a line'] as const;
    for (let seed = 5000; seed < 5000 + CASES; seed++) {
      const r = rng(seed);
      const edges = randomEdges(r, pick(r, WEIGHTS));
      const { csr } = hostCsrFromEdgeList({ ...edges, directed: r() < 0.5 }, { keepSelfLoops: r() < 0.5 });
      const clean = writeBinaryCsr(csr);
      let bytes: Uint8Array;
      let how: string;
      if (r() < 0.5) {
        how = pick(r, raw);
        bytes = CORRUPTIONS[how]!(clean, r);
      } else {
        how = 'edit a word and reseal';
        bytes = resealed(editWord(clean, r, csr));
      }
      if (r() < 0.3) {
        how += ', reseal';
        bytes = resealed(bytes);
      }
      const expected = referenceBinaryCsr(bytes);
      if (expected === 'error') outcomes.errors++;
      else outcomes.graphs++;
      const what = `seed ${seed} (${how}), ${bytes.length} bytes`;
      // Without byteLength the reader learns the size only from the header: the case that must not trust it.
      const byteLength = r() < 0.3 ? { byteLength: bytes.length } : {};
      const result = await readBinaryCsr(randomChunks(bytes, r), { name: 'g.wcsr', ...byteLength }).catch(
        (e: unknown) => e,
      );
      if (expected === 'error') {
        expect(result, what).toBeInstanceOf(InputError);
        const byte = /^g\.wcsr: byte (\d+): \S/.exec((result as Error).message);
        expect(byte, `${what}: ${(result as Error).message}`).not.toBeNull();
        expect(Number(byte![1]), what).toBeLessThanOrEqual(bytes.length);
      } else {
        expect(result, what).not.toBeInstanceOf(Error);
        expect(sameCsr(result as HostCsr, expected), what).toBe(undefined);
      }
    }
    expect(outcomes.errors).toBeGreaterThan(CASES / 2);
    expect(outcomes.graphs).toBeGreaterThan(CASES / 50);
  });

  it('rejects a header that claims 2^32 - 2 vertices and edges without allocating for them', async () => {
    const bytes = writeBinaryCsr(hostCsrFromEdgeList(randomEdges(rng(1), 'u32')).csr);
    const view = new DataView(bytes.buffer);
    view.setBigUint64(16, 2n ** 32n - 2n, true);
    view.setBigUint64(24, 2n ** 32n - 2n, true);
    const err = await readBinaryCsr([bytes], { name: 'huge.wcsr' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(
      /^huge\.wcsr: byte \d+: the file ends at byte \d+ but the header implies \d{11} bytes/,
    );
  });
});
