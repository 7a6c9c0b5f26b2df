import type { Recorder, WeftDevice } from '@weft/gpu';

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
  /** Checks the last run's output; returns null when correct, else what is wrong. */
  validate(): Promise<string | null>;
  /** Frees device arrays. */
  destroy(): void;
}
