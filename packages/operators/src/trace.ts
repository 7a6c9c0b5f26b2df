import {
  atomic,
  type Count,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  isGpuCount,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import type { FrontierView } from '@weft/graph';

/** Per-iteration figures of a traced run (a diagnostic run: it submits one iteration at a time). */
export interface IterationTrace {
  /** Input frontier length per iteration. */
  frontier: number[];
  /**
   * Edges inspected per iteration: the sum of out-degrees of the input frontier for push advances. Where an
   * algorithm pulls, it says what it counts (BFS: an upper bound, the in-degrees of the unvisited vertices).
   */
  edges: number[];
  /** GPU time per iteration in ms from timestamp queries, when the device has timestamps. */
  timesMs?: number[];
}

/** Iterations per log chunk: chunks are allocated as iterations reach them, so no bound is needed up front. */
const CHUNK = 1024;

/**
 * A GPU-resident log of per-iteration counts: each iteration records its input frontier length and an
 * edge count into two words of a small array (`[frontier, edges]` per iteration), with no read-back until
 * {@link IterationLog.read}. The edge count is a degree sum by one atomic add per frontier vertex, wrapping
 * past 2^32 (a frontier with duplicates can exceed the edge count).
 */
export class IterationLog {
  readonly #chunks: DeviceArray<'u32'>[] = [];

  constructor(readonly device: WeftDevice) {}

  /** The two words of iteration `iteration` on the GPU (for steps that count edges their own way). */
  slot(iteration: number): { frontier: GpuCount; edges: GpuCount } {
    if (!Number.isInteger(iteration) || iteration < 0) {
      throw new InputError(`iteration must be a non-negative integer, got ${iteration}`, 'iteration');
    }
    const c = Math.floor(iteration / CHUNK);
    while (this.#chunks.length <= c) {
      this.#chunks.push(this.device.array('u32', 2 * CHUNK, { label: 'iteration log' }));
    }
    const array = this.#chunks[c]!;
    const index = 2 * (iteration % CHUNK);
    return { frontier: { array, index }, edges: { array, index: index + 1 } };
  }

  /** Records iteration `iteration`'s frontier length (`frontier`) and `edges` (plain values or GPU words). */
  async recordCounts(rec: Recorder, iteration: number, frontier: Count, edges: Count): Promise<void> {
    const { frontier: f, edges: e } = this.slot(iteration);
    const word = (c: Count) =>
      isGpuCount(c)
        ? wgsl`() -> u32 { return ${c.array}[${u32(c.index)}]; }`
        : wgsl`() -> u32 { return ${u32(c)}; }`;
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  ${rw(f.array)}[${u32(f.index)}] = ${word(frontier)}();
  ${rw(e.array)}[${u32(e.index)}] = ${word(edges)}();
}`,
    );
  }

  /**
   * Records iteration `iteration`'s input frontier: its length, and the sum of its vertices' degrees in
   * `offsets` (a CSR's or CSC's offsets: the edges a push advance over it inspects).
   */
  async recordFrontier(
    rec: Recorder,
    iteration: number,
    input: FrontierView,
    offsets: DeviceArray<'u32'>,
  ): Promise<void> {
    await this.recordCounts(rec, iteration, input.length, 0);
    await this.addDegrees(rec, this.slot(iteration).edges, input, offsets);
  }

  /** Adds the degree sum of `input`'s vertices in `offsets` to the word `to`. */
  async addDegrees(
    rec: Recorder,
    to: GpuCount,
    input: FrontierView | { all: number; where?: Functor },
    offsets: DeviceArray<'u32'>,
  ): Promise<void> {
    const add = wgsl`(v: u32) {
  let d = ${offsets}[v + 1u] - ${offsets}[v];
  if (d != 0u) { atomicAdd(&${atomic(to.array)}[${u32(to.index)}], d); }
}`;
    if ('all' in input) {
      const where = input.where ?? wgsl`(v: u32) -> bool { return true; }`;
      await transform(rec, input.all, wgsl`(v: u32) { if (${where}(v)) { ${add}(v); } }`);
    } else {
      await transform(rec, input.length, wgsl`(i: u32) { ${add}(${input.items}[i]); }`);
    }
  }

  /** Reads the first `iterations` entries back (one download per 1024 iterations). */
  async read(iterations: number): Promise<Pick<IterationTrace, 'frontier' | 'edges'>> {
    const frontier: number[] = [];
    const edges: number[] = [];
    for (let c = 0; c * CHUNK < iterations; c++) {
      const chunk = this.#chunks[c];
      const count = Math.min(CHUNK, iterations - c * CHUNK);
      if (!chunk) throw new InputError(`iteration ${c * CHUNK} was never recorded`, 'iterations');
      const words = await chunk.download(0, 2 * count);
      for (let i = 0; i < count; i++) {
        frontier.push(words[2 * i]!);
        edges.push(words[2 * i + 1]!);
      }
    }
    return { frontier, edges };
  }

  destroy(): void {
    for (const c of this.#chunks) c.destroy();
    this.#chunks.length = 0;
  }
}
