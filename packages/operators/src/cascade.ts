import type { DeviceArray, Functor, GpuCount, Kernel, Recorder } from '@weft/gpu';
import { type DeviceGraph, FrontierBitmap } from '@weft/graph';
import { edgeIdFunctor, edgeView } from './advance.ts';
import type { EnactorLoop } from './enactor.ts';

/** Threads of a cascade workgroup, and the vertices one drain of its queue holds. */
const CASCADE_WORKGROUP = 256;
const CASCADE_QUEUE = 2048;
/** Edges above which all of a workgroup's threads walk a queued vertex's edges together. */
const CASCADE_HUB_DEGREE = 32;
/** Most workgroups of a cascade dispatch: each scans its chunks strided over the grid. */
const CASCADE_MAX_WORKGROUPS = 1024;

export interface CascadeOptions {
  /** Which edges a vertex pushes along: out-edges (default) or in-edges (a directed graph needs its CSC). */
  direction?: 'out' | 'in';
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
    if (n === 0) return;
    const direction = this.options.direction ?? 'out';
    const view = edgeView(this.graph, direction, 'cascade');
    this.#kernel ??= await rec.device.kernel({
      label: `cascade ${direction}`,
      params: { n: 'u32', from_marks: 'u32' },
      bindings: {
        offsets: { type: 'array<u32>', access: 'read' },
        neighbors: { type: 'array<u32>', access: 'read' },
        marks_in: { type: 'array<u32>', access: 'read' },
        marks_out: { type: 'array<atomic<u32>>', access: 'read_write' },
        marked: { type: 'array<atomic<u32>>', access: 'read_write' },
      },
      functors: { weft_seed: this.seed, weft_edge: this.edge, weft_edge_id: edgeIdFunctor(view.edgeIds) },
      code: cascadeWgsl(this.options.queue ?? CASCADE_QUEUE),
    });
    const parity = iteration % 2;
    const marksIn = this.#marks[parity]!;
    const marksOut = this.#marks[1 - parity]!;
    marksOut.recordClear(rec);
    rec.clear(this.#state);
    rec.dispatch(this.#kernel, {
      bindings: {
        offsets: view.offsets,
        neighbors: view.neighbors,
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
 * The queue is drained after each scanned chunk and then starts again at 0, so it only has to hold one
 * chunk's cascade. A round takes up to a workgroup of queued vertices: each thread walks a small one alone,
 * and vertices of more than `HUB` edges are walked by all threads together after a barrier.
 */
function cascadeWgsl(queue: number): string {
  return /* wgsl */ `
const WG = ${CASCADE_WORKGROUP}u;
const CAP = ${queue}u;
const HUB = ${CASCADE_HUB_DEGREE}u;

var<workgroup> queue: array<u32, CAP>;
var<workgroup> tail: atomic<u32>;
var<workgroup> hubs: array<u32, WG>;
var<workgroup> hub_count: atomic<u32>;
var<workgroup> tail_seen: u32;
var<workgroup> hubs_seen: u32;

fn push(v: u32) {
  let slot = atomicAdd(&tail, 1u);
  if (slot < CAP) {
    queue[slot] = v;
    return;
  }
  let bit = 1u << (v & 31u);
  if ((atomicOr(&marks_out[v >> 5u], bit) & bit) == 0u) { atomicAdd(&marked[0], 1u); }
}

fn walk(src: u32, e: u32) {
  let dst = neighbors[e];
  if (weft_edge(src, dst, weft_edge_id(e))) { push(dst); }
}

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
    var head = 0u;
    loop {
      workgroupBarrier();
      if (lid == 0u) {
        tail_seen = min(atomicLoad(&tail), CAP);
        atomicStore(&hub_count, 0u);
      }
      let end = workgroupUniformLoad(&tail_seen);
      if (end == head) { break; }
      let take = min(end - head, WG);
      if (lid < take) {
        let u = queue[head + lid];
        let first = offsets[u];
        let last = offsets[u + 1u];
        if (last - first > HUB) {
          hubs[atomicAdd(&hub_count, 1u)] = u;
        } else {
          for (var e = first; e < last; e++) { walk(u, e); }
        }
      }
      workgroupBarrier();
      if (lid == 0u) { hubs_seen = atomicLoad(&hub_count); }
      let hub_total = workgroupUniformLoad(&hubs_seen);
      for (var h = 0u; h < hub_total; h++) {
        let u = hubs[h];
        let last = offsets[u + 1u];
        for (var e = offsets[u] + lid; e < last; e += WG) { walk(u, e); }
      }
      head += take;
    }
    if (lid == 0u) { atomicStore(&tail, 0u); }
  }
}`;
}
