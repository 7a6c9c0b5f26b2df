import type { Count, DeviceArray, ElementType, GpuCount, HostArray } from './array.ts';
import { isGpuCount } from './array.ts';
import { checkOptionsObject } from './checks.ts';
import type { WeftDevice } from './device.ts';
import { DeviceLimitError, DeviceMismatchError, GpuValidationError, InputError } from './errors.ts';
import type { Kernel } from './kernel.ts';
import type { StagingBuffer } from './staging.ts';

export interface RecorderOptions {
  label?: string;
  /**
   * Record timestamps around the recorded work (adapters with `timestamp-query`); see `SubmitResult.gpuNs`.
   * `'dispatches'` also times every dispatch on its own (each in its own compute pass, so the figures include
   * no overlap between kernels): a profile of where the time goes, see `SubmitResult.dispatchNs`.
   */
  timing?: boolean | 'dispatches';
}

/** Dispatches one timestamp query set times (two queries each; WebGPU allows 4096 queries a set). */
const TIMED_DISPATCHES_PER_SET = 2048;

/** Most dispatches a `timing: 'dispatches'` recorder can time in one submit (64 query sets). */
export const MAX_TIMED_DISPATCHES = 64 * TIMED_DISPATCHES_PER_SET;

/** Workgroups for a dispatch: a 1-D count (split into x * y when beyond the per-dimension limit),
 * explicit x/y/z, or indirect arguments on the GPU (3 u32 at element `index`). */
export type Workgroups =
  | number
  | readonly [number, number, number]
  | { indirect: DeviceArray<'u32'>; index?: number };

export interface DispatchOptions {
  entry?: string;
  /** Arrays for the template's bindings, by name. */
  bindings?: Readonly<Record<string, DeviceArray>>;
  /** Values of the template's uniform params, by name. */
  params?: Readonly<Record<string, number>>;
  workgroups: Workgroups;
}

export interface SubmitResult {
  /** GPU time of the recorded work from timestamp queries, when timing was asked for and available. */
  gpuNs?: number;
  /** With `timing: 'dispatches'`: each dispatch's kernel label and GPU time, in recorded order. */
  dispatchNs?: { label: string; ns: number }[];
  /** Wall time from submit to completion, in milliseconds. */
  wallMs: number;
  dispatches: number;
}

export interface SubmitOptions<T extends ElementType = ElementType> {
  /**
   * An array to read back (all of it) in the same wait for the GPU, after the recorded work: one round trip
   * instead of a submit and a `download()` (see `SubmitResult.downloaded`).
   */
  download?: DeviceArray<T>;
  /**
   * `false`: return once the work is queued, without waiting for the GPU (`wallMs` is then the time to
   * queue it). Work submitted later runs after it, so a run's setup need not cost a round trip of its own.
   * Errors the scopes catch are still thrown. Not with `download` or timing.
   */
  wait?: boolean;
}

interface SpareScratch {
  array: DeviceArray;
  indirect: boolean;
}

type Op =
  | {
      kind: 'dispatch';
      kernel: Kernel;
      entry: string;
      bindings: Readonly<Record<string, DeviceArray>>;
      params: Readonly<Record<string, number>>;
      workgroups: Workgroups;
    }
  | { kind: 'clear'; array: DeviceArray }
  | {
      kind: 'copy';
      src: DeviceArray | StagingBuffer;
      srcIndex: number;
      dst: DeviceArray | StagingBuffer;
      dstIndex: number;
      count: number;
    };

const ARGS_WGSL = /* wgsl */ `
@compute @workgroup_size(1)
fn main() {
  let n = count[params.index];
  let groups = (n + params.per_group - 1u) / params.per_group;
  // Split beyond the per-dimension limit: x * y >= groups; kernels bound-check their linear index.
  let x = min(groups, params.max_dim);
  var y = 1u;
  if (x > 0u) { y = (groups + x - 1u) / x; }
  args[params.out + 0u] = x;
  args[params.out + 1u] = select(1u, y, x > 0u);
  args[params.out + 2u] = 1u;
}`;

/**
 * Records many dispatches into one command encoder and submits them at once. Dependent dispatches share a
 * compute pass (WebGPU orders dispatches); per-dispatch uniform parameters go to one arena buffer written
 * once before the submit, since `writeBuffer` cannot land between dispatches of one submit.
 */
export class Recorder {
  readonly #ops: Op[] = [];
  readonly #temporaries: DeviceArray[] = [];
  /** Primitives recording into this recorder now (nested, or awaited in parallel). */
  #recording = 0;
  /** Scratch taken while primitives record, freed for reuse when the last of them ends. */
  #pending: SpareScratch[] = [];
  /** One of those primitives may hand its scratch out, so none of it is freed. */
  #keepPending = false;
  /** Scratch no recorded work will read again: free for later scratch requests of the same shape. */
  readonly #spare: SpareScratch[] = [];
  #submitted = false;

  constructor(
    readonly device: WeftDevice,
    readonly options: RecorderOptions = {},
  ) {}

  get label(): string {
    return this.options.label ?? 'weft';
  }

  /**
   * Scratch that lives until this recorder's work is submitted, then returns to the pool. It may be an array
   * that a primitive recorded earlier into this recorder has finished with (see `recordPrimitive`); its
   * contents are undefined either way, as pooled memory always is.
   */
  scratch<T extends 'u32' | 'i32' | 'f32'>(
    type: T,
    length: number,
    label: string,
    indirect = false,
  ): DeviceArray<T> {
    const i = this.#spare.findIndex(
      (s) => s.array.type === type && s.array.length === length && s.indirect === indirect,
    );
    let entry: SpareScratch;
    if (i >= 0) {
      entry = this.#spare[i]!;
      this.#spare.splice(i, 1);
    } else {
      entry = { array: this.device.array(type, length, { label, indirect }), indirect };
      this.#temporaries.push(entry.array);
    }
    if (this.#recording > 0) this.#pending.push(entry);
    return entry.array as DeviceArray<T>;
  }

  /**
   * Host data in an array of its own until this recorder's work is submitted. `writeBuffer` lands before the
   * submit runs, so such an array is never scratch that earlier recorded work still reads, and never handed
   * to later work (see `recordPrimitive`): host data recorded into scratch could be overwritten by the work
   * recorded before it, which runs after the upload.
   */
  upload<T extends 'u32' | 'i32' | 'f32'>(
    type: T,
    data: ArrayLike<number> | HostArray<T>,
    label: string,
  ): DeviceArray<T> {
    const array = this.device.array(type, Math.max(data.length, 1), { label });
    this.#temporaries.push(array);
    return array.upload(data);
  }

  /**
   * Records one primitive's work (`onTarget` calls this). With `reuseScratch`, for primitives whose results
   * all go to their caller's arrays, the scratch it takes is free for work recorded after it: safe because
   * commands run in recorded order, so everything recorded here has read its scratch before anything
   * recorded later can overwrite it. A batch of k sorts in one submit then holds one sort's scratch, not k.
   * Scratch is freed only when no primitive is recording (they may nest, or be awaited in parallel, and a
   * scratch request cannot tell whose it is), and not at all if one of them did not ask for reuse.
   */
  async recordPrimitive<R>(record: () => Promise<R>, options: { reuseScratch?: boolean } = {}): Promise<R> {
    this.#recording++;
    if (!options.reuseScratch) this.#keepPending = true;
    try {
      return await record();
    } finally {
      if (--this.#recording === 0) {
        if (!this.#keepPending) this.#spare.push(...this.#pending);
        this.#pending = [];
        this.#keepPending = false;
      }
    }
  }

  dispatch(kernel: Kernel, options: DispatchOptions): this {
    this.#checkOpen();
    const entry = options.entry ?? 'main';
    kernel.pipeline(entry);
    for (const slot of kernel.slots) {
      if (!slot.array && !options.bindings?.[slot.name]) {
        throw new InputError(`no array given for binding '${slot.name}'`, `kernel '${kernel.label}'`);
      }
    }
    const wg = options.workgroups;
    if (typeof wg === 'number' && (!Number.isInteger(wg) || wg < 0)) {
      throw new InputError(
        `workgroup count must be a non-negative integer, got ${wg}`,
        `kernel '${kernel.label}'`,
      );
    }
    this.#ops.push({
      kind: 'dispatch',
      kernel,
      entry,
      bindings: options.bindings ?? {},
      params: options.params ?? {},
      workgroups: wg,
    });
    return this;
  }

  /**
   * Dispatches enough workgroups for `count` items at `perWorkgroup` items each. A GPU-resident count is
   * turned into indirect arguments by a one-thread kernel, so the size is never read back, unless it
   * carries ready arguments of that size (`GpuCount.args`).
   */
  async dispatchOver(
    kernel: Kernel,
    count: Count,
    perWorkgroup: number,
    options: Omit<DispatchOptions, 'workgroups'>,
  ) {
    if (!isGpuCount(count)) {
      return this.dispatch(kernel, { ...options, workgroups: Math.ceil(count / perWorkgroup) });
    }
    const ready = count.args;
    if (ready && ready.perWorkgroup === perWorkgroup) {
      return this.dispatch(kernel, { ...options, workgroups: { indirect: ready.array, index: ready.index } });
    }
    const args = await this.indirectArgs(count, perWorkgroup);
    return this.dispatch(kernel, { ...options, workgroups: { indirect: args } });
  }

  /** Writes dispatch arguments for `count` items at `perWorkgroup` items per workgroup into a new array. */
  async indirectArgs(count: GpuCount, perWorkgroup: number): Promise<DeviceArray<'u32'>> {
    const kernel = await this.device.kernel({
      label: 'indirect args',
      bindings: {
        count: { type: 'array<u32>', access: 'read' },
        args: { type: 'array<u32>', access: 'read_write' },
      },
      params: { index: 'u32', per_group: 'u32', max_dim: 'u32', out: 'u32' },
      code: ARGS_WGSL,
    });
    const args = this.scratch('u32', 3, 'indirect args', true);
    this.dispatch(kernel, {
      bindings: { count: count.array, args },
      params: {
        index: count.index,
        per_group: perWorkgroup,
        max_dim: this.device.limits.maxComputeWorkgroupsPerDimension,
        out: 0,
      },
      workgroups: [1, 1, 1],
    });
    return args;
  }

  /** Zeroes an array. */
  clear(array: DeviceArray): this {
    this.#checkOpen();
    this.#ops.push({ kind: 'clear', array });
    return this;
  }

  /** Sets every element of `array` to `value`. */
  async fill(array: DeviceArray, value: number): Promise<this> {
    if (value === 0 && !Object.is(value, -0)) return this.clear(array);
    const kernel = await this.device.kernel({
      label: 'fill',
      bindings: { out: { type: `array<${array.type}>`, access: 'read_write' } },
      params: { n: 'u32', value: array.type },
      code: /* wgsl */ `
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * 256u + lid;
  if (i < params.n) { out[i] = params.value; }
}`,
    });
    return this.dispatch(kernel, {
      bindings: { out: array },
      params: { n: array.length, value },
      workgroups: Math.ceil(array.length / 256),
    });
  }

  /**
   * Copies `count` elements from `src[srcIndex]` to `dst[dstIndex]`; either side may be a
   * {@link StagingBuffer} (a `'write'` one as the source, a `'read'` one as the destination), unmapped by submit.
   */
  copy(
    src: DeviceArray | StagingBuffer,
    dst: DeviceArray | StagingBuffer,
    count = src.length,
    srcIndex = 0,
    dstIndex = 0,
  ): this {
    this.#checkOpen();
    if (srcIndex + count > src.length || dstIndex + count > dst.length) {
      throw new InputError(
        `copy of ${count} elements from ${srcIndex} to ${dstIndex} exceeds '${src.label}' (${src.length}) or '${dst.label}' (${dst.length})`,
        'Recorder.copy',
      );
    }
    this.#ops.push({ kind: 'copy', src, srcIndex, dst, dstIndex, count });
    return this;
  }

  get dispatchCount(): number {
    return this.#ops.filter((o) => o.kind === 'dispatch').length;
  }

  #checkOpen(): void {
    if (this.#submitted)
      throw new InputError('this recorder was already submitted; make a new one', this.label);
  }

  /**
   * Encodes and submits everything recorded, waits for the GPU to finish, and throws what the error scopes
   * caught (validation, out of memory) or {@link DeviceLostError} if the device is lost meanwhile. With
   * `download`, that array's contents after the work come back as `downloaded`, read in the same wait.
   */
  submit(): Promise<SubmitResult>;
  submit<T extends ElementType>(
    options: SubmitOptions<T> & { download: DeviceArray<T> },
  ): Promise<SubmitResult & { downloaded: HostArray<T> }>;
  submit(options?: SubmitOptions): Promise<SubmitResult>;
  async submit(options: SubmitOptions = {}): Promise<SubmitResult> {
    checkOptionsObject('recorder.submit', options);
    this.#checkOpen();
    this.#submitted = true;
    const weft = this.device;
    weft.checkAlive();
    const device = weft.device;
    const ops = this.#ops;
    const align = device.limits.minUniformBufferOffsetAlignment;
    const maxDim = device.limits.maxComputeWorkgroupsPerDimension;

    // 1. The parameter arena: one slot per dispatch that has uniform params.
    let arenaBytes = 0;
    const slotOf = new Map<Op, number>();
    for (const op of ops) {
      if (op.kind === 'dispatch' && op.kernel.hasParams) {
        slotOf.set(op, arenaBytes);
        arenaBytes += Math.ceil(op.kernel.paramsSize / align) * align;
      }
    }
    let arena: GPUBuffer | undefined;
    const release: GPUBuffer[] = [];
    // Per dispatch, dispatch i's two queries are in set floor(i / TIMED_DISPATCHES_PER_SET); otherwise one set.
    const querySets: GPUQuerySet[] = [];
    let querySet: GPUQuerySet | undefined;
    let resolve: GPUBuffer | undefined;
    const timing = this.options.timing !== undefined && this.options.timing !== false && weft.hasTimestamps;
    const perDispatch = timing && this.options.timing === 'dispatches';
    const timedLabels: string[] = [];
    if (perDispatch) {
      const n = ops.filter((op) => op.kind === 'dispatch').length;
      if (n > MAX_TIMED_DISPATCHES) {
        throw new DeviceLimitError(
          `timing of ${n} dispatches`,
          n,
          'timed dispatches in one submit (64 timestamp query sets)',
          MAX_TIMED_DISPATCHES,
          'submit fewer dispatches at a time',
        );
      }
    }
    const read = options.download;
    const wait = options.wait ?? true;
    if (!wait && (read !== undefined || timing)) {
      throw new InputError(
        'submit({ wait: false }) cannot read back (download or timing): it does not wait for the GPU',
        `recorder '${this.label}'`,
      );
    }
    if (read !== undefined && read.device !== weft) {
      throw new DeviceMismatchError(read.label, `the download of recorder '${this.label}'`);
    }
    return weft.scoped(this.label, async () => {
      try {
        if (arenaBytes > 0) {
          const host = new ArrayBuffer(arenaBytes);
          const view = new DataView(host);
          for (const op of ops) {
            if (op.kind !== 'dispatch' || !op.kernel.hasParams) continue;
            const base = slotOf.get(op)!;
            op.kernel.paramFields.forEach((f, i) => {
              const v = f.value ?? op.params[f.name];
              if (v === undefined) {
                throw new InputError(`no value for param '${f.name}'`, `kernel '${op.kernel.label}'`);
              }
              const at = base + i * 4;
              if (f.type === 'f32') view.setFloat32(at, v, true);
              else if (f.type === 'i32') view.setInt32(at, v, true);
              else view.setUint32(at, v >>> 0, true);
            });
          }
          arena = weft.pool.acquire(arenaBytes, 'uniform', `${this.label} params`);
          release.push(arena);
          device.queue.writeBuffer(arena, 0, host);
        }

        // 2. Encode: dispatches share a compute pass; clears and copies end it.
        const encoder = device.createCommandEncoder({ label: this.label });
        if (timing) {
          const dispatches = ops.filter((op) => op.kind === 'dispatch').length;
          const sets = perDispatch ? Math.max(1, Math.ceil(dispatches / TIMED_DISPATCHES_PER_SET)) : 1;
          const perSet = perDispatch ? 2 * TIMED_DISPATCHES_PER_SET : 2;
          for (let q = 0; q < sets; q++) {
            querySets.push(device.createQuerySet({ type: 'timestamp', count: perSet }));
          }
          querySet = querySets[0];
          // Set q resolves at byte q * perSet * 8 (a multiple of 256 per dispatch), so query j of the submit
          // lands at byte 8j whichever set holds it.
          resolve = device.createBuffer({
            size: Math.max(256, sets * perSet * 8),
            usage: 0x200 | 0x4 /* QUERY_RESOLVE | COPY_SRC */,
          });
        }
        let pass: GPUComputePassEncoder | undefined;
        let passes = 0;
        const computePasses = countComputePasses(ops);
        const endPass = () => {
          pass?.end();
          pass = undefined;
        };
        for (const op of ops) {
          if (op.kind === 'dispatch') {
            if (perDispatch) {
              // One pass per dispatch, timestamps at both ends: queries 2i, 2i + 1 of the submit.
              endPass();
              const i = timedLabels.length;
              const local = i % TIMED_DISPATCHES_PER_SET;
              timedLabels.push(op.kernel.label);
              pass = encoder.beginComputePass({
                label: op.kernel.label,
                timestampWrites: {
                  querySet: querySets[Math.floor(i / TIMED_DISPATCHES_PER_SET)]!,
                  beginningOfPassWriteIndex: 2 * local,
                  endOfPassWriteIndex: 2 * local + 1,
                },
              });
              passes++;
            } else if (!pass) {
              const desc: GPUComputePassDescriptor = { label: this.label };
              if (querySet && (passes === 0 || passes === computePasses - 1)) {
                desc.timestampWrites = {
                  querySet,
                  ...(passes === 0 ? { beginningOfPassWriteIndex: 0 } : {}),
                  ...(passes === computePasses - 1 ? { endOfPassWriteIndex: 1 } : {}),
                };
              }
              pass = encoder.beginComputePass(desc);
              passes++;
            }
            const k = op.kernel;
            const entries: { binding: number; buffer: GPUBuffer; offset: number; size: number }[] = [];
            if (k.hasParams) entries.push({ binding: 0, buffer: arena!, offset: 0, size: k.paramsSize });
            const bound = new Map<GPUBuffer, { name: string; writable: boolean }>();
            for (const slot of k.slots) {
              const arr = slot.array ?? op.bindings[slot.name]!;
              if (arr.destroyed)
                throw new InputError(`array '${arr.label}' was destroyed`, `kernel '${k.label}'`);
              if (arr.device !== this.device) throw new DeviceMismatchError(arr.label, `kernel '${k.label}'`);
              // The spec forbids writable aliasing within a dispatch; Dawn checks it and wgpu does not, so
              // Weft checks it itself and both engines give the same error.
              const other = bound.get(arr.buffer);
              if (other && (other.writable || slot.writable)) {
                throw new GpuValidationError(
                  k.label,
                  `array '${arr.label}' is bound to both '${other.name}' and '${slot.name}', and one of them is writable`,
                );
              }
              bound.set(arr.buffer, { name: slot.name, writable: slot.writable });
              entries.push({ binding: slot.binding, buffer: arr.buffer, offset: 0, size: arr.bindingSize });
            }
            const group = weft.bindGroup(k.compiled.layout, entries, k.label);
            pass.setPipeline(k.pipeline(op.entry));
            pass.setBindGroup(0, group, k.hasParams ? [slotOf.get(op)!] : []);
            const wg = op.workgroups;
            if (typeof wg === 'number') {
              if (wg === 0) continue;
              const x = Math.min(wg, maxDim);
              const y = Math.ceil(wg / x);
              if (y > maxDim) {
                throw new DeviceLimitError(
                  `kernel '${k.label}' (${wg} workgroups)`,
                  wg,
                  'maxComputeWorkgroupsPerDimension squared',
                  maxDim * maxDim,
                );
              }
              pass.dispatchWorkgroups(x, y, 1);
            } else if (Array.isArray(wg)) {
              const [x, y, z] = wg as readonly [number, number, number];
              if (x > 0 && y > 0 && z > 0) pass.dispatchWorkgroups(x, y, z);
            } else {
              const ind = wg as { indirect: DeviceArray<'u32'>; index?: number };
              if (ind.indirect.device !== this.device) {
                throw new DeviceMismatchError(ind.indirect.label, `kernel '${k.label}'`);
              }
              pass.dispatchWorkgroupsIndirect(ind.indirect.buffer, (ind.index ?? 0) * 4);
            }
          } else {
            endPass();
            for (const arr of op.kind === 'clear' ? [op.array] : [op.src, op.dst]) {
              if (arr.device !== this.device) throw new DeviceMismatchError(arr.label, `a ${op.kind}`);
              if ('mapped' in arr && arr.mapped) {
                throw new InputError('a staging buffer is mapped at submit: unmap() it first', arr.label);
              }
            }
            if (op.kind === 'clear') {
              if (op.array.length > 0) encoder.clearBuffer(op.array.buffer, 0, op.array.bindingSize);
            } else if (op.count > 0) {
              encoder.copyBufferToBuffer(
                op.src.buffer,
                op.srcIndex * 4,
                op.dst.buffer,
                op.dstIndex * 4,
                op.count * 4,
              );
            }
          }
        }
        endPass();
        const usedQueries = perDispatch ? 2 * timedLabels.length : 2;
        // The timestamps come back in the submit's wait, beside any `download`: no round trip of their own.
        let stamps: GPUBuffer | undefined;
        if (querySet && resolve) {
          if (passes > 0) {
            const perSet = perDispatch ? 2 * TIMED_DISPATCHES_PER_SET : 2;
            for (let q = 0; q * perSet < usedQueries; q++) {
              const count = Math.min(perSet, usedQueries - q * perSet);
              encoder.resolveQuerySet(querySets[q]!, 0, count, resolve, q * perSet * 8);
            }
            stamps = weft.pool.acquire(usedQueries * 8, 'readback', 'weft timestamps');
            release.push(stamps);
            encoder.copyBufferToBuffer(resolve, 0, stamps, 0, usedQueries * 8);
          } else querySet = undefined;
        }
        let staging: GPUBuffer | undefined;
        const readBytes = read === undefined ? 0 : read.length * 4;
        if (read !== undefined && readBytes > 0) {
          staging = weft.pool.acquire(readBytes, 'readback', 'weft readback');
          release.push(staging);
          encoder.copyBufferToBuffer(read.buffer, 0, staging, 0, readBytes);
        }
        const start = performance.now();
        device.queue.submit([encoder.finish()]);
        // Mapping the staging buffer resolves once the whole submit has run, so it is the wait itself.
        if (staging || stamps) {
          await weft.guard(
            Promise.all([
              staging?.mapAsync(0x1 /* GPUMapMode.READ */, 0, readBytes),
              stamps?.mapAsync(0x1 /* GPUMapMode.READ */, 0, usedQueries * 8),
            ]),
          );
        } else if (wait) await weft.guard(device.queue.onSubmittedWorkDone());
        const wallMs = performance.now() - start;
        const result: SubmitResult & { downloaded?: HostArray<ElementType> } = {
          wallMs,
          dispatches: this.dispatchCount,
        };
        if (read !== undefined) {
          const bytes = staging ? staging.getMappedRange(0, readBytes).slice(0) : new ArrayBuffer(0);
          staging?.unmap();
          result.downloaded =
            read.type === 'u32'
              ? new Uint32Array(bytes)
              : read.type === 'i32'
                ? new Int32Array(bytes)
                : new Float32Array(bytes);
        }
        if (stamps) {
          const ts = new BigUint64Array(stamps.getMappedRange(0, usedQueries * 8).slice(0));
          stamps.unmap();
          if (perDispatch) {
            result.dispatchNs = timedLabels.map((label, i) => ({
              label,
              ns: Math.max(0, Number(ts[2 * i + 1]! - ts[2 * i]!)),
            }));
            const ns = Number(ts[usedQueries - 1]! - ts[0]!);
            if (ns > 0) result.gpuNs = ns;
          } else {
            const ns = Number(ts[1]! - ts[0]!);
            if (ns > 0) result.gpuNs = ns;
          }
        }
        return result;
      } finally {
        for (const q of querySets) q.destroy();
        resolve?.destroy();
        for (const b of release) weft.pool.release(b);
        for (const a of this.#temporaries) a.destroy();
      }
    });
  }
}

function countComputePasses(ops: readonly Op[]): number {
  let passes = 0;
  let open = false;
  for (const op of ops) {
    if (op.kind === 'dispatch') {
      if (!open) passes++;
      open = true;
    } else open = false;
  }
  return passes;
}
