import {
  type DeviceArray,
  DeviceLimitError,
  InputError,
  type Recorder,
  type WeftDevice,
  WeftError,
} from '@weft/gpu';
import {
  A_BUMP,
  A_GROWTH_DENIED,
  A_OVERFLOW,
  ALLOC_WORDS,
  KEY_SLOTS,
  SLAB_WORDS,
  VERTEX_WORDS,
} from './layout.ts';

/**
 * The GPU arrays of a dynamic graph and their growth: the slab pool (slabs, values, free list, allocator
 * state) and the vertex dictionary. Growing copies into larger arrays; nothing else is rebuilt.
 */
export class TableStorage {
  slabs: DeviceArray<'u32'>;
  /** Parallel to `slabs` in the map variant; 4 words otherwise. */
  values: DeviceArray<'u32'>;
  /** Free slabs in [0, count); spares of the running insert phase in [capacity, 2 capacity). */
  freeList: DeviceArray<'u32'>;
  /** Bump pointer, free count, spare count, overflow flag. */
  alloc: DeviceArray<'u32'>;
  /** 4 words per vertex: base slab, bucket count, degree, flags. */
  vertices: DeviceArray<'u32'>;
  slabCapacity: number;
  vertexCapacity: number;
  /** Slabs per key assumed when the pool grows for a batch whose worst case does not fit (a test knob). */
  slabsPerKeyEstimate = 2 / KEY_SLOTS;
  /** Upper bound of the bump pointer on the GPU, tightened by reading it back when the pool looks full. */
  #bumpBound = 0;

  constructor(
    readonly device: WeftDevice,
    readonly withValues: boolean,
    vertexCapacity: number,
    slabCapacity: number,
  ) {
    if (slabCapacity > this.maxSlabs) this.#poolLimit(slabCapacity);
    this.vertexCapacity = vertexCapacity;
    this.slabCapacity = slabCapacity;
    this.slabs = device.array('u32', slabCapacity * SLAB_WORDS, { label: 'dynamic slabs' });
    this.values = device.array('u32', withValues ? slabCapacity * SLAB_WORDS : 4, {
      label: 'dynamic values',
    });
    this.freeList = device.array('u32', 2 * slabCapacity, { label: 'dynamic free list' });
    this.alloc = device.array('u32', ALLOC_WORDS, { label: 'dynamic allocator' });
    this.vertices = device.array('u32', vertexCapacity * VERTEX_WORDS, { label: 'dynamic vertices' });
  }

  /** Fresh slabs are all ones (EMPTY keys, no owner, no next); no vertex has buckets yet. */
  async initialize() {
    const rec = this.device.recorder({ label: 'dynamic init' });
    await rec.fill(this.slabs, 0xffffffff);
    rec.clear(this.alloc);
    rec.clear(this.vertices);
    await rec.submit();
  }

  /** Slabs that fit one storage binding. */
  get maxSlabs(): number {
    return Math.floor(this.device.limits.maxStorageBufferBindingSize / (SLAB_WORDS * 4));
  }

  /** Grows the vertex dictionary: only the per-vertex words are copied. */
  async growVertices(capacity: number) {
    const next = this.device.array('u32', capacity * VERTEX_WORDS, { label: 'dynamic vertices' });
    const rec = this.device.recorder({ label: 'dynamic grow vertices' });
    rec.clear(next);
    rec.copy(this.vertices, next, this.vertexCapacity * VERTEX_WORDS);
    await rec.submit();
    this.vertices.destroy();
    this.vertices = next;
    this.vertexCapacity = capacity;
  }

  /** Grows the slab pool: slabs (new ones EMPTY), values and the free list are copied. */
  async growSlabs(capacity: number) {
    const d = this.device;
    if (capacity > this.maxSlabs) this.#poolLimit(capacity);
    const old = this.slabCapacity;
    const slabs = d.array('u32', capacity * SLAB_WORDS, { label: 'dynamic slabs' });
    const values = this.withValues
      ? d.array('u32', capacity * SLAB_WORDS, { label: 'dynamic values' })
      : undefined;
    const freeList = d.array('u32', 2 * capacity, { label: 'dynamic free list' });
    const rec = d.recorder({ label: 'dynamic grow slabs' });
    await rec.fill(slabs, 0xffffffff);
    rec.copy(this.slabs, slabs, old * SLAB_WORDS);
    if (values) rec.copy(this.values, values, old * SLAB_WORDS);
    rec.copy(this.freeList, freeList, old);
    await rec.submit();
    this.slabs.destroy();
    this.slabs = slabs;
    if (values) {
      this.values.destroy();
      this.values = values;
    }
    this.freeList.destroy();
    this.freeList = freeList;
    this.slabCapacity = capacity;
  }

  /**
   * Makes room for `extra` more slabs from the bump pointer. The host bound avoids a read-back per batch;
   * when it says the pool may be full, the real bump pointer is read and the pool grows. Returns false when
   * the pool only grew to a realistic size, not to the worst case (one slab per key): the caller must then
   * run the batch through {@link afterCheckedBatch}. `exact` demands the worst case (base buckets).
   */
  async reserve(extra: number, recorder: Recorder | undefined, exact: boolean): Promise<boolean> {
    if (this.#bumpBound + extra <= this.slabCapacity) {
      this.#bumpBound += extra;
      return true;
    }
    if (recorder) {
      throw new InputError(
        `the batch may need ${extra} new slabs and the pool may be full: call reserveSlabs() before recording, or pass maxNewSlabs`,
        'DynamicGraph batch',
      );
    }
    const a = await this.alloc.download();
    if (a[A_OVERFLOW] !== 0) throw new WeftError('the slab pool overflowed during an earlier recorded batch');
    const bump = a[A_BUMP]!;
    const need = bump + extra;
    const grow = (want: number) =>
      this.growSlabs(Math.min(this.maxSlabs, Math.max(want, this.slabCapacity * 2)));
    if (need > this.slabCapacity && exact) {
      if (need > this.maxSlabs) this.#poolLimit(need);
      await grow(need);
    } else if (need > this.slabCapacity) {
      // The worst case counts one slab per key, but keys pack KEY_SLOTS to a slab: grow only when even
      // twice the packed estimate does not fit, and let the caller catch an overflow.
      const estimate = bump + Math.ceil(extra * this.slabsPerKeyEstimate) + 64;
      if (estimate > this.slabCapacity) await grow(estimate);
    }
    this.#bumpBound = Math.min(need, this.slabCapacity);
    return need <= this.slabCapacity;
  }

  /** After a batch whose tables could not all grow for lack of room (`words` read back): the pool doubles. */
  async afterDeniedGrowth(words: Uint32Array) {
    if (words[A_GROWTH_DENIED] === 0 || this.slabCapacity >= this.maxSlabs) return;
    this.alloc.upload([0], A_GROWTH_DENIED);
    await this.growSlabs(Math.min(this.maxSlabs, this.slabCapacity * 2));
  }

  /** Slabs a batch that may take `extra` (one a key) is likely to need: twice the keys packed into slabs. */
  likelyNeed(extra: number): number {
    return Math.min(extra, Math.ceil(extra * this.slabsPerKeyEstimate) + 64);
  }

  /** Upper bound of the bump pointer once the recorded and reserved work has run. */
  get bumpBound(): number {
    return this.#bumpBound;
  }

  /**
   * After a batch that ran without a guarantee: true when it fitted. Otherwise (some insertions were left
   * out) the flag is cleared and the pool doubled, and the caller runs the batch again. `words`: the
   * allocator state, when the caller has just read it back.
   */
  async afterCheckedBatch(words?: Uint32Array): Promise<boolean> {
    const a = words ?? (await this.alloc.download());
    this.#bumpBound = a[A_BUMP]!;
    if (a[A_OVERFLOW] === 0) return true;
    this.alloc.upload([0], A_OVERFLOW);
    if (this.slabCapacity >= this.maxSlabs) this.#poolLimit(this.slabCapacity + 1);
    await this.growSlabs(Math.min(this.maxSlabs, this.slabCapacity * 2));
    return false;
  }

  /** Throws if a kernel ever ran out of slabs. */
  async checkOverflow() {
    const a = await this.alloc.download();
    if (a[A_OVERFLOW] !== 0) {
      throw new WeftError('the slab pool overflowed during a recorded batch: some edges were not inserted');
    }
  }

  destroy() {
    for (const a of [this.slabs, this.values, this.freeList, this.alloc, this.vertices]) a.destroy();
  }

  #poolLimit(slabs: number): never {
    throw new DeviceLimitError(
      'dynamic graph slab pool',
      slabs * SLAB_WORDS * 4,
      'maxStorageBufferBindingSize',
      this.device.limits.maxStorageBufferBindingSize,
    );
  }
}
