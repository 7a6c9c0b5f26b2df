import type { SubmitResult, WeftDevice } from '@weft/gpu';
import type { BenchCase } from './types.ts';

/** One measured (case, size): times are medians over the repetitions. */
export interface Measurement {
  suite: string;
  family: string;
  name: string;
  n: number;
  items: number;
  bytes: number;
  repeat: number;
  /** Median GPU time from timestamp queries (ms); absent without `timestamp-query`. */
  gpuMs?: number;
  /** Median wall time from submit to completion (ms). */
  wallMs: number;
  /** Fastest and slowest of the repetitions (ms), on the same clock as `timeMs`. */
  minMs: number;
  maxMs: number;
  /** The time throughput is computed from: GPU time when measured, else wall time. */
  timeMs: number;
  clock: 'gpu' | 'wall';
  itemsPerSec: number;
  bytesPerSec: number;
  /** Dispatches per run. */
  dispatches: number;
  /** Runs recorded back to back in each timed submit (times are per run). */
  runsPerBatch: number;
  valid: boolean;
  error?: string;
}

export interface MeasureOptions {
  repeat: number;
  /** Keep running warm-up repetitions until this much wall time has passed (GPU clocks ramp up slowly). */
  warmupMs: number;
  /** Aim for timed submits of about this much GPU time (runs per submit chosen from the warm-up). */
  batchMs: number;
  /** At most this many runs per submit (bounds memory of per-run scratch). */
  maxBatch: number;
  seed: number;
  onProgress?: (done: number, total: number, label: string) => void;
  /** Called with each measurement as soon as it is taken (partial results survive an interrupted run). */
  onMeasured?: (m: Measurement) => void;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Runs every case at every size: warm-up runs (compile pipelines, fill pools, ramp clocks), `repeat` timed
 * submits of several runs each (times are per run), then validation of the last run's output. A run that fails validation is
 * reported as failed, whatever its speed; an exception is reported, never swallowed.
 */
export async function measureCases(
  device: WeftDevice,
  suite: string,
  cases: readonly BenchCase[],
  sizes: readonly number[],
  options: MeasureOptions,
): Promise<Measurement[]> {
  const out: Measurement[] = [];
  const plan = cases.flatMap((c) =>
    sizes.filter((n) => n <= (c.maxItems?.(device) ?? Infinity)).map((n) => ({ c, n })),
  );
  let done = 0;
  for (const { c, n } of plan) {
    options.onProgress?.(done, plan.length, `${c.name} n=${n}`);
    const m = await measureOne(device, suite, c, n, options);
    options.onMeasured?.(m);
    out.push(m);
    done++;
  }
  options.onProgress?.(done, plan.length, 'done');
  return out;
}

async function measureOne(
  device: WeftDevice,
  suite: string,
  c: BenchCase,
  n: number,
  options: MeasureOptions,
): Promise<Measurement> {
  const base = { suite, family: c.family, name: c.name, n, repeat: options.repeat };
  let inst: Awaited<ReturnType<BenchCase['setup']>> | undefined;
  try {
    inst = await c.setup(device, n, options.seed);
    // `runs` repetitions in one submit: a busy queue, as in real pipelines (a GPU fed one short submit at a
    // time drops its clocks; on the H100 through Vulkan that halved measured bandwidth).
    const batch = async (runs: number): Promise<SubmitResult> => {
      const start = performance.now();
      const rec = device.recorder({ label: c.name, timing: true });
      for (let r = 0; r < runs; r++) await inst!.run(rec);
      const result = await rec.submit();
      if (!inst!.hostTimed) return result;
      return { wallMs: performance.now() - start, dispatches: result.dispatches };
    };
    const perRun = (r: SubmitResult, runs: number) =>
      (r.gpuNs !== undefined ? r.gpuNs / 1e6 : r.wallMs) / runs;
    // Warm-up: the first run compiles pipelines and fills pools; then batches until warmupMs has passed.
    let estimate = perRun(await batch(1), 1);
    let runsPerBatch = Math.max(
      1,
      Math.min(options.maxBatch, Math.round(options.batchMs / Math.max(estimate, 1e-3))),
    );
    const warmStart = performance.now();
    while (performance.now() - warmStart < options.warmupMs) {
      estimate = perRun(await batch(runsPerBatch), runsPerBatch);
      runsPerBatch = Math.max(
        1,
        Math.min(options.maxBatch, Math.round(options.batchMs / Math.max(estimate, 1e-3))),
      );
    }
    const runs: SubmitResult[] = [];
    for (let r = 0; r < options.repeat; r++) runs.push(await batch(runsPerBatch));
    const error = await inst.validate();
    const gpu = runs.every((r) => r.gpuNs !== undefined)
      ? runs.map((r) => r.gpuNs! / 1e6 / runsPerBatch)
      : undefined;
    const wall = runs.map((r) => r.wallMs / runsPerBatch);
    const times = gpu ?? wall;
    const timeMs = median(times);
    const m: Measurement = {
      ...base,
      items: inst.items,
      bytes: inst.bytes,
      wallMs: median(wall),
      minMs: Math.min(...times),
      maxMs: Math.max(...times),
      timeMs,
      clock: gpu ? 'gpu' : 'wall',
      itemsPerSec: inst.items / (timeMs / 1e3),
      bytesPerSec: inst.bytes / (timeMs / 1e3),
      dispatches: (runs[0]?.dispatches ?? 0) / runsPerBatch,
      runsPerBatch,
      valid: error === null,
    };
    if (gpu) m.gpuMs = timeMs;
    if (error !== null) m.error = error;
    return m;
  } catch (e) {
    return {
      ...base,
      items: n,
      bytes: 0,
      wallMs: 0,
      minMs: 0,
      maxMs: 0,
      timeMs: 0,
      clock: 'wall',
      itemsPerSec: 0,
      bytesPerSec: 0,
      dispatches: 0,
      runsPerBatch: 0,
      valid: false,
      error: `${(e as Error).name}: ${(e as Error).message}`,
    };
  } finally {
    inst?.destroy();
  }
}
