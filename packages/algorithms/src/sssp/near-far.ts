import {
  atomic,
  type DeviceArray,
  type Functor,
  f32,
  InputError,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, type FrontierBitmap, FrontierQueue } from '@weft/graph';
import {
  type AdvanceWorkspace,
  advancePush,
  compute,
  type IterationLog,
  isNeighborGraph,
  type LoadBalance,
  type NeighborGraph,
} from '@weft/operators';
import { recordSet } from '../common.ts';

/** What the near-far step reads and writes: the SSSP problem's arrays, on a CSR or a NeighborGraph. */
export interface SsspState<G extends DeviceGraph | NeighborGraph = DeviceGraph> {
  readonly graph: G;
  readonly distances: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  /** Vertices whose distance improved this iteration (cleared by the problem before each step). */
  readonly improved: FrontierBitmap;
  readonly workspace: AdvanceWorkspace;
  readonly loadBalance: Exclude<LoadBalance, 'auto'>;
  readonly log: IterationLog | undefined;
  /** Whether distances are f32 bits (else saturating u32 sums). */
  readonly float: boolean;
}

/** Throws unless `delta` is a bucket width the distances can add: positive, finite, integral for integers. */
export function checkDelta(delta: number, float: boolean): void {
  if (!(delta > 0) || !Number.isFinite(delta) || (!float && !Number.isInteger(delta))) {
    throw new InputError(`delta must be a positive ${float ? 'number' : 'integer'}, got ${delta}`, 'delta');
  }
}

/**
 * Davidson et al.'s bucket width: warp width (32) times the mean edge weight over the mean out-degree, so
 * a near level holds about a warp's worth of edges per vertex. Integer weights round it up to an integer;
 * with no edge or all weights zero it is 1.
 */
export function davidsonDelta(meanWeight: number, meanDegree: number, float: boolean): number {
  let delta = meanDegree > 0 ? (32 * meanWeight) / meanDegree : 1;
  if (!(delta > 0) || !Number.isFinite(delta)) delta = 1;
  return float ? delta : Math.min(Math.ceil(delta), 0x7fffffff);
}

/** The distance word of `d + delta` (a first threshold), computed on the host. */
export function deltaWord(float: boolean, delta: number, d: number): number {
  if (!float) return Math.min(d + delta, 0xfffffffe);
  return new Uint32Array(Float32Array.of(d + delta).buffer)[0]!;
}

/** `(d: u32) -> u32`: distance word `d` plus `delta`, in the distances' encoding. */
export function addDeltaFunctor(float: boolean, delta: number): Functor {
  return float
    ? wgsl`(d: u32) -> u32 { return bitcast<u32>(bitcast<f32>(d) + ${f32(delta)}); }`
    : wgsl`(d: u32) -> u32 {
  let s = d + ${u32(delta)};
  return select(s, 0xfffffffeu, s < d || s == 0xffffffffu);
}`;
}

/**
 * Near-far (Davidson et al.'s two-level queue, with the far pile carried in the frontier): vertices of the
 * frontier below the threshold form the near list and are relaxed; the others are deferred into the next
 * frontier as they are. When the near list comes out empty, the threshold moves to the smallest deferred
 * distance plus delta, on the GPU; past every distance where adding delta does not raise it (an f32 sum
 * rounding back, a saturated one), so the run always ends. Fewer re-relaxations than plain Bellman-Ford
 * on weighted graphs.
 */
export class NearFarStep {
  readonly #near: FrontierQueue;
  /** [0]: the threshold, [1]: the smallest deferred distance (distance words). */
  readonly #bounds: DeviceArray<'u32'>;

  constructor(
    readonly sssp: SsspState<DeviceGraph | NeighborGraph>,
    readonly delta: number,
  ) {
    const device = sssp.graph.device;
    this.#near = new FrontierQueue(device, sssp.graph.vertexCount, { label: 'sssp near' });
    this.#bounds = device.array('u32', 2, { label: 'sssp threshold' });
  }

  async reset(rec: Recorder): Promise<void> {
    await recordSet(rec, this.#bounds, 0, deltaWord(this.sssp.float, this.delta, 0));
  }

  /** One iteration: split the frontier, relax the near part with `relax`, move the threshold if need be. */
  async step(rec: Recorder, iteration: number, relax: Functor): Promise<void> {
    const { graph, distances, queue, improved, workspace, loadBalance, log } = this.sssp;
    const near = this.#near;
    const bounds = this.#bounds;
    const next = queue.next;
    await log?.recordCounts(rec, iteration, queue.length, 0);
    rec.clear(near.next.count);
    rec.clear(next.count);
    await recordSet(rec, bounds, 1, 0xffffffff);
    const bit = improved.words;
    await compute(
      rec,
      queue.current,
      wgsl`(v: u32) {
  let d = ${distances}[v];
  if (d < atomicLoad(&${atomic(bounds)}[0])) {
    let at = atomicAdd(&${atomic(near.next.count)}[0], 1u);
    if (at < ${u32(near.capacity)}) { ${rw(near.next.items)}[at] = v; }
  } else {
    // Deferred: kept once (the bit also stops the advance below from adding it again).
    let mask = 1u << (v & 31u);
    if ((atomicOr(&${atomic(bit)}[v >> 5u], mask) & mask) == 0u) {
      let at = atomicAdd(&${atomic(next.count)}[0], 1u);
      if (at < ${u32(queue.capacity)}) { ${rw(next.items)}[at] = v; }
      atomicMin(&${atomic(bounds)}[1], d);
    }
  }
}`,
    );
    near.swap();
    if (log && !isNeighborGraph(graph))
      await log.addDegrees(rec, log.slot(iteration).edges, near.current, graph.offsets);
    await advancePush(rec, graph, near.current, relax, {
      output: next,
      append: true,
      visited: improved,
      workspace,
      loadBalance,
    });
    const nearLength = near.length;
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  let low = ${rw(bounds)}[1];
  if (${nearLength.array}[0] == 0u && low != 0xffffffffu) {
    let t = ${addDeltaFunctor(this.sssp.float, this.delta)}(low);
    ${rw(bounds)}[0] = select(t, 0xffffffffu, t <= low);
  }
}`,
    );
  }

  destroy(): void {
    this.#near.destroy();
    this.#bounds.destroy();
  }
}
