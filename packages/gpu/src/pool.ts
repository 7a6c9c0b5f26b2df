/** What a pooled buffer is for; each kind has its own usage flags and free lists. */
export type BufferKind = 'storage' | 'indirect' | 'uniform' | 'readback';

function usageOf(kind: BufferKind): GPUBufferUsageFlags {
  // Numeric flags (the GPUBufferUsage global may be missing before a Node adapter is created).
  const MAP_READ = 0x1;
  const COPY_SRC = 0x4;
  const COPY_DST = 0x8;
  const UNIFORM = 0x40;
  const STORAGE = 0x80;
  const INDIRECT = 0x100;
  switch (kind) {
    case 'storage':
      return STORAGE | COPY_SRC | COPY_DST;
    case 'indirect':
      return STORAGE | COPY_SRC | COPY_DST | INDIRECT;
    case 'uniform':
      return UNIFORM | COPY_DST;
    case 'readback':
      return MAP_READ | COPY_DST;
  }
}

/**
 * Size class of a request: quarter steps between powers of two (at most 25% waste), at least 256 bytes.
 * Repeated runs of a primitive at similar sizes then reuse the same buffers instead of reallocating.
 */
export function sizeClass(bytes: number): number {
  if (bytes <= 256) return 256;
  const pow = 2 ** Math.floor(Math.log2(bytes));
  for (const step of [1, 1.25, 1.5, 1.75, 2]) {
    const size = Math.ceil((pow * step) / 256) * 256;
    if (size >= bytes) return size;
  }
  return pow * 2;
}

/**
 * A pool of GPU buffers in size classes. Reusing a released buffer in a later submit is safe without
 * waiting because the queue executes submits in order. Pooled memory is not zeroed: each primitive
 * clears the scratch it needs cleared.
 */
export class BufferPool {
  readonly #device: GPUDevice;
  readonly #free = new Map<string, GPUBuffer[]>();
  readonly #keyOf = new WeakMap<GPUBuffer, string>();
  #freeBytes = 0;
  #liveBytes = 0;
  #freeBuffers = 0;
  #liveBuffers = 0;

  constructor(
    device: GPUDevice,
    readonly maxBufferSize: number,
    /** Released buffers beyond this many bytes are destroyed instead of kept. */
    readonly maxFreeBytes = 2 ** 31,
  ) {
    this.#device = device;
  }

  acquire(bytes: number, kind: BufferKind, label: string): GPUBuffer {
    let size = sizeClass(bytes);
    if (size > this.maxBufferSize) size = Math.max(16, Math.ceil(bytes / 16) * 16);
    const key = `${kind}:${size}`;
    const list = this.#free.get(key);
    const reused = list?.pop();
    if (reused) {
      this.#freeBytes -= size;
      this.#liveBytes += size;
      this.#freeBuffers--;
      this.#liveBuffers++;
      reused.label = label;
      return reused;
    }
    const buffer = this.#device.createBuffer({ size, usage: usageOf(kind), label });
    this.#keyOf.set(buffer, key);
    this.#liveBytes += size;
    this.#liveBuffers++;
    return buffer;
  }

  release(buffer: GPUBuffer): void {
    const key = this.#keyOf.get(buffer);
    if (key === undefined) {
      buffer.destroy();
      return;
    }
    this.#liveBytes -= buffer.size;
    this.#liveBuffers--;
    if (this.#freeBytes + buffer.size > this.maxFreeBytes) {
      buffer.destroy();
      return;
    }
    let list = this.#free.get(key);
    if (!list) {
      list = [];
      this.#free.set(key, list);
    }
    list.push(buffer);
    this.#freeBytes += buffer.size;
    this.#freeBuffers++;
  }

  /** Destroys every free buffer. */
  trim(): void {
    for (const list of this.#free.values()) for (const b of list) b.destroy();
    this.#free.clear();
    this.#freeBytes = 0;
    this.#freeBuffers = 0;
  }

  /** Bytes and buffers handed out and not released (live), and kept for reuse (free). */
  get stats(): { liveBytes: number; freeBytes: number; liveBuffers: number; freeBuffers: number } {
    return {
      liveBytes: this.#liveBytes,
      freeBytes: this.#freeBytes,
      liveBuffers: this.#liveBuffers,
      freeBuffers: this.#freeBuffers,
    };
  }
}
