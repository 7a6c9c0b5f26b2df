import { checkTarget, DeviceArray, type ElementType, type HostArray, hostArray } from './array.ts';
import type { WeftDevice } from './device.ts';
import { InputError } from './errors.ts';
import { atomic, Functor, type Inline, type Interpolation, inline, rw, wgsl } from './functor.ts';

const BYTES_PER_ELEMENT = 4;
/** Element indices are u32 in WGSL. */
const MAX_LENGTH = 2 ** 32 - 1;

/**
 * The largest `shift` (at most 31) with 2^shift 4-byte elements within `bytes` of one binding: chunked arrays
 * made under a binding budget of `bytes` hold 2^shift elements a chunk.
 */
export function chunkShift(bytes: number): number {
  return Math.min(31, Math.floor(Math.log2(Math.max(BYTES_PER_ELEMENT, bytes) / BYTES_PER_ELEMENT)));
}

export interface ChunkedArrayOptions {
  /** Shown in errors and in GPU debuggers (each chunk's label adds its number). */
  label?: string;
}

/**
 * One logical array of up to 2^32 − 1 elements stored as several {@link DeviceArray} chunks, each within one
 * storage binding: with more than one chunk, element `i` is element `i & (2^shift − 1)` of chunk `i >> shift`.
 * An array that fits the device's binding budget is one chunk of its own length, which kernels index as a
 * plain array. Kernels address it through {@link load}, {@link store} and {@link atomicAt}.
 */
export class ChunkedArray<T extends ElementType = ElementType> {
  readonly type: T;
  readonly length: number;
  readonly label: string;

  /**
   * Wraps `chunks` (use `device.chunkedArray(...)` or `device.uploadChunked(...)` to allocate): every chunk but
   * the last holds exactly 2^shift elements, the last at most that (any length when it is the only one).
   */
  constructor(
    readonly chunks: readonly DeviceArray<T>[],
    readonly shift: number,
  ) {
    const first = chunks[0];
    if (first === undefined) throw new InputError('needs at least one chunk', 'ChunkedArray');
    if (!Number.isInteger(shift) || shift < 0 || shift > 31) {
      throw new InputError(`shift must be an integer in 0..31, got ${shift}`, 'ChunkedArray');
    }
    const size = 2 ** shift;
    chunks.forEach((c, i) => {
      const full = i < chunks.length - 1;
      if (c.type !== first.type || c.device !== first.device) {
        throw new InputError(`chunk ${i} differs from chunk 0 in type or device`, 'ChunkedArray');
      }
      if (chunks.length > 1 && (full ? c.length !== size : c.length > size || c.length === 0)) {
        throw new InputError(
          `chunk ${i} holds ${c.length} elements; chunks hold 2^${shift} (the last 1 to 2^${shift})`,
          'ChunkedArray',
        );
      }
    });
    this.type = first.type;
    this.length = chunks.reduce((n, c) => n + c.length, 0);
    this.label = first.label.replace(/ \[chunk 0\]$/, '');
    if (this.length > MAX_LENGTH) {
      throw new InputError(`${this.length} elements exceed 2^32 - 1`, `array '${this.label}'`);
    }
  }

  get device(): WeftDevice {
    return this.chunks[0]!.device;
  }

  get byteLength(): number {
    return this.length * BYTES_PER_ELEMENT;
  }

  /** The one array, when one chunk holds everything (kernels then index it directly). */
  get single(): DeviceArray<T> | undefined {
    return this.chunks.length === 1 ? this.chunks[0] : undefined;
  }

  #check(offset: number, count: number, what: string): void {
    if (this.chunks.some((c) => c.destroyed)) {
      throw new InputError('the array was destroyed', `array '${this.label}'`);
    }
    if (!Number.isSafeInteger(offset) || !Number.isSafeInteger(count) || offset < 0 || count < 0) {
      throw new InputError(`${what} at offset ${offset} of ${count} elements`, `array '${this.label}'`);
    }
    if (offset + count > this.length) {
      throw new InputError(
        `${what} of ${count} elements at offset ${offset} exceeds length ${this.length}`,
        `array '${this.label}'`,
      );
    }
  }

  /** Each chunk's part of the element range [offset, offset + count): chunk, start in it, count, start in range. */
  #pieces(offset: number, count: number): [DeviceArray<T>, number, number, number][] {
    if (this.chunks.length === 1) return [[this.chunks[0]!, offset, count, 0]];
    const size = 2 ** this.shift;
    const out: [DeviceArray<T>, number, number, number][] = [];
    for (let i = offset; i < offset + count; ) {
      const c = Math.floor(i / size);
      const at = i - c * size;
      const n = Math.min(size - at, offset + count - i);
      out.push([this.chunks[c]!, at, n, i - offset]);
      i += n;
    }
    return out;
  }

  /** Copies `data` into the array starting at element `offset` (queued before the next submit). */
  upload(data: ArrayLike<number> | HostArray<T>, offset = 0): this {
    this.#check(offset, data.length, 'upload');
    const typed = ArrayBuffer.isView(data) ? (data as HostArray<T>) : undefined;
    const plain = typed ? undefined : Array.from(data);
    for (const [chunk, at, n, from] of this.#pieces(offset, data.length)) {
      chunk.upload(typed ? typed.subarray(from, from + n) : plain!.slice(from, from + n), at);
    }
    return this;
  }

  /** Reads the whole array (or `count` elements from `offset`) back to the host. */
  async download(offset = 0, count = this.length - offset): Promise<HostArray<T>> {
    this.#check(offset, count, 'download');
    const pieces = this.#pieces(offset, count);
    if (pieces.length === 1) return pieces[0]![0].download(pieces[0]![1], count);
    const out = hostArray(this.type, count);
    await this.#readPieces(out, pieces);
    return out;
  }

  /**
   * Fills `target`, a host array of this array's element type, with `target.length` elements from element
   * `offset`, each chunk's part copied from its own mapped read-back straight into place (no allocation).
   * Chunked arrays offer no `read`: a range across chunks is several mappings, not one view.
   */
  async downloadInto(target: HostArray<T>, offset = 0): Promise<void> {
    checkTarget(this.type, target, this.label);
    this.#check(offset, target.length, 'downloadInto');
    await this.#readPieces(target, this.#pieces(offset, target.length));
  }

  async #readPieces(target: HostArray<T>, pieces: [DeviceArray<T>, number, number, number][]): Promise<void> {
    await Promise.all(
      pieces.map(([chunk, at, n, from]) => chunk.read((view) => target.set(view, from), at, n)),
    );
  }

  /** Sets every element to `value`. */
  async fill(value: number): Promise<this> {
    this.#check(0, 0, 'fill');
    for (const c of this.chunks) await c.fill(value);
    return this;
  }

  /** Returns every chunk's storage to the pool; the array must not be used afterwards. */
  destroy(): void {
    for (const c of this.chunks) c.destroy();
  }

  get destroyed(): boolean {
    return this.chunks[0]!.destroyed;
  }

  [Symbol.dispose](): void {
    this.destroy();
  }
}

/**
 * Allocates a chunked array on `device`: one chunk when `length` elements fit the device's binding budget
 * (`device.bindingBudget`), else chunks of the largest power of two of elements that fits it.
 */
export function allocateChunked<T extends ElementType>(
  device: WeftDevice,
  type: T,
  length: number,
  options: ChunkedArrayOptions = {},
): ChunkedArray<T> {
  const label = options.label ?? `${type}[${length}]`;
  if (!Number.isSafeInteger(length) || length < 0 || length > MAX_LENGTH) {
    throw new InputError(`length must be an integer in 0..2^32 - 1, got ${length}`, `array '${label}'`);
  }
  const budget = device.bindingBudget;
  const shift = chunkShift(budget);
  if (length * BYTES_PER_ELEMENT <= budget) {
    return new ChunkedArray([new DeviceArray(device, type, length, label)], shift);
  }
  const size = 2 ** shift;
  const chunks: DeviceArray<T>[] = [];
  try {
    for (let at = 0, i = 0; at < length; at += size, i++) {
      chunks.push(new DeviceArray(device, type, Math.min(size, length - at), `${label} [chunk ${i}]`));
    }
  } catch (e) {
    for (const c of chunks) c.destroy();
    throw e;
  }
  return new ChunkedArray(chunks, shift);
}

/** The WGSL atomic read-modify-write built-ins `atomicAt` can call. */
export type AtomicName = 'atomicAdd' | 'atomicSub' | 'atomicMin' | 'atomicMax' | 'atomicOr' | 'atomicAnd';

// One helper per array and access, so a kernel that reads an array in several places declares it once.
const helpers = new WeakMap<ChunkedArray, Map<string, Functor>>();

function helper(array: ChunkedArray, key: string, make: () => Functor): Functor {
  let own = helpers.get(array);
  if (own === undefined) {
    own = new Map();
    helpers.set(array, own);
  }
  let f = own.get(key);
  if (f === undefined) {
    f = make();
    own.set(key, f);
  }
  return f;
}

/**
 * A function over the chunks: `head`, then a switch on `i >> shift` whose case `c` is `body(chunk c)` with the
 * index within the chunk in `j` (the last chunk takes the default case, which WGSL requires).
 */
function chunkSwitch(
  array: ChunkedArray,
  head: string,
  body: (chunk: DeviceArray) => [string, Interpolation, string],
): Functor {
  const mask = 2 ** array.shift - 1;
  const strings: string[] = [`${head} {\n  let j = i & ${mask}u;\n  switch (i >> ${array.shift}u) {\n`];
  const values: Interpolation[] = [];
  array.chunks.forEach((chunk, c) => {
    const label = c === array.chunks.length - 1 ? 'default' : `case ${c}u`;
    const [before, value, rest] = body(chunk);
    strings[strings.length - 1] += `    ${label}: { ${before}`;
    values.push(value);
    strings.push(`${rest} }\n`);
  });
  strings[strings.length - 1] += '  }\n}';
  return new Functor(strings, values);
}

/**
 * WGSL for `array[index]` in a `wgsl` template: the plain index of the one binding when one chunk holds the
 * array (the same text as interpolating that `DeviceArray`), else a call of a helper that picks the chunk.
 * `index` is a WGSL expression of type u32.
 */
export function load(array: ChunkedArray, index: Interpolation): Inline {
  const one = array.single;
  if (one) return inline(wgsl`${one}[${index}]`);
  const f = helper(array, 'load', () =>
    chunkSwitch(array, `(i: u32) -> ${array.type}`, (c) => ['return ', c, '[j];']),
  );
  return inline(wgsl`${f}(${index})`);
}

/** WGSL for the statement `array[index] = value` (without the semicolon), as {@link load} addresses it. */
export function store(array: ChunkedArray, index: Interpolation, value: Interpolation): Inline {
  const one = array.single;
  if (one) return inline(wgsl`${rw(one)}[${index}] = ${value}`);
  const f = helper(array, 'store', () =>
    chunkSwitch(array, `(i: u32, v: ${array.type})`, (c) => ['', rw(c), '[j] = v;']),
  );
  return inline(wgsl`${f}(${index}, ${value})`);
}

/**
 * WGSL for `op(&array[index], value)` (an atomic read-modify-write returning the old value) on a u32 or i32
 * array, as {@link load} addresses it.
 */
export function atomicAt(
  op: AtomicName,
  array: ChunkedArray<'u32' | 'i32'>,
  index: Interpolation,
  value: Interpolation,
): Inline {
  if ((array.type as string) === 'f32') {
    throw new InputError('WGSL has no f32 atomics', `atomicAt(${array.label})`);
  }
  const one = array.single;
  if (one) return inline(wgsl`${op}(&${atomic(one)}[${index}], ${value})`);
  const f = helper(array, op, () =>
    chunkSwitch(array, `(i: u32, v: ${array.type}) -> ${array.type}`, (c) => [
      `return ${op}(&`,
      atomic(c as DeviceArray<'u32'>),
      '[j], v);',
    ]),
  );
  return inline(wgsl`${f}(${index}, ${value})`);
}
