import { InputError } from '@weft/gpu';

/** Per-edge values on the host: real weights, unsigned integer weights (Graph500 [1, 255]) or signed integers. */
export type HostWeights = Float32Array | Uint32Array | Int32Array;

/**
 * A graph in compressed sparse row form on the host: the out-edges of vertex `v` are
 * `targets[offsets[v] .. offsets[v + 1])`, sorted by target, with `weights` (when present) in the same order.
 * An undirected graph stores every edge in both directions.
 */
export interface HostCsr {
  vertexCount: number;
  edgeCount: number;
  /** `vertexCount + 1` non-decreasing offsets, `offsets[0] = 0`, `offsets[vertexCount] = edgeCount`. */
  offsets: Uint32Array;
  targets: Uint32Array;
  weights?: HostWeights;
  directed: boolean;
  /** The file's own id of every vertex (`ids[v]` for vertex `v`), where its ids were renumbered on load. */
  ids?: readonly string[];
}

/**
 * A list of edges `src[i] -> dst[i]` (with `weights[i]`) in any order, duplicates and self-loops allowed.
 * `directed: false` means each edge stands for both directions; whether the reverse edges are listed too is
 * up to the producer (symmetric Matrix Market files list both, generators list one).
 */
export interface HostEdgeList {
  vertexCount: number;
  src: Uint32Array;
  dst: Uint32Array;
  weights?: HostWeights;
  directed: boolean;
  /** The file's own id of every vertex (`ids[v]` for vertex `v`), where its ids were renumbered on load. */
  ids?: readonly string[];
}

/** In-edges of a {@link HostCsr}: the in-edges of `v` come from `sources[inOffsets[v] .. inOffsets[v + 1])`. */
export interface HostCsc {
  inOffsets: Uint32Array;
  /** Sorted by source within each vertex's in-edges. */
  sources: Uint32Array;
  /** `inEdgeIds[k]` is the position of in-edge `k` in the CSR edge order, so both views share edge values. */
  inEdgeIds: Uint32Array;
}

/** Largest vertex count: ids are u32 and `offsets` needs `vertexCount + 1` entries. */
export const MAX_VERTEX_COUNT = 2 ** 32 - 1;

export function checkVertexCount(n: number, where: string): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_VERTEX_COUNT) {
    throw new InputError(`vertexCount must be an integer in [0, ${MAX_VERTEX_COUNT}], got ${n}`, where);
  }
}

/** Throws {@link InputError} naming the array and index of the first id that is not below `vertexCount`. */
function checkIds(ids: Uint32Array, vertexCount: number, arrayName: string): void {
  // Other typed arrays (an Int32Array holding -1, floats) reach here from JavaScript callers.
  const exact = ids instanceof Uint32Array;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id >= vertexCount || (!exact && !(Number.isInteger(id) && id >= 0))) {
      const why = id < 0 ? 'is negative' : Number.isInteger(id) ? 'is not a vertex id' : 'is not an integer';
      throw new InputError(
        `${arrayName}[${i}] = ${id} ${why} (ids are in [0, ${vertexCount}); pass a Uint32Array)`,
        arrayName,
      );
    }
  }
}

/**
 * `weights` as a {@link HostWeights} array: a Float64Array is narrowed to f32; NaN, infinite values and
 * values f32 cannot hold are an {@link InputError} naming the index, as is any other array type.
 */
export function checkWeights(given: HostWeights, arrayName: string): HostWeights {
  // JavaScript callers pass other arrays too: check what actually came.
  const weights = given as Float32Array | Float64Array | Uint32Array | Int32Array | number[];
  if (weights instanceof Uint32Array || weights instanceof Int32Array) return weights;
  if (!(weights instanceof Float32Array) && !(weights instanceof Float64Array)) {
    throw new InputError(
      'weights must be a Float32Array, Uint32Array or Int32Array (or Float64Array, narrowed to f32)',
      arrayName,
    );
  }
  const out = weights instanceof Float64Array ? new Float32Array(weights.length) : weights;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    const narrowed = Math.fround(w);
    if (!Number.isFinite(narrowed)) {
      const why = Number.isFinite(w) ? 'does not fit f32' : 'is not a finite number';
      throw new InputError(`${arrayName}[${i}] = ${w} ${why}`, arrayName);
    }
    if (out !== weights) out[i] = narrowed;
  }
  return out;
}

/**
 * Throws a one-line {@link InputError} when `value` is a graphology graph (found by shape, so any graphology
 * version counts): Weft's functions take its own graphs, and `@weft/graphology` converts.
 */
export function rejectGraphology(value: unknown, where: string): void {
  const v = value as { order?: unknown; forEachEdge?: unknown } | null | undefined;
  if (
    typeof v === 'object' &&
    v !== null &&
    typeof v.order === 'number' &&
    typeof v.forEachEdge === 'function'
  ) {
    throw new InputError(
      "this is a graphology graph: convert it with @weft/graphology's toDevice(device, graph), or call " +
        "that package's pagerank, connectedComponents, ... on it",
      where,
    );
  }
}

/** `directed` must be stated: guessing either way silently changes every answer. */
export function checkDirected(directed: unknown, where: string): void {
  if (typeof directed !== 'boolean') {
    throw new InputError(
      `directed must be true or false, got ${directed === undefined ? 'nothing' : String(directed)}: say whether edges go one way`,
      where,
    );
  }
}

/** Checks lengths and ids of an edge list; throws {@link InputError} naming the array and index. */
export function validateEdgeList(edges: HostEdgeList): void {
  rejectGraphology(edges, 'edges');
  checkVertexCount(edges.vertexCount, 'edges.vertexCount');
  checkDirected(edges.directed, 'edges.directed');
  if (edges.src.length !== edges.dst.length) {
    throw new InputError(`src has ${edges.src.length} entries but dst has ${edges.dst.length}`, 'edges.dst');
  }
  if (edges.weights !== undefined && edges.weights.length !== edges.src.length) {
    throw new InputError(
      `weights has ${edges.weights.length} entries but there are ${edges.src.length} edges`,
      'edges.weights',
    );
  }
  checkIds(edges.src, edges.vertexCount, 'edges.src');
  checkIds(edges.dst, edges.vertexCount, 'edges.dst');
  checkOriginalIds(edges.ids, edges.vertexCount, 'edges.ids');
}

function checkOriginalIds(ids: readonly string[] | undefined, vertexCount: number, where: string): void {
  if (ids !== undefined && ids.length !== vertexCount) {
    throw new InputError(`ids has ${ids.length} entries but there are ${vertexCount} vertices`, where);
  }
}

/** Checks a CSR's shape: offset count, monotone offsets, ids in range, weight count. */
export function validateCsr(csr: HostCsr): void {
  rejectGraphology(csr, 'csr');
  const n = csr.vertexCount;
  checkVertexCount(n, 'csr.vertexCount');
  checkDirected(csr.directed, 'csr.directed');
  if (csr.offsets.length !== n + 1) {
    throw new InputError(
      `offsets has ${csr.offsets.length} entries, expected vertexCount + 1 = ${n + 1}`,
      'csr.offsets',
    );
  }
  if (csr.targets.length !== csr.edgeCount) {
    throw new InputError(
      `targets has ${csr.targets.length} entries but edgeCount is ${csr.edgeCount}`,
      'csr.targets',
    );
  }
  if (csr.offsets[0] !== 0 || csr.offsets[n] !== csr.edgeCount) {
    throw new InputError(
      `offsets must start at 0 and end at edgeCount ${csr.edgeCount}, got ${csr.offsets[0]} .. ${csr.offsets[n]}`,
      'csr.offsets',
    );
  }
  const exact = csr.offsets instanceof Uint32Array;
  for (let v = 0; v < n; v++) {
    if (!exact && !Number.isInteger(csr.offsets[v + 1])) {
      throw new InputError(`offsets[${v + 1}] = ${csr.offsets[v + 1]} is not an integer`, 'csr.offsets');
    }
    if (csr.offsets[v + 1]! < csr.offsets[v]!) {
      throw new InputError(
        `offsets[${v + 1}] = ${csr.offsets[v + 1]} is below offsets[${v}] = ${csr.offsets[v]}`,
        'csr.offsets',
      );
    }
  }
  checkIds(csr.targets, n, 'csr.targets');
  checkOriginalIds(csr.ids, n, 'csr.ids');
  if (csr.weights !== undefined && csr.weights.length !== csr.edgeCount) {
    throw new InputError(
      `weights has ${csr.weights.length} entries but edgeCount is ${csr.edgeCount}`,
      'csr.weights',
    );
  }
}

/** Out-degree of every vertex. */
export function outDegrees(csr: HostCsr): Uint32Array {
  const d = new Uint32Array(csr.vertexCount);
  for (let v = 0; v < csr.vertexCount; v++) d[v] = csr.offsets[v + 1]! - csr.offsets[v]!;
  return d;
}
