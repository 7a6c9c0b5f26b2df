import {
  type ElementType,
  type Functor,
  lit,
  load,
  type Monoid,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, hasNeighbor } from '@weft/graph';

/**
 * A vertex's out-edges cut into parts of bounded size (a CSR's runs of edges, a hash table's buckets),
 * each walked by one thread, so that a hub's list spreads over many threads.
 */
export interface NeighborParts {
  /** `(v: u32) -> u32`: how many parts `v`'s out-edges are cut into. */
  readonly count: Functor;
  /** `(v: u32, part: u32)`: calls `visit(src, dst, edge)` for each out-edge of `v` in part `part`. */
  forEach(visit: Functor): Functor;
  /** The parts of all vertices together number at most this (sizes the balanced dispatch). */
  readonly capacity: number;
}

/**
 * What an operator needs from a graph to visit the out-edges of a vertex, whatever stores them: a CSR
 * (`csrNeighbors`), a `DynamicGraph`'s slab hash tables, or any other adjacency on the GPU. Without
 * `parts`, operators that take it walk each vertex's list in one thread (no random access by rank).
 */
export interface NeighborGraph {
  readonly device: WeftDevice;
  /** Vertex ids are below this. */
  readonly vertexCount: number;
  /** False where every edge is listed both ways (out-lists are then in-lists too); unknown when absent. */
  readonly directed?: boolean;
  /**
   * Changes whenever the lists may have changed (a batch of updates), so that what was measured on them
   * (a largest degree) can be kept until then; absent where the graph cannot tell.
   */
  readonly version?: number;
  /**
   * A functor `(v: u32)` that calls `visit(src: u32, dst: u32, edge: u32)` for every out-edge of `v`
   * (`src` = `v`); `edge` identifies the edge's storage (the CSR edge id, a slab slot), so per-edge data
   * is indexed by it. Built per call: it captures the graph's arrays as they are now.
   */
  forEachNeighbor(visit: Functor): Functor;
  /** `(v: u32) -> u32`: the out-degree of `v`, where the graph keeps it. */
  degree?(): Functor;
  /** `(u: u32, v: u32) -> bool`: whether `u -> v` is an edge (a hash probe, a binary search). */
  hasEdge?(): Functor;
  /** The out-edges cut into parts for load balancing over lists of very different lengths. */
  parts?(): NeighborParts;
  /**
   * Every edge of the graph in blocks of bounded size (a slab pool's slabs), each visited by one thread:
   * an advance over all vertices then needs no scan.
   */
  edgeBlocks?(): NeighborBlocks;
  /** The edges' weights, where the graph keeps them (undefined otherwise). */
  weights?(): NeighborWeights | undefined;
}

/** All edges of a {@link NeighborGraph} in blocks. */
export interface NeighborBlocks {
  /** Blocks to visit: `forEach`'s functor runs for each `block` below it. */
  readonly count: number;
  /** `(block: u32)`: calls `visit(src, dst, edge)` for each edge of block `block` (none for an unused one). */
  forEach(visit: Functor): Functor;
}

/** Edge weights of a {@link NeighborGraph}. */
export interface NeighborWeights {
  readonly type: 'u32' | 'i32' | 'f32';
  /** `(edge: u32) -> u32`: the 32 bits of the weight of edge `edge` (bitcast them for i32 and f32). */
  readonly bits: Functor;
}

/**
 * Whether `graph` is a {@link NeighborGraph} (and not a `DeviceGraph`, which operators read as a CSR, nor
 * anything else: a graphology graph also has a `forEachNeighbor`, but no `vertexCount`).
 */
export function isNeighborGraph(graph: DeviceGraph | NeighborGraph): graph is NeighborGraph {
  if (typeof graph !== 'object' || graph === null) return false;
  const g = graph as Partial<NeighborGraph>;
  return (
    typeof g.forEachNeighbor === 'function' && typeof g.vertexCount === 'number' && g.device !== undefined
  );
}

/** Edges of one part of {@link csrNeighbors}: a part is as many edges as a slab of a dynamic graph holds. */
const CSR_PART_EDGES = 32;

/**
 * A CSR's out-edges as a {@link NeighborGraph}: `v`'s edges are `offsets[v] .. offsets[v + 1]`, `edge`
 * is the CSR edge id, parts and edge blocks are runs of 32 edges, `hasEdge` a binary search (rows sorted) and `weights`
 * the graph's (u32, i32 or f32). Operators
 * given the `DeviceGraph` itself keep their own load-balanced paths.
 */
export function csrNeighbors(graph: DeviceGraph): NeighborGraph {
  const { offsets, chunkedTargets } = graph;
  const size = lit(`${CSR_PART_EDGES}u`);
  return {
    device: graph.device,
    vertexCount: graph.vertexCount,
    directed: graph.directed,
    forEachNeighbor: (visit) => wgsl`(v: u32) {
  let end = ${offsets}[v + 1u];
  for (var k = ${offsets}[v]; k < end; k++) { ${visit}(v, ${load(chunkedTargets, 'k')}, k); }
}`,
    degree: () => wgsl`(v: u32) -> u32 { return ${offsets}[v + 1u] - ${offsets}[v]; }`,
    hasEdge: () => hasNeighbor(graph),
    parts: () => ({
      count: wgsl`(v: u32) -> u32 { return (${offsets}[v + 1u] - ${offsets}[v] + ${size} - 1u) / ${size}; }`,
      forEach: (visit) => wgsl`(v: u32, part: u32) {
  let end = min(${offsets}[v + 1u], ${offsets}[v] + (part + 1u) * ${size});
  for (var k = ${offsets}[v] + part * ${size}; k < end; k++) { ${visit}(v, ${load(chunkedTargets, 'k')}, k); }
}`,
      capacity: Math.max(1, Math.ceil(graph.edgeCount / CSR_PART_EDGES) + graph.vertexCount),
    }),
    edgeBlocks: () => ({
      count: Math.ceil(graph.edgeCount / CSR_PART_EDGES),
      forEach: (visit) => wgsl`(block: u32) {
  let first = block * ${size};
  let end = min(first + ${size}, ${u32(graph.edgeCount)});
  var lo = 0u;
  var hi = ${u32(graph.vertexCount)};
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (${offsets}[mid + 1u] <= first) { lo = mid + 1u; } else { hi = mid; }
  }
  var v = lo;
  for (var k = first; k < end; k++) {
    while (${offsets}[v + 1u] <= k) { v++; }
    ${visit}(v, ${load(chunkedTargets, 'k')}, k);
  }
}`,
    }),
    weights: () => {
      const w = graph.chunkedWeights;
      if (!w || !['u32', 'i32', 'f32'].includes(w.type)) return undefined;
      return {
        type: w.type as NeighborWeights['type'],
        bits: wgsl`(edge: u32) -> u32 { return bitcast<u32>(${load(w, 'edge')}); }`,
      };
    },
  };
}

/**
 * `(v: u32) -> T` (`walk(visit)` being `(v: u32)`) or `(v: u32, part: u32) -> T` (`walk` being
 * `(v: u32, part: u32)`): the monoid's fold of `f(src, dst, edge) -> T` over the edges `walk` visits.
 */
export function foldFunctor<T extends ElementType>(
  walk: (visit: Functor) => Functor,
  f: Functor,
  monoid: Monoid<T>,
  type: T,
  withPart: boolean,
): Functor {
  // WGSL functions cannot see a caller's locals: the running value lives in a private variable, declared
  // beside an empty helper that the visit calls so that the linker emits the declaration.
  const cell = wgsl`() {}
var<private> weft_fold_acc: ${lit(type)};`;
  const visit = wgsl`(src: u32, dst: u32, edge: u32) {
  ${cell}();
  weft_fold_acc = ${monoid.combine}(weft_fold_acc, ${f}(src, dst, edge));
}`;
  const walker = walk(visit);
  return withPart
    ? wgsl`(v: u32, part: u32) -> ${lit(type)} {
  weft_fold_acc = ${monoid.identity};
  ${walker}(v, part);
  return weft_fold_acc;
}`
    : wgsl`(v: u32) -> ${lit(type)} {
  weft_fold_acc = ${monoid.identity};
  ${walker}(v);
  return weft_fold_acc;
}`;
}
