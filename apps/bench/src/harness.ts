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
  dispatches: number;
  valid: boolean;
  error?: string;
}

export interface MeasureOptions {
  repeat: number;
  seed: number;
  onProgress?: (done: number, total: number, label: string) => void;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/**
 * Runs every case at every size: one warm-up run (compiles pipelines, fills pools), `repeat` timed runs
 * (one submit each), then validation of the last run's output. A run that fails validation is
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
    out.push(await measureOne(device, suite, c, n, options));
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
    const once = async (): Promise<SubmitResult> => {
      const rec = device.recorder({ label: c.name, timing: true });
      await inst!.run(rec);
      return rec.submit();
    };
    await once();
    const runs: SubmitResult[] = [];
    for (let r = 0; r < options.repeat; r++) runs.push(await once());
    const error = await inst.validate();
    const gpu = runs.every((r) => r.gpuNs !== undefined) ? runs.map((r) => r.gpuNs! / 1e6) : undefined;
    const wall = runs.map((r) => r.wallMs);
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
      dispatches: runs[0]?.dispatches ?? 0,
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
      valid: false,
      error: `${(e as Error).name}: ${(e as Error).message}`,
    };
  } finally {
    inst?.destroy();
  }
}
