import {
  type DeviceArray,
  InputError,
  max,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import {
  type EnactorLoop,
  type EnactorOptions,
  type EnactorResult,
  enact,
  type IterationLog,
  type IterationTrace,
} from '@weft/operators';
import { reduce } from '@weft/scan';

/** Options every traversal takes: the enactor's batching, cancellation and progress. */
export type RunOptions = Pick<EnactorOptions, 'signal' | 'onProgress' | 'batch' | 'maxBatch'>;

export type LoadBalance = 'merge-path' | 'thread-mapped' | 'per-iteration';

/** The advance's setting for a load balancing: `'per-iteration'` is the advance's GPU-side `'auto'`. */
export function advanceBalance(lb: LoadBalance): 'merge-path' | 'thread-mapped' | 'auto' {
  return lb === 'per-iteration' ? 'auto' : lb;
}

/**
 * How push advances spread edges over threads (see `advancePush`). `'auto'` (the default of the run
 * functions; problems default to merge-path) measures the largest out-degree on the GPU once and maps a
 * thread per vertex when it is at most {@link THREAD_MAPPED_MAX_DEGREE}: road networks and meshes.
 */
export interface LoadBalanceOption {
  loadBalance?: LoadBalance | 'auto';
}

/** Largest out-degree for which `'auto'` picks thread-mapped advances: a few loop trips per thread. */
export const THREAD_MAPPED_MAX_DEGREE = 32;

/** The largest out-degree of the graph (one small read-back). */
export async function maxOutDegree(device: WeftDevice, graph: DeviceGraph): Promise<number> {
  const n = graph.vertexCount;
  if (n === 0) return 0;
  const degrees = device.array('u32', n, { label: 'degrees' });
  const result = device.array('u32', 1, { label: 'max degree' });
  try {
    const rec = device.recorder({ label: 'max degree' });
    await transform(
      rec,
      n,
      wgsl`(v: u32) { ${rw(degrees)}[v] = ${graph.offsets}[v + 1u] - ${graph.offsets}[v]; }`,
    );
    await reduce(rec, degrees, result, { monoid: max('u32') });
    await rec.submit();
    return (await result.download())[0]!;
  } finally {
    degrees.destroy();
    result.destroy();
  }
}

/** Resolves `'auto'` (or nothing) to a concrete load balancing for `graph`. */
export async function resolveLoadBalance(
  device: WeftDevice,
  graph: DeviceGraph,
  option: LoadBalanceOption['loadBalance'],
): Promise<LoadBalance> {
  if (option !== undefined && option !== 'auto') return option;
  return (await maxOutDegree(device, graph)) <= THREAD_MAPPED_MAX_DEGREE ? 'thread-mapped' : 'merge-path';
}

export function checkSource(graph: DeviceGraph, source: number, who: string): void {
  if (!Number.isInteger(source) || source < 0 || source >= graph.vertexCount) {
    throw new InputError(`source ${source} is not a vertex (the graph has ${graph.vertexCount})`, who);
  }
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

export interface TraceOption {
  /**
   * A diagnostic run: submit one iteration at a time, timed with timestamp queries, and log each
   * iteration's input frontier length and inspected edges on the GPU; the result then has `trace`.
   * Slower than an untraced run (a round trip per iteration); untraced runs do none of this.
   */
  trace?: boolean;
}

/**
 * Runs the enactor; with `options.trace`, one iteration per timed submit, and the log (which the loop's
 * steps fill) read back into an {@link IterationTrace} at the end.
 */
export async function enactTraced(
  device: WeftDevice,
  loop: EnactorLoop,
  log: IterationLog | undefined,
  options: EnactorOptions,
): Promise<EnactorResult & { trace?: IterationTrace }> {
  if (!log) return enact(device, loop, options);
  const result = await enact(device, loop, { ...options, batch: 1, maxBatch: 1, timing: true });
  const counts = await log.read(result.iterations);
  return { ...result, trace: { ...counts, ...(result.timesMs ? { timesMs: result.timesMs } : {}) } };
}
