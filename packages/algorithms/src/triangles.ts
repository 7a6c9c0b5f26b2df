import { type DeviceArray, type GpuCount, InputError, load, type Recorder, wgsl } from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, hasNeighbor } from '@weft/graph';
import { isNeighborGraph, type NeighborGraph, neighborhoodReduce } from '@weft/operators';
import type { Problem } from './common.ts';
import { trianglesOnNeighbors } from './neighbor-graph.ts';
import { simpleUndirectedGraph, undirectedGraphOf } from './undirected.ts';

export interface TrianglesResult {
  /** Triangles of the undirected simple graph, each counted once. */
  count: number;
  /** Triangles counted at each vertex: the one that comes first in degree order (they sum to `count`). */
  perVertex: Uint32Array;
  /** True when `graph` was directed and its arcs were read as undirected edges. */
  undirected: boolean;
}

/**
 * Triangle counting by intersection over the degree-ordered orientation (GAP's ordered count): vertices
 * are ranked by (degree, id); each edge u -> v with u before v counts the neighbors w of u that come after
 * v and are neighbors of v, found by binary search in v's sorted list. Each triangle is counted once, at
 * its first vertex, and the work per edge is the smaller degree (O(m sqrt m) overall). The per-vertex
 * counts are a neighborhood reduction (plus), summed on the host in f64. One step does it all.
 */
export class TrianglesProblem implements Problem<TrianglesResult> {
  readonly perVertex: DeviceArray<'u32'>;
  /** The `active` word: always 0, since the first step finishes the count. */
  readonly #done: DeviceArray<'u32'>;

  constructor(readonly graph: DeviceGraph) {
    if (graph.directed) {
      throw new InputError(
        'triangle counting needs an undirected graph: build it with hostCsrFromEdgeList(..., { symmetrize: true })',
        'graph',
      );
    }
    const device = graph.device;
    this.perVertex = device.array('u32', Math.max(1, graph.vertexCount), { label: 'triangles per vertex' });
    this.#done = device.array('u32', 1, { label: 'triangles done' });
    this.#done.upload([0]);
  }

  /** Nothing to record: the step writes every vertex's count. */
  async reset(_rec: Recorder): Promise<void> {}

  async step(rec: Recorder, iteration: number): Promise<void> {
    if (iteration > 0) return;
    const { offsets, chunkedTargets } = this.graph;
    const before = wgsl`(a: u32, b: u32) -> bool {
  let da = ${offsets}[a + 1u] - ${offsets}[a];
  let db = ${offsets}[b + 1u] - ${offsets}[b];
  return da < db || (da == db && a < b);
}`;
    const contains = hasNeighbor(this.graph);
    const count = wgsl`(u: u32, v: u32, edge: u32) -> u32 {
  if (!${before}(u, v)) { return 0u; }
  var c = 0u;
  let end = ${offsets}[u + 1u];
  for (var k = ${offsets}[u]; k < end; k++) {
    let w = ${load(chunkedTargets, 'k')};
    if (${before}(v, w) && ${contains}(v, w)) { c++; }
  }
  return c;
}`;
    await neighborhoodReduce(rec, this.graph, 'all', count, this.perVertex);
  }

  active(): GpuCount {
    return { array: this.#done, index: 0 };
  }

  async result(): Promise<TrianglesResult> {
    const n = this.graph.vertexCount;
    const perVertex = n === 0 ? new Uint32Array(0) : await this.perVertex.download(0, n);
    let count = 0;
    for (let v = 0; v < n; v++) count += perVertex[v]!;
    return { count, perVertex, undirected: false };
  }

  destroy(): void {
    this.perVertex.destroy();
    this.#done.destroy();
  }
}

/**
 * Counts the triangles of an undirected simple graph (each once): one step, no enactor loop. A directed graph
 * is read as the simple undirected graph of its arcs (built on the GPU), and the result says so.
 */
export async function triangleCount(graph: DeviceGraph | NeighborGraph): Promise<TrianglesResult> {
  if (isNeighborGraph(graph)) return trianglesOnNeighbors(graph);
  checkDeviceGraph(graph);
  // The count binary-searches the rows: a multigraph or unsorted rows (a scatter build) are rebuilt first.
  const simple = graph.edgeCount === 0 ? await undirectedGraphOf(graph) : await simpleUndirectedGraph(graph);
  const problem = new TrianglesProblem(simple);
  try {
    const rec = graph.device.recorder({ label: 'triangles' });
    await problem.step(rec, 0);
    await rec.submit();
    return { ...(await problem.result()), undirected: graph.directed };
  } finally {
    problem.destroy();
    if (simple !== graph) simple.destroy();
  }
}
