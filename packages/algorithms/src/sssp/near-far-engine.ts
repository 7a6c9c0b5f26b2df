import {
  atomic,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { FrontierQueue } from '@weft/graph';
import {
  advancePush,
  advanceSmallFrontier,
  compute,
  type SmallFrontierState,
  smallFrontierCapacity,
} from '@weft/operators';
import type { SmallFrontierTuning } from '../bfs/options.ts';
import { recordSet } from '../common.ts';
import type { SsspState } from './near-far.ts';

/** The small-frontier engine's settings for SSSP: BFS's, and bounds on the threshold moves inside it. */
export interface SsspEngineTuning extends SmallFrontierTuning {
  /** Most threshold moves one engine dispatch makes itself (default 65536; 0: the bulk step makes all). */
  maxPhases?: number;
  /**
   * The longest far queue the engine scans to move the threshold itself (default: 4 times its capacity);
   * a longer one is left to the bulk step, whose dispatches spread over the whole GPU.
   */
  farScan?: number;
}

/** The small-frontier engine's parts the SSSP problem owns (see `SsspProblem.smallFrontier`). */
export interface SsspEngine {
  tuning: SsspEngineTuning;
  state: SmallFrontierState;
  levels: DeviceArray<'u32'>;
  stamps: DeviceArray<'u32'>;
}

const NONE = 0xffffffff;

/**
 * Near-far with the near levels in the small-frontier engine:
 *
 *     near = { source }; far = {}; threshold = delta
 *     loop:
 *       relax near level after level (engine; a bulk level when one outgrows it):
 *         an improved v with dist[v] < threshold joins the next level, else joins far (once)
 *       if near is empty: threshold = min dist over far + delta; near = far below it
 *
 * While the far queue is short the engine's workgroup moves the threshold itself when its near frontier
 * empties (`onEmpty`), so many phases run in one dispatch; the bulk step below moves it otherwise.
 *
 * The far queue holds a vertex at most once (a per-vertex flag, cleared when it leaves), so it fits in
 * `vertexCount`. A far entry whose distance is now below the threshold is stale: the improvement that put it
 * there relaxed it as a near vertex, so it is dropped. The threshold moves on the GPU, never read back.
 */
export class NearFarEngineStep {
  readonly #far: FrontierQueue;
  /** Per vertex: nonzero while it is in the far queue. */
  readonly #queued: DeviceArray<'u32'>;
  /**
   * [0]: the threshold; [1]: the smallest far distance at or above it; [2]: 1 when this step moves the
   * threshold; [3]: the larger of the near and far lengths after the step (the enactor's `active`).
   */
  readonly #bounds: DeviceArray<'u32'>;

  constructor(
    readonly sssp: SsspState,
    readonly engine: SsspEngine,
    /** `(d: u32, e: u32) -> u32`: distance word plus edge weight. */
    readonly add: Functor,
    /** `(d: u32) -> u32`: distance word plus delta. */
    readonly addDelta: Functor,
    /** The first threshold's distance word. */
    readonly firstThreshold: number,
  ) {
    const device = sssp.graph.device;
    const n = Math.max(1, sssp.graph.vertexCount);
    this.#far = new FrontierQueue(device, sssp.graph.vertexCount, { label: 'sssp far' });
    this.#queued = device.array('u32', n, { label: 'sssp far flags' });
    this.#bounds = device.array('u32', 4, { label: 'sssp near-far bounds' });
  }

  async reset(rec: Recorder): Promise<void> {
    rec.clear(this.#queued);
    rec.clear(this.#far.current.length.array);
    rec.clear(this.#far.next.count);
    rec.clear(this.#bounds);
    await recordSet(rec, this.#bounds, 0, this.firstThreshold);
    await recordSet(rec, this.#bounds, 3, 1);
  }

  /** Nonzero while the near frontier or the far queue holds a vertex. */
  active(): GpuCount {
    return { array: this.#bounds, index: 3 };
  }

  /** `(min: u32, old: u32) -> u32`: the next threshold; past every distance if adding delta saturates. */
  #nextThreshold(): Functor {
    return wgsl`(low: u32, old: u32) -> u32 {
  if (low == ${u32(NONE)}) { return old; }
  let t = ${this.addDelta}(low);
  return select(t, ${u32(NONE)}, t <= low);
}`;
  }

  /** The engine's levels on the near frontier, a bulk level on what it leaves, then the far queue's turn. */
  async step(rec: Recorder): Promise<void> {
    const { graph, distances, queue, improved, workspace, loadBalance } = this.sssp;
    const { tuning, state, levels, stamps } = this.engine;
    const far = this.#far;
    const bounds = this.#bounds;
    const queued = this.#queued;
    const dist = atomic(distances);
    const add = this.add;
    const farCount = far.current.length.array;
    const toFar = wgsl`(v: u32) {
  if (atomicExchange(&${atomic(queued)}[v], 1u) == 0u) {
    let at = atomicAdd(&${atomic(farCount)}[0], 1u);
    if (at < ${u32(far.capacity)}) { ${rw(far.current.items)}[at] = v; }
  }
}`;
    // As Bellman-Ford's engine step (one atomic, no load first), but an improvement at or past the
    // threshold goes to the far queue.
    const stamped = wgsl`(src: u32, dst: u32, edge: u32, level: u32) -> bool {
  let nd = ${add}(atomicLoad(&${dist}[src]), src, dst, edge);
  if (nd >= atomicMin(&${dist}[dst], nd)) { return false; }
  if (nd < ${bounds}[0]) { return atomicMax(&${atomic(stamps)}[dst], level + 1u) <= level; }
  ${toFar}(dst);
  return false;
}`;
    const relax = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let nd = ${add}(atomicLoad(&${dist}[src]), src, dst, edge);
  if (nd >= atomicLoad(&${dist}[dst])) { return false; }
  if (nd >= atomicMin(&${dist}[dst], nd)) { return false; }
  if (nd < ${bounds}[0]) { return true; }
  ${toFar}(dst);
  return false;
}`;
    const { maxPhases, farScan, ...engineTuning } = tuning;
    const phases = maxPhases ?? 1 << 16;
    const scan = farScan ?? 4 * (engineTuning.capacity ?? smallFrontierCapacity(graph.device));
    for (const [name, value] of [
      ['maxPhases', phases],
      ['farScan', scan],
    ] as const) {
      if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
        throw new InputError(
          `${name} must be an integer in [0, 2^32), got ${value}`,
          `smallFrontier.${name}`,
        );
      }
    }
    const words = atomic(queued);
    // The bulk step's phase change below, by the engine's one workgroup: the smallest far distance at or
    // above the threshold, the threshold past it, the far entries below it into the frontier (stale ones,
    // below the old threshold, dropped) and the rest compacted in place, a workgroup's worth at a time.
    const onEmpty = wgsl`(lid: u32, threads: u32, calls: u32) {
  if (lid == 0u) {
    atomicStore(&weft_hook_words[0], atomicLoad(&${atomic(farCount)}[0]));
    atomicStore(&weft_hook_words[1], ${u32(NONE)});
    atomicStore(&weft_hook_words[2], 0u);
  }
  let n = workgroupUniformLoad(&weft_hook_words[0]);
  if (n == 0u || n > ${u32(scan)} || calls >= ${u32(phases)}) { return; }
  let old = ${rw(bounds)}[0];
  for (var i = lid; i < n; i += threads) {
    let d = atomicLoad(&${dist}[${rw(far.current.items)}[i]]);
    if (d >= old) { atomicMin(&weft_hook_words[1], d); }
  }
  let t = ${this.#nextThreshold()}(workgroupUniformLoad(&weft_hook_words[1]), old);
  for (var start = 0u; start < n; start += threads) {
    let i = start + lid;
    var v = ${u32(NONE)};
    var d = 0u;
    if (i < n) {
      v = ${rw(far.current.items)}[i];
      d = atomicLoad(&${dist}[v]);
    }
    // Every entry of this slice is read before any is overwritten by the compaction.
    storageBarrier();
    if (i < n) {
      if (d < t) {
        atomicStore(&${words}[v], 0u);
        if (d >= old) { weft_frontier_append(v); }
      } else {
        ${rw(far.current.items)}[atomicAdd(&weft_hook_words[2], 1u)] = v;
      }
    }
  }
  // Kept entries land below the next slice's first index, so slices need no barrier after their writes.
  let kept = workgroupUniformLoad(&weft_hook_words[2]);
  if (lid == 0u) {
    atomicStore(&${atomic(farCount)}[0], kept);
    ${rw(bounds)}[0] = t;
  }
}`;
    await advanceSmallFrontier(rec, graph, queue.current, stamped, {
      state,
      withLevel: true,
      ...(phases > 0 ? { onEmpty } : {}),
      ...engineTuning,
    });
    await advancePush(rec, graph, queue.current, relax, {
      output: queue.next,
      visited: improved,
      workspace,
      loadBalance,
    });
    await state.recordLevelCount(rec, levels);
    // The threshold moves when the near frontier came out empty and far vertices wait.
    const nearCount = queue.next.count;
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  let moving = ${rw(nearCount)}[0] == 0u && ${rw(farCount)}[0] > 0u;
  ${rw(bounds)}[2] = select(0u, 1u, moving);
  ${rw(bounds)}[1] = ${u32(NONE)};
  ${rw(far.next.count)}[0] = 0u;
}`,
    );
    const b = atomic(bounds);
    await compute(
      rec,
      far.current,
      wgsl`(v: u32) {
  if (atomicLoad(&${b}[2]) == 0u) { return; }
  let d = ${distances}[v];
  if (d >= atomicLoad(&${b}[0])) { atomicMin(&${b}[1], d); }
}`,
    );
    // Every far entry moves: below the old threshold it is stale and dropped, below the new one it joins
    // the near frontier, else it stays far (copied to the other buffer, as nothing is read back).
    const next = this.#nextThreshold();
    await compute(
      rec,
      far.current,
      wgsl`(v: u32) {
  let d = ${distances}[v];
  let old = ${bounds}[0];
  var t = old;
  if (${bounds}[2] != 0u) { t = ${next}(${bounds}[1], old); }
  if (d < t) {
    ${rw(queued)}[v] = 0u;
    if (d >= old) {
      let at = atomicAdd(&${atomic(nearCount)}[0], 1u);
      if (at < ${u32(queue.capacity)}) { ${rw(queue.next.items)}[at] = v; }
    }
  } else {
    let at = atomicAdd(&${atomic(far.next.count)}[0], 1u);
    if (at < ${u32(far.capacity)}) { ${rw(far.next.items)}[at] = v; }
  }
}`,
    );
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  if (${rw(bounds)}[2] != 0u) { ${rw(bounds)}[0] = ${next}(${rw(bounds)}[1], ${rw(bounds)}[0]); }
  ${rw(bounds)}[3] = max(${rw(nearCount)}[0], ${rw(far.next.count)}[0]);
}`,
    );
    far.swap();
  }

  destroy(): void {
    this.#far.destroy();
    this.#queued.destroy();
    this.#bounds.destroy();
  }
}
