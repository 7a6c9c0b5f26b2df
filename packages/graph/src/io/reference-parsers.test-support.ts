import { Buffer } from 'node:buffer';
import { crc32 } from 'node:zlib';
import type { HostCsr, HostEdgeList, HostWeights } from '../host-graph.ts';
import type { WeightType } from './weights.ts';

/*
 * Independent readers of the text formats for the corruption tests: the same rules as the loaders, written
 * plainly (whole strings, regular expressions) so that a loader bug is not repeated here. They answer the line of
 * the first problem, or the graph the text means.
 */

export type ReferenceResult = { graph: HostEdgeList } | { errorLine: number };

class Reject {
  /** `atEnd`: found once the whole file is read (weight types), so any earlier-stopping problem wins. */
  constructor(
    readonly line: number,
    readonly atEnd = false,
  ) {}
}

const U32_MAX = 2 ** 32 - 1;
const MAX_VERTEX_COUNT = 2 ** 32 - 1;

/** The loaders' bounds: a memory budget for the graph and a longest line (LF excluded). */
export interface ReferenceBudget {
  maxBytes?: number;
  maxLineBytes?: number;
}

/** Rejects `line` when a graph this large passes the budget: 8 bytes a vertex (+1), 12 an edge, 24 weighted. */
function budget(b: ReferenceBudget, vertices: number, edges: number, weighted: boolean, line: number) {
  if (8 * (vertices + 1) + edges * (weighted ? 24 : 12) > (b.maxBytes ?? 2 ** 31)) throw new Reject(line);
}

/** The first line longer than the bound (its CR and a BOM count, its LF does not), or Infinity. */
function firstLongLine(bytes: Uint8Array, b: ReferenceBudget): number {
  const max = b.maxLineBytes ?? 2 ** 20;
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === 10) {
      if (i - start > max) return line;
      line++;
      start = i + 1;
    }
  }
  return Number.POSITIVE_INFINITY;
}

/**
 * Lines as the loaders see them: LF ends a line, one CR before it is dropped, a last unterminated line counts, a
 * byte order mark opening the file is dropped.
 */
function linesOf(bytes: Uint8Array): string[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (text === '') return [];
  const parts = text.split('\n');
  if (parts[parts.length - 1] === '') parts.pop();
  const lines = parts.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  // A UTF-8 byte order mark (three latin1 characters here) is no part of the first line's text.
  if (lines[0]!.startsWith('\u00ef\u00bb\u00bf')) lines[0] = lines[0]!.slice(3);
  return lines;
}

const tokensOf = (line: string, commas: boolean) =>
  line.split(commas ? /[ \t\r\v\f,]+/ : /[ \t\r\v\f]+/).filter((t) => t !== '');

/** First character after leading separators (never a comma), or ''. */
const leadOf = (line: string) => line.replace(/^[ \t\r\v\f]+/, '').charAt(0);

function unsigned(t: string, line: number): number {
  if (!/^[0-9]+$/.test(t) || !Number.isSafeInteger(Number(t))) throw new Reject(line);
  return Number(t);
}

function integer(t: string, line: number): number {
  if (!/^[+-]?[0-9]+$/.test(t) || !Number.isSafeInteger(Number(t))) throw new Reject(line);
  return Number(t);
}

function real(t: string, line: number): number {
  if (!/^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(t)) throw new Reject(line);
  const v = Number(t);
  if (!Number.isFinite(v)) throw new Reject(line);
  return v;
}

interface Valued {
  v: number;
  line: number;
}

/** Weights stored as `type`; the first value (in file order) that the type cannot hold rejects its line. */
function typedWeights(values: Valued[], type: WeightType): HostWeights {
  let chosen = type;
  if (chosen === 'auto') {
    chosen = values.some((x) => !Number.isInteger(x.v)) ? 'f32' : values.some((x) => x.v < 0) ? 'i32' : 'u32';
  }
  const fits = (v: number) =>
    chosen === 'f32'
      ? Number.isFinite(Math.fround(v))
      : chosen === 'u32'
        ? Number.isInteger(v) && v >= 0 && v <= U32_MAX
        : Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31;
  const bad = values.find((x) => !fits(x.v));
  if (bad !== undefined) throw new Reject(bad.line, true);
  const raw = values.map((x) => x.v);
  return chosen === 'f32'
    ? Float32Array.from(raw)
    : chosen === 'u32'
      ? Uint32Array.from(raw)
      : Int32Array.from(raw);
}

/** The graph `read` makes, or the first problem line: a too-long line stops the read wherever it is. */
function run(read: () => HostEdgeList, longLine: number): ReferenceResult {
  let graph: HostEdgeList;
  try {
    graph = read();
  } catch (e) {
    if (!(e instanceof Reject)) throw e;
    return {
      errorLine: e.atEnd && longLine < Number.POSITIVE_INFINITY ? longLine : Math.min(e.line, longLine),
    };
  }
  return longLine < Number.POSITIVE_INFINITY ? { errorLine: longLine } : { graph };
}

export function referenceMatrixMarket(
  bytes: Uint8Array,
  weightType: WeightType = 'auto',
  limits: ReferenceBudget = {},
): ReferenceResult {
  return run(
    () => {
      const lines = linesOf(bytes);
      if (lines.length === 0) throw new Reject(1);
      const banner = tokensOf(lines[0]!, false).map((t) => t.toLowerCase());
      const [magic, object, format, field = '', symmetry = ''] = banner;
      if (
        banner.length !== 5 ||
        magic !== '%%matrixmarket' ||
        object !== 'matrix' ||
        format !== 'coordinate' ||
        !['real', 'integer', 'pattern'].includes(field) ||
        !['general', 'symmetric', 'skew-symmetric'].includes(symmetry) ||
        (field === 'pattern' && symmetry === 'skew-symmetric')
      ) {
        throw new Reject(1);
      }
      let size: number[] | undefined;
      let entries = 0;
      const src: number[] = [];
      const dst: number[] = [];
      const values: Valued[] = [];
      for (let k = 1; k < lines.length; k++) {
        const line = k + 1;
        const t = tokensOf(lines[k]!, false);
        if (t.length === 0 || leadOf(lines[k]!) === '%') continue;
        if (size === undefined) {
          if (t.length !== 3) throw new Reject(line);
          size = t.map((x) => unsigned(x, line));
          if (Math.max(size[0]!, size[1]!) > MAX_VERTEX_COUNT) throw new Reject(line);
          const mirrored = symmetry === 'general' ? 1 : 2;
          budget(limits, Math.max(size[0]!, size[1]!), size[2]! * mirrored, field !== 'pattern', line);
          continue;
        }
        const [rows, cols, nnz] = size as [number, number, number];
        if (t.length !== (field === 'pattern' ? 2 : 3) || entries === nnz) throw new Reject(line);
        entries++;
        const i = unsigned(t[0]!, line);
        const j = unsigned(t[1]!, line);
        if (i < 1 || i > rows || j < 1 || j > cols) throw new Reject(line);
        const v = field === 'pattern' ? 0 : field === 'integer' ? integer(t[2]!, line) : real(t[2]!, line);
        if (symmetry === 'skew-symmetric' && i === j) throw new Reject(line);
        src.push(i - 1);
        dst.push(j - 1);
        values.push({ v, line });
        if (symmetry !== 'general' && i !== j) {
          src.push(j - 1);
          dst.push(i - 1);
          values.push({ v: symmetry === 'skew-symmetric' ? -v : v, line });
        }
      }
      if (size === undefined || entries < size[2]!) throw new Reject(lines.length);
      const graph: HostEdgeList = {
        vertexCount: Math.max(size[0]!, size[1]!),
        src: Uint32Array.from(src),
        dst: Uint32Array.from(dst),
        directed: symmetry === 'general',
      };
      if (field !== 'pattern') graph.weights = typedWeights(values, field === 'real' ? 'f32' : weightType);
      return graph;
    },
    firstLongLine(bytes, limits),
  );
}

export interface ReferenceEdgeListOptions extends ReferenceBudget {
  oneBased?: boolean;
  vertexCount?: number;
  weightType?: WeightType;
}

export function referenceEdgeList(
  bytes: Uint8Array,
  options: ReferenceEdgeListOptions = {},
): ReferenceResult {
  return run(
    () => {
      const lines = linesOf(bytes);
      const base = options.oneBased ? 1 : 0;
      const bound = options.vertexCount ?? MAX_VERTEX_COUNT;
      let columns = 0;
      let maxId = -1;
      const src: number[] = [];
      const dst: number[] = [];
      const values: Valued[] = [];
      const id = (t: string, line: number) => {
        const v = unsigned(t, line) - base;
        if (v < 0 || v >= bound) throw new Reject(line);
        maxId = Math.max(maxId, v);
        return v;
      };
      lines.forEach((text, k) => {
        const line = k + 1;
        const t = tokensOf(text, true);
        if (t.length === 0 || leadOf(text) === '#' || leadOf(text) === '%') return;
        // An empty field: two commas before a token, or one before the first token.
        if (/(^|,)[ \t\r\v\f]*,[ \t\r\v\f,]*[^ \t\r\v\f,]/.test(text)) throw new Reject(line);
        if (columns === 0 && t.length !== 2 && t.length !== 3) throw new Reject(line);
        if (columns !== 0 && t.length !== columns) throw new Reject(line);
        columns = t.length;
        src.push(id(t[0]!, line));
        dst.push(id(t[1]!, line));
        if (columns === 3) values.push({ v: real(t[2]!, line), line });
        budget(options, options.vertexCount ?? maxId + 1, src.length, columns === 3, line);
      });
      const graph: HostEdgeList = {
        vertexCount: options.vertexCount ?? maxId + 1,
        src: Uint32Array.from(src),
        dst: Uint32Array.from(dst),
        directed: true,
      };
      if (columns === 3) graph.weights = typedWeights(values, options.weightType ?? 'auto');
      return graph;
    },
    firstLongLine(bytes, options),
  );
}

export function referenceDimacs(bytes: Uint8Array, limits: ReferenceBudget = {}): ReferenceResult {
  return run(
    () => {
      const lines = linesOf(bytes);
      let problem: [number, number] | undefined;
      const src: number[] = [];
      const dst: number[] = [];
      const weights: number[] = [];
      lines.forEach((text, k) => {
        const line = k + 1;
        const t = tokensOf(text, false);
        if (t.length === 0 || leadOf(text) === 'c') return;
        if (t[0] === 'p') {
          if (problem !== undefined || t.length !== 4 || t[1] !== 'sp') throw new Reject(line);
          problem = [unsigned(t[2]!, line), unsigned(t[3]!, line)];
          if (problem[0] > MAX_VERTEX_COUNT) throw new Reject(line);
          budget(limits, problem[0], problem[1], true, line);
          return;
        }
        if (t[0] !== 'a' || problem === undefined || t.length !== 4) throw new Reject(line);
        const [n, m] = problem;
        if (src.length === m) throw new Reject(line);
        const [u, v, w] = [unsigned(t[1]!, line), unsigned(t[2]!, line), unsigned(t[3]!, line)];
        if (u < 1 || u > n || v < 1 || v > n || w > U32_MAX) throw new Reject(line);
        src.push(u - 1);
        dst.push(v - 1);
        weights.push(w);
      });
      if (problem === undefined || src.length < problem[1]) throw new Reject(Math.max(lines.length, 1));
      return {
        vertexCount: problem[0],
        src: Uint32Array.from(src),
        dst: Uint32Array.from(dst),
        weights: Uint32Array.from(weights),
        directed: true,
      };
    },
    firstLongLine(bytes, limits),
  );
}

/**
 * A plain reading of the .wcsr layout (little-endian header of 32 bytes, offsets, targets, optional weights,
 * CRC-32 from node:zlib), with every structural rule: the CSR the bytes hold, or 'error'.
 */
export function referenceBinaryCsr(b: Uint8Array): HostCsr | 'error' {
  if (b.length < 36) return 'error';
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (Buffer.from(b.subarray(0, 8)).toString('latin1') !== 'WEFTCSR\0') return 'error';
  if (view.getUint32(8, true) !== 1) return 'error';
  const flags = view.getUint32(12, true);
  const weighted = (flags & 1) === 1;
  const type = (flags >> 2) & 3;
  if (flags >= 16 || type === 3 || (!weighted && type !== 0)) return 'error';
  const n = view.getBigUint64(16, true);
  const m = view.getBigUint64(24, true);
  if (n > 0xffffffffn || m > 0xffffffffn) return 'error';
  const total = 32n + 4n * (n + 1n) + 4n * m * (weighted ? 2n : 1n) + 4n;
  if (BigInt(b.length) !== total) return 'error';
  if (crc32(b.subarray(0, b.length - 4)) !== view.getUint32(b.length - 4, true)) return 'error';
  const words = (at: number, count: number) =>
    Array.from({ length: count }, (_, i) => view.getUint32(at + 4 * i, true));
  const [vertexCount, edgeCount] = [Number(n), Number(m)];
  const offsets = words(32, vertexCount + 1);
  const targets = words(32 + 4 * (vertexCount + 1), edgeCount);
  if (offsets[0] !== 0 || offsets[vertexCount] !== edgeCount) return 'error';
  if (offsets.some((o, i) => i > 0 && o < offsets[i - 1]!)) return 'error';
  if (targets.some((t) => t >= vertexCount)) return 'error';
  const csr: HostCsr = {
    vertexCount,
    edgeCount,
    offsets: Uint32Array.from(offsets),
    targets: Uint32Array.from(targets),
    directed: (flags & 2) === 2,
  };
  if (weighted) {
    const raw = new Uint32Array(words(32 + 4 * (vertexCount + 1 + edgeCount), edgeCount));
    csr.weights = type === 0 ? new Float32Array(raw.buffer) : type === 1 ? raw : new Int32Array(raw.buffer);
  }
  return csr;
}
