import { type Functor, load, type WeftDevice, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';

/**
 * What an operator needs from a graph to visit the out-edges of a vertex, whatever stores them: a CSR
 * (`csrNeighbors`), a `DynamicGraph`'s slab hash tables, or any other adjacency on the GPU. Operators that
 * take it walk each vertex's list in one thread (no random access by rank, so no merge path).
 */
export interface NeighborGraph {
  readonly device: WeftDevice;
  /** Vertex ids are below this. */
  readonly vertexCount: number;
  /**
   * A functor `(v: u32)` that calls `visit(src: u32, dst: u32, edge: u32)` for every out-edge of `v`
   * (`src` = `v`); `edge` identifies the edge's storage (the CSR edge id, a slab slot), so per-edge data
   * is indexed by it. Built per call: it captures the graph's arrays as they are now.
   */
  forEachNeighbor(visit: Functor): Functor;
  /** `(v: u32) -> u32`: the out-degree of `v`, where the graph keeps it. */
  degree?(): Functor;
}

/** Whether `graph` is a {@link NeighborGraph} (and not a `DeviceGraph`, which operators read as a CSR). */
export function isNeighborGraph(graph: DeviceGraph | NeighborGraph): graph is NeighborGraph {
  return typeof (graph as Partial<NeighborGraph>).forEachNeighbor === 'function';
}

/**
 * A CSR's out-edges as a {@link NeighborGraph}: `v`'s edges are `offsets[v] .. offsets[v + 1]` and `edge`
 * is the CSR edge id. Operators given the `DeviceGraph` itself keep their load-balanced paths.
 */
export function csrNeighbors(graph: DeviceGraph): NeighborGraph {
  const { offsets, chunkedTargets } = graph;
  return {
    device: graph.device,
    vertexCount: graph.vertexCount,
    forEachNeighbor: (visit) => wgsl`(v: u32) {
  let end = ${offsets}[v + 1u];
  for (var k = ${offsets}[v]; k < end; k++) { ${visit}(v, ${load(chunkedTargets, 'k')}, k); }
}`,
    degree: () => wgsl`(v: u32) -> u32 { return ${offsets}[v + 1u] - ${offsets}[v]; }`,
  };
}
