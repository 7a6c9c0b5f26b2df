import {
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  type GpuCount,
  type Kernel,
  type Recorder,
  u32,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, FrontierBitmap } from '@weft/graph';
import { edgeIdFunctor, edgeView, neighborFunctor } from './advance.ts';
import type { EnactorLoop } from './enactor.ts';

/**
 * Threads of a cascade workgroup, and the vertices one drain of its queue holds: a small queue overflows
 * early, and the overflow restarts spread over every workgroup at the next step instead of one workgroup
 * carrying a large cascade alone.
 */
const CASCADE_WORKGROUP = 256;
const CASCADE_QUEUE = 256;
/** Most workgroups of a cascade dispatch: each scans its chunks strided over the grid. */
const CASCADE_MAX_WORKGROUPS = 1024;
const NONE = 0xffffffff;

export interface CascadeOptions {
  /**
   * Which edges a vertex pushes along: out-edges (default), in-edges, or both (out-edges, then in-edges, as
   * for weak components); a directed graph needs its CSC for `'in'` and `'both'`.
   */
  direction?: 'out' | 'in' | 'both';
  /**
   * With `'both'` on a directed graph: the functor for in-edges, `(src, dst, edge) -> bool` where the arc
   * runs `dst -> src` (default: `edge`).
   */
  inEdge?: Functor;
  /**
   * Whether `edge` and `inEdge` read their edge id (default true). With false they get `0xffffffff`, and an
   * in-edge walk binds no CSC edge-id array: one storage binding fewer on devices that allow few.
   */
  edgeIds?: boolean;
  /** The vertices one workgroup's queue holds (tests shrink it to make cascades overflow). */
  queue?: number;
}

/**
 * A monotone push run to its fixed point in a few dispatches, with no workgroup waiting on another
 * (WebGPU promises no forward progress between workgroups). The first step scans every vertex and starts
 * from those where `seed(v: u32) -> bool` holds; each workgroup walks its started vertices' edges from a
 * queue in workgroup memory, calling `edge(src: u32, dst: u32, edge: u32) -> bool`, and queues `dst` itself
 * whenever that returns true, so a change travels as far as it goes inside one dispatch. A vertex that finds
 * its workgroup's queue full is marked in a bitmap instead, and the next step starts from the marked
 * vertices; `active()` counts them, so an enactor stops at the first step that marks none.
 *
 * `edge` must be monotone and idempotent (an `atomicMin` on a label, a claim by compare-exchange): it may
 * see a vertex more than once and in any order, and must return true only when `dst` changed. `seed` may
 * only read what `edge` writes: it runs while other workgroups' pushes are landing. `edge`'s edge id is the
 * CSR one in both directions.
 */
export class Cascade implements EnactorLoop {
  /** [vertices marked for the next step]. */
  readonly #state: DeviceArray<'u32'>;
  readonly #marks: [FrontierBitmap, FrontierBitmap];
  readonly #workgroups: number;
  #kernel: Kernel | undefined;

  constructor(
    readonly graph: DeviceGraph,
    readonly seed: Functor,
    readonly edge: Functor,
    readonly options: CascadeOptions = {},
  ) {
    checkOptionsObject('new Cascade', options);
    const device = graph.device;
    this.#state = device.array('u32', 1, { label: 'cascade marked' });
    this.#marks = [
      new FrontierBitmap(device, graph.vertexCount, 'cascade marks 0'),
      new FrontierBitmap(device, graph.vertexCount, 'cascade marks 1'),
    ];
    this.#workgroups = Math.max(
      1,
      Math.min(CASCADE_MAX_WORKGROUPS, Math.ceil(graph.vertexCount / CASCADE_WORKGROUP)),
    );
  }

  /** Records step `iteration`: from the seeds at 0, else from the vertices the previous step marked. */
  async step(rec: Recorder, iteration: number): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) {
      // Nothing to walk, but active() must still read zero: the pool's arrays come back dirty.
      rec.clear(this.#state);
      return;
    }
    const direction = this.options.direction ?? 'out';
    // An undirected graph's out-edges are all its edges: 'both' walks them once.
    const both = direction === 'both' && this.graph.directed;
    const view = edgeView(this.graph, direction === 'both' ? 'out' : direction, 'cascade');
    const back = both ? edgeView(this.graph, 'in', 'cascade') : undefined;
    const edgeId = (ids: DeviceArray<'u32'> | undefined) =>
      this.options.edgeIds === false ? wgsl`(k: u32) -> u32 { return ${u32(NONE)}; }` : edgeIdFunctor(ids);
    // Neighbors in chunks are read through the chunk accessor; one array stays a plain binding.
    const chunked = !view.column.single || (back !== undefined && !back.column.single);
    this.#kernel ??= await rec.device.kernel({
      label: `cascade ${direction}`,
      params: { n: 'u32', from_marks: 'u32' },
      bindings: {
        offsets: { type: 'array<u32>', access: 'read' },
        ...(chunked ? {} : { neighbors: { type: 'array<u32>', access: 'read' } }),
        ...(back
          ? {
              in_offsets: { type: 'array<u32>', access: 'read' },
              ...(chunked ? {} : { in_neighbors: { type: 'array<u32>', access: 'read' } }),
            }
          : {}),
        marks_in: { type: 'array<u32>', access: 'read' },
        marks_out: { type: 'array<atomic<u32>>', access: 'read_write' },
        marked: { type: 'array<atomic<u32>>', access: 'read_write' },
      },
      functors: {
        weft_seed: this.seed,
        weft_edge: this.edge,
        weft_edge_id: edgeId(view.edgeIds),
        ...(back
          ? { weft_in_edge: this.options.inEdge ?? this.edge, weft_in_edge_id: edgeId(back.edgeIds) }
          : {}),
        ...(chunked
          ? {
              weft_neighbor: neighborFunctor(view.column),
              ...(back ? { weft_in_neighbor: neighborFunctor(back.column) } : {}),
            }
          : {}),
      },
      code: cascadeWgsl(this.options.queue ?? CASCADE_QUEUE, !!back, chunked),
    });
    const parity = iteration % 2;
    const marksIn = this.#marks[parity]!;
    const marksOut = this.#marks[1 - parity]!;
    marksOut.recordClear(rec);
    rec.clear(this.#state);
    rec.dispatch(this.#kernel, {
      bindings: {
        offsets: view.offsets,
        ...(chunked ? {} : { neighbors: view.neighbors }),
        ...(back ? { in_offsets: back.offsets, ...(chunked ? {} : { in_neighbors: back.neighbors }) } : {}),
        marks_in: marksIn.words,
        marks_out: marksOut.words,
        marked: this.#state,
      },
      params: { n, from_marks: iteration === 0 ? 0 : 1 },
      workgroups: this.#workgroups,
    });
  }

  active(): GpuCount {
    return { array: this.#state, index: 0 };
  }

  destroy(): void {
    this.#state.destroy();
    for (const m of this.#marks) m.destroy();
  }
}

/**
 * WGSL for a workgroup's queue of vertices and `drain_queue(lid)`, which walks the queued vertices' edges
 * round after round until the queue is empty, then empties it (`tail` back to 0). The including kernel binds
 * `offsets` and `neighbors` (a CSR or CSC) and defines `fn weft_visit(src: u32, dst: u32, e: u32)` for the
 * edge at position `e`; with `both`, it also binds `in_offsets` and `in_neighbors` and defines
 * `fn weft_visit_in(src: u32, dst: u32, e: u32)` for in-edge position `e`, and each vertex walks its
 * out-edges, then its in-edges. It appends a vertex by `slot = atomicAdd(&tail, 1u)` and `queue[slot] = v`
 * when `slot < CAP`. Call `drain_queue` in uniform control flow. A round takes up to a workgroup of queued
 * vertices, sums their degrees in workgroup memory and spreads the round's edges evenly over the threads
 * (each finds its vertex by binary search), so one hub or a few long lists do not leave threads idle; each
 * thread loads four edges' neighbors before visiting them. With `chunked`, neighbors are read through
 * `weft_neighbor(e)` and `weft_in_neighbor(e)` (see {@link neighborFunctor}) instead of the two bindings, so
 * the neighbor ids may be stored in chunks.
 */
export function queueDrainWgsl(
  workgroupSize: number,
  capacity: number,
  both = false,
  chunked = false,
): string {
  const out = chunked ? 'weft_neighbor(edge[j].y)' : 'neighbors[edge[j].y]';
  const inn = chunked ? 'weft_in_neighbor(edge[j].y)' : 'in_neighbors[edge[j].y]';
  const inDecl = both
    ? '\nvar<workgroup> round_out: array<u32, WG>;\nvar<workgroup> round_in_first: array<u32, WG>;'
    : '';
  const inLoad = both
    ? `
      let in_first = in_offsets[u];
      round_out[lid] = degree;
      round_in_first[lid] = in_first;
      degree += in_offsets[u + 1u] - in_first;`
    : '';
  // An edge is (vertex, position, 1 for an in-edge); without `both` the third word is always 0.
  const locate = both
    ? `
  let at = i - before;
  if (at < round_out[lo]) { return vec3<u32>(round_vertex[lo], round_first[lo] + at, 0u); }
  return vec3<u32>(round_vertex[lo], round_in_first[lo] + at - round_out[lo], 1u);`
    : `
  return vec3<u32>(round_vertex[lo], round_first[lo] + i - before, 0u);`;
  const read = both
    ? `if (edge[j].z != 0u) {
            dst[j] = ${inn};
          } else {
            dst[j] = ${out};
          }`
    : `dst[j] = ${out};`;
  const visit = both
    ? `if (edge[j].z != 0u) {
            weft_visit_in(edge[j].x, dst[j], edge[j].y);
          } else {
            weft_visit(edge[j].x, dst[j], edge[j].y);
          }`
    : 'weft_visit(edge[j].x, dst[j], edge[j].y);';
  return /* wgsl */ `
const WG = ${workgroupSize}u;
const CAP = ${capacity}u;
const UNROLL = 4u;

var<workgroup> queue: array<u32, CAP>;
var<workgroup> tail: atomic<u32>;
var<workgroup> round_scan: array<u32, WG>;
var<workgroup> round_first: array<u32, WG>;
var<workgroup> round_vertex: array<u32, WG>;${inDecl}
var<workgroup> uniform_word: u32;

fn round_edge(i: u32, take: u32) -> vec3<u32> {
  var lo = 0u;
  var hi = take - 1u;
  while (lo < hi) {
    let mid = (lo + hi) >> 1u;
    if (round_scan[mid] > i) { hi = mid; } else { lo = mid + 1u; }
  }
  var before = 0u;
  if (lo > 0u) { before = round_scan[lo - 1u]; }${locate}
}

fn drain_queue(lid: u32) {
  var head = 0u;
  loop {
    workgroupBarrier();
    if (lid == 0u) { uniform_word = min(atomicLoad(&tail), CAP); }
    let end = workgroupUniformLoad(&uniform_word);
    if (end == head) { break; }
    let take = min(end - head, WG);
    var degree = 0u;
    if (lid < take) {
      let u = queue[head + lid];
      let first = offsets[u];
      degree = offsets[u + 1u] - first;
      round_first[lid] = first;
      round_vertex[lid] = u;${inLoad}
    }
    round_scan[lid] = degree;
    for (var step = 1u; step < take; step <<= 1u) {
      workgroupBarrier();
      var add = 0u;
      if (lid >= step) { add = round_scan[lid - step]; }
      workgroupBarrier();
      round_scan[lid] += add;
    }
    workgroupBarrier();
    if (lid == 0u) { uniform_word = round_scan[take - 1u]; }
    let total = workgroupUniformLoad(&uniform_word);
    for (var base = lid; base < total; base += UNROLL * WG) {
      var edge: array<vec3<u32>, UNROLL>;
      var dst: array<u32, UNROLL>;
      for (var j = 0u; j < UNROLL; j++) {
        let i = base + j * WG;
        if (i < total) {
          edge[j] = round_edge(i, take);
          ${read}
        }
      }
      for (var j = 0u; j < UNROLL; j++) {
        if (base + j * WG < total) {
          ${visit}
        }
      }
    }
    head += take;
  }
  workgroupBarrier();
  if (lid == 0u) { atomicStore(&tail, 0u); }
  workgroupBarrier();
}`;
}

/** A chunk's seeds are queued and drained before the next chunk, so the queue holds one chunk's cascade. */
function cascadeWgsl(queue: number, both: boolean, chunked: boolean): string {
  const visitIn = both
    ? `

fn weft_visit_in(src: u32, dst: u32, e: u32) {
  if (weft_in_edge(src, dst, weft_in_edge_id(e))) { push(dst); }
}`
    : '';
  return /* wgsl */ `${queueDrainWgsl(CASCADE_WORKGROUP, queue, both, chunked)}

fn push(v: u32) {
  let slot = atomicAdd(&tail, 1u);
  if (slot < CAP) {
    queue[slot] = v;
    return;
  }
  let bit = 1u << (v & 31u);
  if ((atomicOr(&marks_out[v >> 5u], bit) & bit) == 0u) { atomicAdd(&marked[0], 1u); }
}

fn weft_visit(src: u32, dst: u32, e: u32) {
  if (weft_edge(src, dst, weft_edge_id(e))) { push(dst); }
}${visitIn}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let chunks = (params.n + WG - 1u) / WG;
  for (var chunk = wid.x; chunk < chunks; chunk += nwg.x) {
    let v = chunk * WG + lid;
    if (v < params.n) {
      var start = false;
      if (params.from_marks != 0u) {
        start = ((marks_in[v >> 5u] >> (v & 31u)) & 1u) != 0u;
      } else {
        start = weft_seed(v);
      }
      if (start) { push(v); }
    }
    drain_queue(lid);
  }
}`;
}
