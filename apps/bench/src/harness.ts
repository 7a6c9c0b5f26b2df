import type { SubmitResult, WeftDevice } from '@weft/gpu';
import { IDLE_MS, queueClockWarmup } from './clocks.ts';
import type { GraphStats } from './graphs.ts';
import type { BenchCase, BenchInstance, IterationTrace } from './types.ts';

/**
 * A traversal timed from several sources (Graph500/GAP): per-source times and TEPS, their spread, and the
 * harmonic mean of the TEPS (Graph500's figure of merit: the TEPS of the total work over the total time).
 */
interface SourceStats {
  count: number;
  vertices: number[];
  /** Per source: median time of its timed runs (ms). */
  timesMs: number[];
  /** Per source: edges traversed (the TEPS numerator; see `edgeRule`). */
  edges: number[];
  teps: number[];
  /** Per source: iterations of its run (BFS levels), where the case reports them. */
  iterations?: number[];
  /** Median over sources of time / iterations (ms): time per BFS level. */
  msPerIteration?: number;
  harmonicMeanTeps: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Sources whose output was validated (all unless the case samples on a big graph). */
  validated: number;
  edgeRule: string;
  /** Timed submits per source (the --repeat budget spread over the sources, at least 1). */
  submitsPerSource: number;
}

/** How traversals count TEPS edges (the same rule for the GPU cases, CPU baselines and `weft run`). */
const EDGE_RULE =
  'edges with an endpoint reached (CSR arcs out of reached vertices; an undirected edge counted once: arcs / 2), after self-loops were dropped and duplicates merged';

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
  /** The paper row the case reproduces, and its setup as run (see `BenchCase.paperRow`). */
  paperRow?: string;
  setup?: string;
  graph?: GraphStats;
  sources?: SourceStats;
  trace?: IterationTrace;
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
  /** Take the case's traced run at this size (set per measurement by `measureCases`). */
  traced?: boolean;
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
  const plan = cases.flatMap((c) => {
    const fit = sizes.filter((n) => n <= (c.maxItems?.(device) ?? Infinity));
    const at = c.once && fit.length > 0 ? [Math.min(...fit)] : fit;
    return at.map((n) => ({ c, n }));
  });
  // One traced run per case, at its largest size (traces submit per iteration: slow on software adapters).
  const largest = new Map<BenchCase, number>();
  for (const { c, n } of plan) largest.set(c, Math.max(n, largest.get(c) ?? 0));
  let done = 0;
  for (const { c, n } of plan) {
    options.onProgress?.(done, plan.length, `${c.name} n=${n}`);
    const m = await measureOne(device, suite, c, n, { ...options, traced: largest.get(c) === n });
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
  const base = {
    suite,
    family: c.family,
    name: c.name,
    n,
    repeat: options.repeat,
    ...(c.paperRow ? { paperRow: c.paperRow } : {}),
  };
  let inst: Awaited<ReturnType<BenchCase['setup']>> | undefined;
  try {
    inst = await c.setup(device, n, options.seed);
    // `runs` repetitions in one submit: a busy queue, as in real pipelines (a GPU fed one short submit at a
    // time drops its clocks; docs/decisions/bench-measurement.md).
    // Whether the warm-up's submits came back with GPU time: a queued clock warm-up would add to wall times.
    let gpuTimed = false;
    const batch = async (runs: number, timed = true): Promise<SubmitResult> => {
      const start = performance.now();
      const rec = device.recorder({ label: c.name, timing: true });
      for (let r = 0; r < runs; r++) await inst!.run(rec);
      // Long host work here (rebuilding a case's state, recording many runs) let the clocks fall.
      const idle = performance.now() - start > IDLE_MS;
      if (timed && gpuTimed && !inst!.hostTimed && idle) await queueClockWarmup(device);
      const result = await rec.submit();
      if (!timed) gpuTimed = result.gpuNs !== undefined;
      if (!inst!.hostTimed) return result;
      return { wallMs: performance.now() - start, dispatches: result.dispatches };
    };
    const perRun = (r: SubmitResult, runs: number) =>
      (r.gpuNs !== undefined ? r.gpuNs / 1e6 : r.wallMs) / runs;
    // Warm-up: the first run compiles pipelines and fills pools; then batches until warmupMs has passed.
    let estimate = perRun(await batch(1, false), 1);
    const maxRuns = Math.max(1, Math.min(options.maxBatch, inst.maxRunsPerSubmit ?? options.maxBatch));
    let runsPerBatch = Math.max(1, Math.min(maxRuns, Math.round(options.batchMs / Math.max(estimate, 1e-3))));
    const warmStart = performance.now();
    while (performance.now() - warmStart < options.warmupMs) {
      estimate = perRun(await batch(runsPerBatch, false), runsPerBatch);
      runsPerBatch = Math.max(1, Math.min(maxRuns, Math.round(options.batchMs / Math.max(estimate, 1e-3))));
    }
    if (inst.sources) return await measureSources(inst, base, batch, perRun, runsPerBatch, options);
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
    if (inst.setup) m.setup = inst.setup;
    return await withExtras(m, inst, options.traced ?? true);
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

/** Adds the graph's statistics and a traced run (untimed) to a measurement. */
async function withExtras(m: Measurement, inst: BenchInstance, traced: boolean): Promise<Measurement> {
  if (inst.graph) m.graph = inst.graph;
  if (traced && m.valid && inst.trace) {
    const t = await inst.trace();
    if (t) m.trace = t;
  }
  return m;
}

/**
 * Graph500/GAP timing: each source selected (untimed), timed in its own submits, then validated (every k-th
 * on big graphs). The measurement's time is the median over sources; its throughput the harmonic mean TEPS.
 * A failed source fails the measurement, with that source named.
 */
/** The most warm-up before each source after the first (the first is timed right after the case's). */
const SOURCE_WARMUP_MS = 300;

async function measureSources(
  inst: BenchInstance,
  base: Pick<Measurement, 'suite' | 'family' | 'name' | 'n' | 'repeat'>,
  batch: (runs: number, timed?: boolean) => Promise<SubmitResult>,
  perRun: (r: SubmitResult, runs: number) => number,
  runsPerBatch: number,
  options: MeasureOptions,
): Promise<Measurement> {
  const src = inst.sources!;
  const count = src.vertices.length;
  const every = Math.max(1, src.validateEvery ?? 1);
  const submitsPerSource = Math.max(1, Math.round(options.repeat / count));
  const timesMs: number[] = [];
  const wallMs: number[] = [];
  const edges: number[] = [];
  const iterations: number[] = [];
  let validated = 0;
  let error: string | null = null;
  let clock: Measurement['clock'] = 'gpu';
  let dispatches = 0;
  for (let i = 0; i < count; i++) {
    const selected = await src.select(i);
    // Selecting a source is host work (a search, counting its edges) that leaves the GPU idle long enough
    // to drop its clocks: warm up again before timing it.
    if (i > 0) {
      const warmStart = performance.now();
      while (performance.now() - warmStart < Math.min(options.warmupMs, SOURCE_WARMUP_MS))
        await batch(runsPerBatch, false);
    }
    edges.push(selected.edges);
    if (selected.iterations !== undefined) iterations.push(selected.iterations);
    const times: number[] = [];
    const walls: number[] = [];
    for (let r = 0; r < submitsPerSource; r++) {
      const result = await batch(runsPerBatch);
      if (result.gpuNs === undefined) clock = 'wall';
      times.push(perRun(result, runsPerBatch));
      walls.push(result.wallMs / runsPerBatch);
      dispatches = result.dispatches / runsPerBatch;
    }
    timesMs.push(median(times));
    wallMs.push(median(walls));
    if (i % every === 0 || i === count - 1) {
      validated++;
      const e = await inst.validate();
      if (e !== null && error === null) error = `source ${src.vertices[i]} (#${i}): ${e}`;
    }
  }
  const teps = edges.map((e, i) => e / (timesMs[i]! / 1e3));
  // Harmonic mean: n / sum(1 / teps_i).
  const harmonicMeanTeps = count / teps.reduce((s, t) => s + 1 / t, 0);
  const timeMs = median(timesMs);
  const items = edges.reduce((s, e) => s + e, 0) / count;
  const m: Measurement = {
    ...base,
    items,
    bytes: 0,
    wallMs: median(wallMs),
    minMs: Math.min(...timesMs),
    maxMs: Math.max(...timesMs),
    timeMs,
    clock,
    itemsPerSec: harmonicMeanTeps,
    bytesPerSec: 0,
    dispatches,
    runsPerBatch,
    valid: error === null,
    sources: {
      count,
      vertices: [...src.vertices],
      timesMs,
      edges,
      teps,
      harmonicMeanTeps,
      medianMs: timeMs,
      minMs: Math.min(...timesMs),
      maxMs: Math.max(...timesMs),
      validated,
      edgeRule: EDGE_RULE,
      submitsPerSource,
    },
  };
  if (iterations.length === count) {
    m.sources!.iterations = iterations;
    m.sources!.msPerIteration = median(timesMs.map((t, i) => t / Math.max(1, iterations[i]!)));
  }
  if (clock === 'gpu') m.gpuMs = timeMs;
  if (error !== null) m.error = error;
  if (inst.setup) m.setup = inst.setup;
  return await withExtras(m, inst, options.traced ?? true);
}
