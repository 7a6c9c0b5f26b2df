import {
  type ChunkedArray,
  checkOptionsObject,
  type DeviceArray,
  InputError,
  type WeftDevice,
} from '@weft/gpu';
import { recordCsc } from './device-build-csc.ts';
import { type DeviceCsc, DeviceGraph, hostMaxOutDegree, type WeightElementType } from './device-graph.ts';
import {
  type BinaryCsrOptions,
  badTarget,
  binaryCsrFailure,
  checkBinaryCsrOffsets,
  Section,
  type SectionSink,
  streamBinaryCsr,
} from './io/binary-csr.ts';
import type { ByteSource } from './io/lines.ts';

export interface UploadBinaryCsrOptions extends BinaryCsrOptions {
  /**
   * Also build the in-edge view, on the GPU (default false; needed by pulls and in-edge walks of a directed
   * graph). Only for targets held in one binding: a chunked directed graph with `csc` is refused.
   */
  csc?: boolean;
  /** @internal Bytes staged per upload, a multiple of 4 (tests shrink it to cross stage boundaries). */
  stageBytes?: number;
}

/** A .wcsr file on the GPU, with the host copy of its row offsets (small: one word a vertex). */
export interface BinaryCsrUpload {
  graph: DeviceGraph;
  offsets: Uint32Array;
}

/** Bytes gathered before one upload: whole words, and few enough writes for a file of billions of arcs. */
const STAGE_BYTES = 1 << 24;
/** Stages queued between waits for the GPU (256 MiB at the default stage), so staging copies do not pile up. */
const STAGES_PER_WAIT = 16;

/**
 * Streams a column's bytes into a chunked device array through a staging buffer of whole words, checking
 * each staged piece with `check` (element index of its first word) before it is queued.
 */
class ColumnSink implements SectionSink {
  readonly #stage: Uint8Array;
  #staged = 0;
  /** Elements queued so far. */
  #written = 0;
  #sinceWait = 0;

  constructor(
    readonly array: ChunkedArray<'u32' | 'i32' | 'f32'>,
    readonly check: (words: Uint32Array, first: number) => void,
    stageBytes: number,
  ) {
    this.#stage = new Uint8Array(stageBytes);
  }

  async write(piece: Uint8Array): Promise<void> {
    let i = 0;
    while (i < piece.length) {
      const take = Math.min(this.#stage.length - this.#staged, piece.length - i);
      this.#stage.set(piece.subarray(i, i + take), this.#staged);
      this.#staged += take;
      i += take;
      if (this.#staged === this.#stage.length) await this.flush();
    }
  }

  /**
   * Queues the staged words (the section's length is whole words, so the last flush is too); every
   * `STAGES_PER_WAIT` stages it waits for the queue, so the engine's staging copies of a huge file do not pile up.
   */
  async flush(): Promise<void> {
    const words = this.#staged >>> 2;
    if (words === 0) return;
    const bits = new Uint32Array(this.#stage.buffer, 0, words);
    this.check(bits, this.#written);
    const typed =
      this.array.type === 'f32'
        ? new Float32Array(this.#stage.buffer, 0, words)
        : this.array.type === 'i32'
          ? new Int32Array(this.#stage.buffer, 0, words)
          : bits;
    this.array.upload(typed, this.#written);
    this.#written += words;
    this.#staged = 0;
    this.#sinceWait += 4 * words;
    if (this.#sinceWait >= STAGES_PER_WAIT * this.#stage.length) {
      this.#sinceWait = 0;
      await this.array.device.device.queue.onSubmittedWorkDone();
    }
  }
}

/**
 * Streams a .wcsr file (see `readBinaryCsr`) straight into a {@link DeviceGraph}: the targets and weights go
 * to the GPU in pieces as they are read, in chunks beyond one binding (`device.bindingBudget`), so no host
 * copy of the edges is made; the row offsets are kept on the host too. Validated exactly as `readBinaryCsr`
 * validates (magic, version, sizes, checksum, offsets, targets below the vertex count), with the same
 * one-line errors naming the byte; on any error nothing stays allocated. Give `byteLength` when known
 * (`loadGraph` does) so that a corrupt header is refused before the device arrays are allocated.
 */
export async function uploadBinaryCsr(
  device: WeftDevice,
  source: ByteSource,
  options: UploadBinaryCsrOptions = {},
): Promise<BinaryCsrUpload> {
  checkOptionsObject('uploadBinaryCsr', options);
  const name = options.name ?? 'binary CSR input';
  const fail = binaryCsrFailure(name);
  const stage = options.stageBytes ?? STAGE_BYTES;
  if (!(Number.isInteger(stage) && stage >= 4 && stage % 4 === 0)) {
    throw new InputError(`stageBytes must be a positive multiple of 4, got ${stage}`, 'stageBytes');
  }
  const made: (DeviceArray | ChunkedArray)[] = [];
  const sinks: ColumnSink[] = [];
  let offsets: Section | undefined;
  let firstBad: [number, string] | undefined;
  try {
    const header = await streamBinaryCsr(source, options, (h) => {
      const chunked = h.vertexCount > 0 && h.edgeCount > device.bindingBudget / 4;
      if (options.csc && h.directed && chunked) {
        throw new InputError(
          `the in-edge view of ${h.edgeCount} arcs needs its targets in one binding; load without csc`,
          'csc',
        );
      }
      offsets = new Section(4 * (h.vertexCount + 1));
      const column = (type: 'u32' | WeightElementType, label: string) => {
        const a = device.chunkedArray(type, h.edgeCount, { label });
        made.push(a);
        return a;
      };
      const targets = new ColumnSink(
        column('u32', 'graph column indices'),
        (words, first) => {
          firstBad ??= badTarget(words, first, h.vertexCount);
        },
        stage,
      );
      sinks.push(targets);
      if (h.weightType) {
        sinks.push(new ColumnSink(column(h.weightType, 'graph edge weights'), () => {}, stage));
      }
      return [offsets, ...sinks];
    });
    for (const s of sinks) await s.flush();
    const n = header.vertexCount;
    const hostOffsets = new Uint32Array(offsets!.buffer);
    checkBinaryCsrOffsets(hostOffsets, header.edgeCount, fail);
    if (firstBad) fail(header.targetsAt + 4 * firstBad[0], firstBad[1]);
    const deviceOffsets = device.upload(hostOffsets, { label: 'graph row offsets' });
    made.push(deviceOffsets);
    const targets = sinks[0]!.array as ChunkedArray<'u32'>;
    let csc: DeviceCsc | undefined;
    if (options.csc && header.directed) {
      const rec = device.recorder({ label: 'wcsr in-edges' });
      csc = await recordCsc(rec, {
        vertexCount: n,
        edgeCount: header.edgeCount,
        offsets: deviceOffsets,
        targets: targets.single!,
      });
      made.push(csc.inOffsets, csc.sources, csc.inEdgeIds);
      await rec.submit();
    }
    const graph = new DeviceGraph(
      device,
      n,
      header.edgeCount,
      header.directed,
      deviceOffsets,
      targets,
      sinks[1]?.array as ChunkedArray<WeightElementType> | undefined,
      csc,
      hostMaxOutDegree(hostOffsets, n),
    );
    return { graph, offsets: hostOffsets };
  } catch (e) {
    for (const a of made) a.destroy();
    throw e;
  }
}
