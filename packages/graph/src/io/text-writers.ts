import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostCsr, HostEdgeList, HostWeights } from '../host-graph.ts';

/*
 * Text writers, so that other tools (gapbs reads .el/.wel and .mtx, Gunrock reads .mtx) can load exactly the
 * graph Weft generated. Output comes in chunks of about 64 Ki lines, never as one string.
 */

const LINES_PER_CHUNK = 1 << 16;

/** Shortest decimal that reads back as the same f32; integers print as integers. */
function formatWeight(w: HostWeights, i: number): string {
  const v = w[i]!;
  if (!(w instanceof Float32Array) || Number.isInteger(v) || !Number.isFinite(v)) return String(v);
  for (let p = 6; p < 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return String(s);
  }
  return String(Number(v.toPrecision(9)));
}

/** The edges of a CSR as parallel arrays in CSR order. */
function edgesOf(graph: HostCsr | HostEdgeList): { src: Uint32Array; dst: Uint32Array } {
  if ('src' in graph) return { src: graph.src, dst: graph.dst };
  const src = new Uint32Array(graph.edgeCount);
  for (let v = 0; v < graph.vertexCount; v++) src.fill(v, graph.offsets[v]!, graph.offsets[v + 1]!);
  return { src, dst: graph.targets };
}

function* chunks(
  header: string,
  count: number,
  line: (i: number) => string | undefined,
): Generator<Uint8Array> {
  const encoder = new TextEncoder();
  let text = header;
  let lines = 0;
  for (let i = 0; i < count; i++) {
    const l = line(i);
    if (l === undefined) continue;
    text += `${l}\n`;
    if (++lines === LINES_PER_CHUNK) {
      yield encoder.encode(text);
      text = '';
      lines = 0;
    }
  }
  if (text.length > 0) yield encoder.encode(text);
}

export interface EdgeListWriteOptions {
  /** Write ids + 1. Default false. */
  oneBased?: boolean;
  /** Write the weight column when there are weights (GAP's .wel). Default true. */
  weights?: boolean;
}

/** `source target [weight]` lines (tab-separated) for an edge list or a CSR, in its order. */
export function edgeListChunks(
  graph: HostCsr | HostEdgeList,
  options: EdgeListWriteOptions = {},
): Iterable<Uint8Array> {
  checkOptionsObject('edgeListChunks', options);
  const { src, dst } = edgesOf(graph);
  const base = options.oneBased ? 1 : 0;
  const w = options.weights === false ? undefined : graph.weights;
  const ids = graph.ids;
  if (ids !== undefined) {
    // Renumbered on load: the file gets its names back.
    return chunks('', src.length, (i) =>
      w === undefined
        ? `${ids[src[i]!]}\t${ids[dst[i]!]}`
        : `${ids[src[i]!]}\t${ids[dst[i]!]}\t${formatWeight(w, i)}`,
    );
  }
  return chunks('', src.length, (i) =>
    w === undefined
      ? `${src[i]! + base}\t${dst[i]! + base}`
      : `${src[i]! + base}\t${dst[i]! + base}\t${formatWeight(w, i)}`,
  );
}

export interface MatrixMarketWriteOptions {
  /**
   * Write a `symmetric` file holding only entries with row >= column. Only for undirected graphs that list both
   * directions (a symmetrized CSR). Default false: `general`, every edge.
   */
  symmetric?: boolean;
}

/** A Matrix Market coordinate file: `pattern` without weights, `integer` for u32/i32, `real` for f32. */
export function matrixMarketChunks(
  graph: HostCsr | HostEdgeList,
  options: MatrixMarketWriteOptions = {},
): Iterable<Uint8Array> {
  checkOptionsObject('matrixMarketChunks', options);
  const { src, dst } = edgesOf(graph);
  const w = graph.weights;
  const symmetric = options.symmetric ?? false;
  if (symmetric && graph.directed) {
    throw new InputError('a directed graph cannot be written as a symmetric matrix', 'options.symmetric');
  }
  let entries = src.length;
  if (symmetric) {
    let lower = 0;
    let upper = 0;
    for (let i = 0; i < src.length; i++) {
      if (src[i]! >= dst[i]!) lower++;
      if (src[i]! <= dst[i]!) upper++;
    }
    if (lower !== upper) {
      throw new InputError(
        `the graph is not symmetric (${lower} entries on or below the diagonal, ${upper} on or above)`,
        'options.symmetric',
      );
    }
    entries = lower;
  }
  const field = w === undefined ? 'pattern' : w instanceof Float32Array ? 'real' : 'integer';
  const n = graph.vertexCount;
  const header = `%%MatrixMarket matrix coordinate ${field} ${symmetric ? 'symmetric' : 'general'}\n% written by @weft/graph\n${n} ${n} ${entries}\n`;
  return chunks(header, src.length, (i) => {
    if (symmetric && src[i]! < dst[i]!) return undefined;
    const ij = `${src[i]! + 1} ${dst[i]! + 1}`;
    return w === undefined ? ij : `${ij} ${formatWeight(w, i)}`;
  });
}

/** A DIMACS shortest-path file (`p sp n m`, `a u v w`); weights must be non-negative integers. */
export function dimacsChunks(graph: HostCsr | HostEdgeList): Iterable<Uint8Array> {
  const w = graph.weights;
  if (w === undefined || w instanceof Float32Array) {
    throw new InputError('DIMACS arcs need integer weights (u32 or i32)', 'graph.weights');
  }
  for (let i = 0; i < w.length; i++) {
    if (w[i]! < 0)
      throw new InputError(`weights[${i}] = ${w[i]} is negative; DIMACS lengths are not`, 'graph.weights');
  }
  const { src, dst } = edgesOf(graph);
  const header = `c written by @weft/graph\np sp ${graph.vertexCount} ${src.length}\n`;
  return chunks(header, src.length, (i) => `a ${src[i]! + 1} ${dst[i]! + 1} ${w[i]}`);
}
