import type { WeftDevice } from './device.ts';
import { DeviceLimitError, InputError } from './errors.ts';

/** The element types a device array can hold (WGSL scalar names). */
export type ElementType = 'u32' | 'i32' | 'f32';

/** The host typed array that mirrors an element type. */
export type HostArray<T extends ElementType> = T extends 'u32'
  ? Uint32Array
  : T extends 'i32'
    ? Int32Array
    : Float32Array;

const hostConstructors = { u32: Uint32Array, i32: Int32Array, f32: Float32Array } as const;

/** Makes a host typed array of `type` and `length`. */
export function hostArray<T extends ElementType>(type: T, length: number): HostArray<T> {
  return new hostConstructors[type](length) as HostArray<T>;
}

/** The element type that a host typed array holds. */
export function elementTypeOf(data: Uint32Array | Int32Array | Float32Array): ElementType {
  if (data instanceof Uint32Array) return 'u32';
  if (data instanceof Int32Array) return 'i32';
  return 'f32';
}

const BYTES_PER_ELEMENT = 4;

export interface DeviceArrayOptions {
  /** Shown in errors and in GPU debuggers. */
  label?: string;
  /** Also usable as `dispatchWorkgroupsIndirect` arguments. */
  indirect?: boolean;
}

/**
 * A typed array in GPU memory: `length` elements of `type`, bound whole to kernels.
 * Storage comes from the device's buffer pool; `destroy()` returns it there (contents are not cleared).
 */
export class DeviceArray<T extends ElementType = ElementType> {
  readonly buffer: GPUBuffer;
  #released = false;

  /** Use `device.array(...)` or `device.upload(...)`. */
  constructor(
    readonly device: WeftDevice,
    readonly type: T,
    readonly length: number,
    readonly label: string,
    options: DeviceArrayOptions = {},
  ) {
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new InputError(`length must be a non-negative integer, got ${length}`, `array '${label}'`);
    }
    const bytes = length * BYTES_PER_ELEMENT;
    const maxBinding = device.limits.maxStorageBufferBindingSize;
    if (bytes > maxBinding) {
      throw new DeviceLimitError(
        `array '${label}' (${type} x ${length})`,
        bytes,
        'maxStorageBufferBindingSize',
        maxBinding,
        `at most ${Math.floor(maxBinding / BYTES_PER_ELEMENT)} elements fit in one binding on this adapter`,
      );
    }
    this.buffer = device.pool.acquire(bytes, options.indirect ? 'indirect' : 'storage', label);
  }

  get byteLength(): number {
    return this.length * BYTES_PER_ELEMENT;
  }

  /** Bytes to bind: the length rounded up to 16 so vec4 views of the same array are valid. */
  get bindingSize(): number {
    return Math.max(16, Math.ceil(this.byteLength / 16) * 16);
  }

  #check(): void {
    if (this.#released) throw new InputError('the array was destroyed', `array '${this.label}'`);
  }

  /** Copies `data` into the array starting at element `offset` (queued before the next submit). */
  upload(data: ArrayLike<number> | HostArray<T>, offset = 0): this {
    this.#check();
    if (offset < 0 || offset + data.length > this.length) {
      throw new InputError(
        `upload of ${data.length} elements at offset ${offset} exceeds length ${this.length}`,
        `array '${this.label}'`,
      );
    }
    if (data.length === 0) return this;
    const host =
      data instanceof hostConstructors[this.type] ? (data as HostArray<T>) : toHost(this.type, data);
    this.device.device.queue.writeBuffer(
      this.buffer,
      offset * BYTES_PER_ELEMENT,
      host.buffer,
      host.byteOffset,
      host.byteLength,
    );
    return this;
  }

  /** Reads the whole array (or `count` elements from `offset`) back to the host. */
  async download(offset = 0, count = this.length - offset): Promise<HostArray<T>> {
    this.#checkRange('download', offset, count);
    const bytes = await this.device.readBytes(
      this.buffer,
      offset * BYTES_PER_ELEMENT,
      count * BYTES_PER_ELEMENT,
    );
    return new hostConstructors[this.type](bytes) as HostArray<T>;
  }

  /**
   * Reads the whole array (or `count` elements from `offset`) back and returns what `use` returns for a
   * typed view of them in the mapped read-back memory, with no host copy (decode or copy from it there).
   * The view is valid only while `use` runs: `use` must be synchronous (a returned Promise is an
   * {@link InputError}), and a view kept past it reads as empty.
   */
  async read<R>(use: (view: HostArray<T>) => R, offset = 0, count = this.length - offset): Promise<R> {
    this.#checkRange('read', offset, count);
    return this.device.readMapped(
      this.buffer,
      offset * BYTES_PER_ELEMENT,
      count * BYTES_PER_ELEMENT,
      (bytes) => use(new hostConstructors[this.type](bytes.buffer, bytes.byteOffset, count) as HostArray<T>),
      `array '${this.label}'`,
    );
  }

  /**
   * Fills `target`, a host array of this array's element type, with `target.length` elements from element
   * `offset`: one copy out of the mapped read-back memory into memory the caller already has (a subarray of
   * a larger result, say), where `download()` allocates.
   */
  async downloadInto(target: HostArray<T>, offset = 0): Promise<void> {
    checkTarget(this.type, target, this.label);
    await this.read((view) => target.set(view), offset, target.length);
  }

  #checkRange(what: string, offset: number, count: number): void {
    this.#check();
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(count) || offset < 0 || count < 0) {
      throw new InputError(
        `${what} of ${count} elements at ${offset}: offset and count must be non-negative integers`,
        `array '${this.label}'`,
      );
    }
    if (offset + count > this.length) {
      throw new InputError(
        `${what} of ${count} elements at ${offset} exceeds length ${this.length}`,
        `array '${this.label}'`,
      );
    }
  }

  /** Sets every element to `value` (zero uses `clearBuffer`; other values a fill kernel). */
  async fill(value: number): Promise<this> {
    this.#check();
    await this.device.fill(this, value);
    return this;
  }

  /** Returns the storage to the pool; the array must not be used afterwards. */
  destroy(): void {
    if (this.#released) return;
    this.#released = true;
    this.device.pool.release(this.buffer);
  }

  get destroyed(): boolean {
    return this.#released;
  }

  [Symbol.dispose](): void {
    this.destroy();
  }
}

/** Throws an {@link InputError} naming array `label` unless `target` is a host array of `type`. */
export function checkTarget(type: ElementType, target: unknown, label: string): void {
  const want = hostConstructors[type];
  if (target instanceof want) return;
  const got =
    target === null || typeof target !== 'object'
      ? String(target)
      : (target.constructor?.name ?? 'an object');
  throw new InputError(
    `downloadInto needs a ${want.name} for ${type} elements, got ${got}`,
    `array '${label}'`,
  );
}

function toHost<T extends ElementType>(type: T, data: ArrayLike<number>): HostArray<T> {
  const host = hostArray(type, data.length);
  for (let i = 0; i < data.length; i++) host[i] = data[i]!;
  return host;
}

/** A u32 that lives on the GPU (a scan total, a frontier length): element `index` of `array`. */
export interface GpuCount {
  readonly array: DeviceArray<'u32'>;
  readonly index: number;
  /**
   * Indirect dispatch arguments for this count at `perWorkgroup` items a workgroup, written by the kernel
   * that wrote the count (`writeDispatchArgs`): a dispatch over the count at that size uses them as they
   * are, with no one-thread kernel to derive them (one dispatch less per use).
   */
  readonly args?: DispatchArgs;
}

/** 3 u32 of indirect dispatch arguments at `array[index]`, sized for `perWorkgroup` items a workgroup. */
export interface DispatchArgs {
  readonly array: DeviceArray<'u32'>;
  readonly index: number;
  readonly perWorkgroup: number;
}

/** A length known on the host, or one that lives on the GPU and is never read back. */
export type Count = number | GpuCount;

export function isGpuCount(n: Count): n is GpuCount {
  return typeof n === 'object';
}
