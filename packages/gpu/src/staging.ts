import type { WeftDevice } from './device.ts';
import { InputError } from './errors.ts';

/** `'read'`: copied into by the GPU, read by the host; `'write'`: written by the host, copied out by the GPU. */
export type StagingMode = 'read' | 'write';

/**
 * A host-mappable buffer of `length` 32-bit words kept across the steps of a loop whose data crosses the
 * host every step (the exchanges of a graph partitioned across devices). A `'read'` buffer receives
 * `Recorder.copy`s from device arrays and is then mapped to read; a `'write'` buffer (mapped from creation)
 * is filled on the host and copied into device arrays by a later submit, then mapped again. Unlike
 * `download()` and `upload()`, a step allocates no buffer and no host array: the host reads and writes the
 * mapped memory itself, so one device's read-back goes into another's upload in one host copy.
 */
export class StagingBuffer {
  readonly buffer: GPUBuffer;
  #mapped: ArrayBuffer | undefined;

  constructor(
    readonly device: WeftDevice,
    readonly length: number,
    readonly mode: StagingMode,
    readonly label = 'weft staging',
  ) {
    if (!Number.isSafeInteger(length) || length < 0) {
      throw new InputError(`length must be a non-negative integer, got ${length}`, `staging '${label}'`);
    }
    if (mode !== 'read' && mode !== 'write') {
      throw new InputError(`mode must be 'read' or 'write', got '${mode}'`, `staging '${label}'`);
    }
    device.checkAlive();
    const MAP_READ = 0x1;
    const MAP_WRITE = 0x2;
    const COPY_SRC = 0x4;
    const COPY_DST = 0x8;
    this.buffer = device.device.createBuffer({
      size: Math.max(4, 4 * length),
      usage: mode === 'read' ? MAP_READ | COPY_DST : MAP_WRITE | COPY_SRC,
      mappedAtCreation: mode === 'write',
      label,
    });
    if (mode === 'write') this.#mapped = this.buffer.getMappedRange();
  }

  /** Maps the buffer for the host once the submitted work that copies into or out of it is done. */
  async map(): Promise<void> {
    if (this.#mapped) return;
    await this.device.guard(this.buffer.mapAsync(this.mode === 'read' ? 0x1 : 0x2));
    this.#mapped = this.buffer.getMappedRange();
  }

  get mapped(): boolean {
    return this.#mapped !== undefined;
  }

  /** The mapped words as u32 (a view valid until `unmap()`). */
  get words(): Uint32Array {
    return new Uint32Array(this.#range());
  }

  /** The mapped words as f32 (a view valid until `unmap()`). */
  get floats(): Float32Array {
    return new Float32Array(this.#range());
  }

  #range(): ArrayBuffer {
    if (!this.#mapped) {
      throw new InputError('the staging buffer is not mapped: await map() first', `staging '${this.label}'`);
    }
    return this.#mapped;
  }

  /** Hands the memory back to the GPU: views of it are detached, and submits may copy it again. */
  unmap(): void {
    if (!this.#mapped) return;
    this.#mapped = undefined;
    this.buffer.unmap();
  }

  destroy(): void {
    this.#mapped = undefined;
    this.buffer.destroy();
  }
}
