import type { Recorder, WeftDevice } from '@weft/gpu';
import type { GraphStats } from './graphs.ts';

/**
 * One benchmarked primitive. `setup` makes inputs of `n` items on the device; the harness then records
 * `run` into a fresh timed recorder per repetition, and validates the output against a TypeScript reference.
 */
export interface BenchCase {
  /** Unique, short: `scan exclusive u32`. */
  readonly name: string;
  /** The primitive family, for grouping in reports: `scan`, `sort`, ... */
  readonly family: string;
  /** Largest n this case supports on `device` (e.g. limited by binding size or key-value memory). */
  maxItems?(device: WeftDevice): number;
  /** `n` does not change the case: it runs once, at the smallest requested size it supports. */
  readonly once?: boolean;
  /** The row of a paper's evaluation this case reproduces (an anchor's `row`), compared with its figure. */
  readonly paperRow?: string;
  setup(device: WeftDevice, n: number, seed: number): Promise<BenchInstance>;
}

export interface BenchInstance {
  /** Items processed per run (elements, keys, work items). */
  readonly items: number;
  /** Bytes the run must move at minimum (reads + writes), for GB/s. */
  readonly bytes: number;
  /**
   * Records one complete run (scratch clears included). Runs must be repeatable: several are recorded back
   * to back into one submit, and the output after any number of runs must validate.
   */
  run(rec: Recorder): Promise<void>;
  /**
   * Host work (file parsing, CPU references): time each batch by the wall clock around `run` and the submit,
   * instead of by GPU timestamps of the recorded kernels.
   */
  readonly hostTimed?: boolean;
  /** At most this many runs in one timed submit (cases whose runs each consume a prepared input batch). */
  readonly maxRunsPerSubmit?: number;
  /** Checks the last run's output; returns null when correct, else what is wrong. */
  validate(): Promise<string | null>;
  /** Frees device arrays. */
  destroy(): void;
  /** Traversals under Graph500/GAP rules: timed and validated from each of several sources. */
  readonly sources?: BenchSources;
  /** The setup as run (graph and size, batch, table parameters, what is timed), printed with paper rows. */
  readonly setup?: string;
  /** The graph the case runs on, recorded in the JSON. */
  readonly graph?: GraphStats;
  /** One untimed traced run (frontier and time per iteration) for the report's charts; after the timing. */
  trace?(): Promise<IterationTrace | undefined>;
}

interface BenchSources {
  /** The source vertices (seeded, out-degree > 0), in the order they are run. */
  readonly vertices: readonly number[];
  /**
   * Makes `vertices[i]` the source of `run` (untimed: a first run finds its iteration count) and returns the
   * edges a run from it traverses (the TEPS numerator) and its iteration count (BFS levels, SSSP steps).
   */
  select(i: number): Promise<{ edges: number; iterations?: number }>;
  /** Validate only every k-th source (64 host verifications of a big graph take minutes); default 1. */
  readonly validateEvery?: number;
}

/** Per iteration of one traced run: input frontier size, edges it inspected, and GPU (or wall) time. */
export interface IterationTrace {
  algorithm: string;
  source?: number;
  frontier: number[];
  edges: number[];
  timesMs?: number[];
  clock?: 'gpu' | 'wall';
}
