import { type DeviceArray, InputError, type Recorder, rw, transform, u32, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import {
  checkLoadBalance,
  type EnactorLoop,
  type EnactorOptions,
  type EnactorResult,
  enact,
  IterationLog,
  type IterationTrace,
  type LoadBalance,
} from '@weft/operators';

/** Options every iterative algorithm takes: the enactor's batching, cancellation and progress. */
export type RunOptions = Pick<EnactorOptions, 'signal' | 'onProgress' | 'batch' | 'maxBatch'>;

export interface LoadBalanceOption {
  /**
   * How push advances spread edges over threads (see `LoadBalance` in `@weft/operators`). Default
   * `'auto'`: thread-mapped when the graph's largest out-degree is at most `THREAD_MAPPED_MAX_DEGREE`
   * (road networks, meshes), else merge path.
   */
  loadBalance?: LoadBalance;
}

export interface TraceOption {
  /**
   * A diagnostic run: submit one iteration at a time, timed with timestamp queries, and log each
   * iteration's input frontier length and inspected edges on the GPU; the result then has `trace`.
   * Slower than an untraced run (a round trip per iteration); untraced runs do none of this.
   */
  trace?: boolean;
}

/**
 * An algorithm's problem (Gunrock's problem + enactor loop): `reset` records the initial state
 * (prepare_frontier), `step` one iteration (loop), `active` the word that is 0 once converged
 * (is_converged), `result` reads the answer back, `destroy` frees it. `reset` and `step` only record, so
 * a caller can replay whole runs inside one submit. Problems trust their inputs: the run functions check.
 */
export interface Problem<R, Reset extends unknown[] = []> extends EnactorLoop {
  reset(rec: Recorder, ...args: Reset): Promise<void>;
  result(): Promise<R>;
  destroy(): void;
  /** When set, each step logs its input frontier length and inspected edges here. */
  log?: IterationLog | undefined;
}

/** Throws unless `source` is a vertex of `graph`. */
export function checkSource(graph: { vertexCount: number }, source: number): void {
  if (!Number.isInteger(source) || source < 0 || source >= graph.vertexCount) {
    throw new InputError(`source ${source} is not a vertex (the graph has ${graph.vertexCount})`, 'source');
  }
}

/**
 * Refuses an unknown `loadBalance` before any GPU work, and measures the graph's largest out-degree (once
 * per graph) when `'auto'` needs it and it is unknown.
 */
export async function prepareLoadBalance(graph: DeviceGraph, loadBalance: LoadBalance | undefined) {
  checkLoadBalance(loadBalance);
  if ((loadBalance ?? 'auto') === 'auto') await graph.maxOutDegree();
}

/** Records `array[index] = value`. */
export async function recordSet(
  rec: Recorder,
  array: DeviceArray,
  index: number,
  value: number,
): Promise<void> {
  await transform(rec, 1, wgsl`(i: u32) { ${rw(array)}[${u32(index)}] = ${u32(value)}; }`);
}

/**
 * Runs a problem to convergence and frees it: `reset` (one submit), the enactor loop (with `trace`, one
 * timed iteration per submit and the log read back as an {@link IterationTrace}), then `result`.
 */
export async function runProblem<R>(
  graph: DeviceGraph,
  problem: Omit<Problem<R>, 'reset'>,
  reset: (rec: Recorder) => Promise<void>,
  options: EnactorOptions & TraceOption,
): Promise<EnactorResult & { result: R; trace?: IterationTrace }> {
  const device = graph.device;
  try {
    const rec = device.recorder({ label: 'reset' });
    await reset(rec);
    // The enactor's first submit runs after it and waits: no round trip for the reset alone.
    await rec.submit({ wait: false });
    if (!options.trace) return { ...(await enact(device, problem, options)), result: await problem.result() };
    problem.log = new IterationLog(device);
    const run = await enact(device, problem, { ...options, batch: 1, maxBatch: 1, timing: true });
    const counts = await problem.log.read(run.iterations);
    const trace = { ...counts, ...(run.timesMs ? { timesMs: run.timesMs } : {}) };
    return { ...run, result: await problem.result(), trace };
  } finally {
    problem.log?.destroy();
    problem.destroy();
  }
}
