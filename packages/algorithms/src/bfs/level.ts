import type { DeviceArray, Functor, Recorder } from '@weft/gpu';
import type { DeviceGraph, FrontierQueue } from '@weft/graph';
import type { AdvanceWorkspace, IterationLog, LoadBalance } from '@weft/operators';

/** A depth not yet set (reads as -1 in two's complement). */
export const UNREACHED = 0xffffffff;

/** What a BFS level's variant reads and writes: the problem's arrays. */
export interface BfsState {
  readonly graph: DeviceGraph;
  readonly depths: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  readonly workspace: AdvanceWorkspace;
  readonly loadBalance: Exclude<LoadBalance, 'auto'>;
  readonly log: IterationLog | undefined;
}

/** The push BFS's per-edge functors for one level, given to a variant that applies them its own way. */
export interface LevelFunctors {
  /** `(src, dst, edge) -> bool`: claims an unvisited `dst` by `atomicMin` of its depth. */
  claim: Functor;
  /** `(v: u32, p: u32)`: records `p` as `v`'s parent (a no-op without parents). */
  parent: Functor;
}

/**
 * A BFS variant: how one level advances from `queue.current` into `queue.next` (the problem logs the
 * frontier before and swaps the queue after).
 */
export interface BfsLevel {
  reset(rec: Recorder, source: number): Promise<void>;
  step(rec: Recorder, iteration: number, functors: LevelFunctors): Promise<void>;
  /** Levels done bottom-up since the last reset. */
  pullIterations?(): Promise<number>;
  destroy(): void;
}
