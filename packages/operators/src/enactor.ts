import {
  checkMaxIterations,
  checkOptionsObject,
  type DeviceArray,
  DeviceLimitError,
  type GpuCount,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';

/** One iteration of an algorithm, recorded without reading anything back. */
export interface EnactorLoop {
  /** Records iteration `iteration` (0-based). It must be a no-op once the loop has converged. */
  step(rec: Recorder, iteration: number): Promise<void>;
  /** After a step: a u32 on the GPU that is 0 once the loop has converged (typically the frontier length). */
  active(): GpuCount;
  /**
   * When `active` is a frontier length: the frontier's capacity. A length past it means appends were
   * dropped; the length is clamped and the run fails with a clear error instead of going on with a
   * frontier that lost vertices.
   */
  readonly capacity?: number;
  /**
   * Words the loop keeps on the GPU that the caller needs after the run (a level count, a flag): read back
   * with the status after every submit, in the same download, and returned as `EnactorResult.report`.
   */
  readonly report?: DeviceArray<'u32'> | undefined;
}

export interface EnactorProgress {
  /** Iterations completed so far. */
  iteration: number;
  /** The `active` word after the last iteration (e.g. the frontier length). */
  active: number;
  submits: number;
}

export interface EnactorOptions {
  /** Stop after this many iterations (default: no limit). */
  maxIterations?: number;
  /** Iterations recorded into the first submit (default 4); each later submit doubles it up to `maxBatch`. */
  batch?: number;
  /** Most iterations per submit (default 64). */
  maxBatch?: number;
  /** Checked between submits; an aborted run throws the signal's reason. */
  signal?: AbortSignal;
  /** Called after every submit with the status read back. */
  onProgress?: (progress: EnactorProgress) => void;
  /**
   * Time each submit on the GPU (timestamp queries, where the device has them): `timesMs` in the result.
   * With `batch: 1, maxBatch: 1` that is a time per iteration (a diagnostic run: a round trip per level).
   */
  timing?: boolean;
}

export interface EnactorResult {
  /** Iterations until `active` became 0 (or `maxIterations`). */
  iterations: number;
  converged: boolean;
  submits: number;
  /** With `timing` on a device with timestamps: the GPU time of each submit, in ms. */
  timesMs?: number[];
  /** With the loop's `report`: its words after the last submit. */
  report?: number[];
}

const NOT_DONE = 0xffffffff;

/**
 * The enactor loop (Gunrock's `loop / is_converged`): records `batch` iterations per submit, each followed
 * by a one-thread kernel that notes the first iteration after which `active` was 0, and reads back only that
 * two-word status per submit. Iterations recorded past convergence run on empty frontiers (indirect
 * dispatches of zero workgroups), so a high-diameter graph costs one round trip per batch, not per level.
 */
export async function enact(
  device: WeftDevice,
  loop: EnactorLoop,
  options: EnactorOptions = {},
): Promise<EnactorResult> {
  checkOptionsObject('enact', options);
  const maxIterations = options.maxIterations ?? Number.POSITIVE_INFINITY;
  // A fraction would run to its ceiling, silently one iteration more than asked.
  checkMaxIterations(maxIterations, true);
  const maxBatch = Math.max(1, options.maxBatch ?? 64);
  let batch = Math.max(1, Math.min(options.batch ?? 4, maxBatch));
  // status[0]: iterations until active was first 0 (NOT_DONE before); status[1]: the last active value;
  // status[2]: the first iteration whose frontier overflowed, plus one (0: none); status[3]: its length.
  const report = loop.report;
  const status = device.array('u32', 4 + (report?.length ?? 0), { label: 'enactor status' });
  status.upload([NOT_DONE, 0, 0, 0]);
  let reported: number[] | undefined;
  const capacity = Math.min(loop.capacity ?? 0xffffffff, 0xffffffff);
  let iteration = 0;
  let submits = 0;
  const timesMs = options.timing && device.hasTimestamps ? ([] as number[]) : undefined;
  const done = (iterations: number, converged: boolean): EnactorResult => ({
    iterations,
    converged,
    submits,
    ...(timesMs ? { timesMs } : {}),
    ...(reported ? { report: reported } : {}),
  });
  try {
    for (;;) {
      options.signal?.throwIfAborted();
      if (iteration >= maxIterations) return done(iteration, false);
      const count = Math.min(batch, maxIterations - iteration);
      const rec = device.recorder({ label: 'enactor batch', timing: timesMs !== undefined });
      for (let j = 0; j < count; j++) {
        const it = iteration + j;
        await loop.step(rec, it);
        const active = loop.active();
        await transform(
          rec,
          1,
          wgsl`(i: u32) {
  if (${rw(status)}[0] == ${u32(NOT_DONE)}) {
    var a = ${rw(active.array)}[${u32(active.index)}];
    if (a > ${u32(capacity)}) {
      if (${rw(status)}[2] == 0u) {
        ${rw(status)}[2] = ${u32(it + 1)};
        ${rw(status)}[3] = a;
      }
      a = ${u32(capacity)};
      ${rw(active.array)}[${u32(active.index)}] = a;
    }
    ${rw(status)}[1] = a;
    if (a == 0u) { ${rw(status)}[0] = ${u32(it + 1)}; }
  }
}`,
        );
      }
      // After the status kernels: the report lands beside the status, so one download reads both.
      if (report) rec.copy(report, status, report.length, 0, 4);
      // The status comes back in the submit's own wait: one round trip a batch.
      const submitted = await rec.submit({ download: status });
      submits++;
      // A submit without a compute pass (nothing recorded) has no timestamps: it took no GPU time.
      timesMs?.push((submitted.gpuNs ?? 0) / 1e6);
      const words = submitted.downloaded;
      const [doneAt, active, overflowAt, overflowLength] = words;
      if (report) reported = [...words.subarray(4)];
      if (overflowAt !== 0) {
        throw new DeviceLimitError(
          `the frontier after iteration ${overflowAt! - 1}`,
          overflowLength!,
          'the frontier capacity',
          capacity,
          'vertices beyond it were dropped; raise sizeMultiplier or uniquify the output (visited bitmap)',
        );
      }
      if (doneAt !== NOT_DONE) {
        options.onProgress?.({ iteration: doneAt!, active: 0, submits });
        return done(doneAt!, true);
      }
      iteration += count;
      options.onProgress?.({ iteration, active: active!, submits });
      batch = Math.min(batch * 2, maxBatch);
    }
  } finally {
    status.destroy();
  }
}
