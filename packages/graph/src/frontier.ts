import {
  atomic,
  type Count,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  onTarget,
  type Recorder,
  rw,
  type Target,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';

/**
 * A frontier as operators read and write it: vertex ids in `items[0 .. length)`. `length` is a
 * `GpuCount` for queues built on the GPU (never read back) or a host number.
 */
export interface FrontierView {
  readonly items: DeviceArray<'u32'>;
  readonly length: Count;
}

/** Where an operator appends vertices: `items` and a one-word atomic counter (`count[0]`). */
export interface FrontierSink {
  readonly items: DeviceArray<'u32'>;
  readonly count: DeviceArray<'u32'>;
}

export interface FrontierQueueOptions {
  /** Capacity = ceil(sizeMultiplier x vertexCount), at least 1 (Gunrock's frontier sizing factor). Default 1. */
  sizeMultiplier?: number;
  label?: string;
}

/**
 * A double-buffered queue of vertex ids (Gunrock's two frontier buffers): operators read `current` and
 * append to `next`; `swap()` flips them between iterations. Each buffer's length is a u32 on the GPU, so an
 * iteration's kernels size themselves by indirect dispatch and nothing is read back per iteration.
 * Appends past the capacity are dropped; with a visited bitmap (uniquify) `vertexCount` always suffices.
 */
export class FrontierQueue {
  readonly capacity: number;
  #items: [DeviceArray<'u32'>, DeviceArray<'u32'>];
  // One array per counter: a kernel reads one buffer's length while it appends atomically to the other's.
  #counts: [DeviceArray<'u32'>, DeviceArray<'u32'>];
  #cur = 0;

  constructor(
    readonly device: WeftDevice,
    readonly vertexCount: number,
    options: FrontierQueueOptions = {},
  ) {
    checkOptionsObject('new FrontierQueue', options);
    const mult = options.sizeMultiplier ?? 1;
    if (!(mult > 0) || !Number.isFinite(mult)) {
      throw new InputError(`sizeMultiplier must be a positive number, got ${mult}`, 'options.sizeMultiplier');
    }
    if (!Number.isInteger(vertexCount) || vertexCount < 0) {
      throw new InputError(`vertexCount must be a non-negative integer, got ${vertexCount}`, 'vertexCount');
    }
    this.capacity = Math.max(1, Math.ceil(mult * vertexCount));
    const label = options.label ?? 'frontier';
    this.#items = [
      device.array('u32', this.capacity, { label: `${label} items 0` }),
      device.array('u32', this.capacity, { label: `${label} items 1` }),
    ];
    this.#counts = [
      device.array('u32', 1, { label: `${label} length 0` }),
      device.array('u32', 1, { label: `${label} length 1` }),
    ];
    this.#counts[0].upload([0]);
    this.#counts[1].upload([0]);
  }

  /** The frontier operators read this iteration. */
  get current(): FrontierView & { readonly length: GpuCount } {
    return { items: this.#items[this.#cur]!, length: { array: this.#counts[this.#cur]!, index: 0 } };
  }

  /** The buffer operators append to this iteration. */
  get next(): FrontierSink {
    const i = 1 - this.#cur;
    return { items: this.#items[i]!, count: this.#counts[i]! };
  }

  /** The current frontier's length on the GPU. */
  get length(): GpuCount {
    return this.current.length;
  }

  /** Makes `next` the current frontier (host-side bookkeeping only: no GPU work). */
  swap(): void {
    this.#cur = 1 - this.#cur;
  }

  /** Sets the current frontier to `vertices` (uploaded now, outside any recorder). */
  set(vertices: ArrayLike<number>): void {
    if (vertices.length > this.capacity) {
      throw new InputError(`${vertices.length} vertices exceed the capacity ${this.capacity}`, 'vertices');
    }
    for (let i = 0; i < vertices.length; i++) {
      const v = vertices[i]!;
      if (!Number.isInteger(v) || v < 0 || v >= this.vertexCount) {
        throw new InputError(
          `vertices[${i}] = ${v} is not a vertex id (vertexCount ${this.vertexCount})`,
          'vertices',
        );
      }
    }
    if (vertices.length > 0) this.#items[this.#cur]!.upload(Uint32Array.from(vertices));
    this.#counts[this.#cur]!.upload([vertices.length]);
  }

  /** Records: the current frontier becomes the single vertex `v` (repeatable inside one submit). */
  async recordSingle(target: Target, v: number): Promise<void> {
    if (!Number.isInteger(v) || v < 0 || v >= this.vertexCount) {
      throw new InputError(`${v} is not a vertex id (vertexCount ${this.vertexCount})`, 'vertex');
    }
    const { items, length } = this.current;
    await transform(target, 1, wgsl`(i: u32) { ${rw(items)}[0] = ${u32(v)}; ${rw(length.array)}[0] = 1u; }`);
  }

  /** Records: the current frontier becomes every vertex, in order. */
  async recordAll(target: Target): Promise<void> {
    const { items, length } = this.current;
    const n = this.vertexCount;
    await onTarget(target, 'frontier all', async (rec) => {
      await transform(rec, n, wgsl`(i: u32) { ${rw(items)}[i] = i; }`);
      await transform(rec, 1, wgsl`(i: u32) { ${rw(length.array)}[0] = ${u32(n)}; }`);
    });
  }

  /** Records: the current frontier becomes empty. */
  recordClear(rec: Recorder): void {
    rec.clear(this.#counts[this.#cur]!);
  }

  /** Reads the current length back (one round trip; not for inner loops). */
  async readLength(): Promise<number> {
    return Math.min((await this.#counts[this.#cur]!.download())[0]!, this.capacity);
  }

  /** Reads the current frontier back. */
  async toArray(): Promise<Uint32Array> {
    const n = await this.readLength();
    return n === 0 ? new Uint32Array(0) : this.#items[this.#cur]!.download(0, n);
  }

  destroy(): void {
    for (const a of [...this.#items, ...this.#counts]) a.destroy();
  }
}

/** A dense frontier: bit `v & 31` of word `v >> 5` is set when vertex `v` is in it. */
export class FrontierBitmap {
  readonly words: DeviceArray<'u32'>;

  constructor(
    readonly device: WeftDevice,
    readonly vertexCount: number,
    label = 'frontier bitmap',
  ) {
    this.words = device.array('u32', Math.max(1, Math.ceil(vertexCount / 32)), { label });
    this.words.upload(new Uint32Array(this.words.length));
  }

  /** Records: every bit cleared. */
  recordClear(rec: Recorder): void {
    rec.clear(this.words);
  }

  /** Reads the set vertices back, in order. */
  async toArray(): Promise<Uint32Array> {
    const words = await this.words.download();
    const out: number[] = [];
    for (let v = 0; v < this.vertexCount; v++) if ((words[v >>> 5]! >>> (v & 31)) & 1) out.push(v);
    return Uint32Array.from(out);
  }

  destroy(): void {
    this.words.destroy();
  }
}

/** Records: `bitmap` = the set of vertices in `queue` (cleared first). */
export async function queueToBitmap(
  target: Target,
  queue: FrontierView,
  bitmap: FrontierBitmap,
): Promise<void> {
  await onTarget(target, 'queue to bitmap', async (rec) => {
    rec.clear(bitmap.words);
    await transform(
      rec,
      queue.length,
      wgsl`(i: u32) { let v = ${queue.items}[i]; atomicOr(&${atomic(bitmap.words)}[v >> 5u], 1u << (v & 31u)); }`,
    );
  });
}

export interface BitmapToQueueOptions {
  /** Keep the sink's count (default: zeroed first). */
  append?: boolean;
  /** Only vertices not in this bitmap (of the same vertex count): e.g. the ones a level newly set. */
  except?: Pick<FrontierBitmap, 'words' | 'vertexCount'>;
  /** `(v: u32)`, called once for each appended vertex (e.g. to store its depth). */
  visit?: Functor;
  /**
   * `() -> bool`, read by every thread: when false the conversion does nothing, so a decision made on the
   * GPU (a frontier's size) can skip it without a read-back. It must give every thread the same answer.
   */
  when?: Functor;
}

/**
 * Records: the vertices of `bitmap` appended to `sink` (its count zeroed first unless `append`). Vertices
 * of one 32-bit word stay in order; words land in any order (one atomic add per non-empty word).
 */
export async function bitmapToQueue(
  target: Target,
  bitmap: FrontierBitmap,
  sink: FrontierSink,
  options: BitmapToQueueOptions = {},
): Promise<void> {
  checkOptionsObject('bitmapToQueue', options);
  const { except, visit, when } = options;
  if (except && except.vertexCount !== bitmap.vertexCount) {
    throw new InputError(
      `except has ${except.vertexCount} vertices, the bitmap ${bitmap.vertexCount}`,
      'bitmapToQueue options.except',
    );
  }
  const enabled = when ?? wgsl`() -> bool { return true; }`;
  const minus = except
    ? wgsl`(w: u32) -> u32 { return ${except.words}[w]; }`
    : wgsl`(w: u32) -> u32 { return 0u; }`;
  const each = visit ?? wgsl`(v: u32) {}`;
  await onTarget(target, 'bitmap to queue', async (rec) => {
    if (!options.append) rec.clear(sink.count);
    const capacity = sink.items.length;
    await transform(
      rec,
      bitmap.words.length,
      wgsl`(w: u32) {
  if (!${enabled}()) { return; }
  // Bits past vertexCount may be set by a caller that wrote whole words; they are not vertices.
  var bits = ${bitmap.words}[w] & ~${minus}(w);
  let first = w * 32u;
  if (first + 32u > ${u32(bitmap.vertexCount)}) {
    let valid = ${u32(bitmap.vertexCount)} - first;
    bits = bits & ((1u << valid) - 1u);
  }
  if (bits == 0u) { return; }
  var at = atomicAdd(&${atomic(sink.count)}[0], countOneBits(bits));
  while (bits != 0u) {
    let v = first + weft_trailing_zeros(bits);
    ${each}(v);
    if (at < ${u32(capacity)}) { ${rw(sink.items)}[at] = v; }
    at++;
    bits = bits & (bits - 1u);
  }
}`,
    );
  });
}
