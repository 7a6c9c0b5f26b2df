import { checkOptionsObject, InputError, WeftError } from '@weft/gpu';
import type { HostCsr } from '../host-graph.ts';
import { MAX_VERTEX_COUNT } from '../host-graph.ts';
import { crc32 } from './crc32.ts';
import type { ByteSource } from './lines.ts';

/*
 * The .wcsr format, all little-endian:
 *   0  magic     8 bytes "WEFTCSR\0"
 *   8  version   u32 = 1
 *  12  flags     u32: bit 0 weighted, bit 1 directed, bits 2-3 weight type (0 f32, 1 u32, 2 i32); others 0
 *  16  vertices  u64 (n)
 *  24  edges     u64 (m)
 *  32  offsets   (n + 1) x u32
 *      targets   m x u32
 *      weights   m x 4 bytes, when weighted
 *      checksum  u32: CRC-32 (IEEE) of every byte before it, header included
 */
const MAGIC = [0x57, 0x45, 0x46, 0x54, 0x43, 0x53, 0x52, 0x00];
export const BINARY_CSR_VERSION = 1;
const HEADER_BYTES = 32;
const WEIGHT_TYPES = ['f32', 'u32', 'i32'] as const;

function checkLittleEndian(): void {
  if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) {
    throw new WeftError('.wcsr files are little-endian and this host is big-endian');
  }
}

function weightTypeIndex(w: NonNullable<HostCsr['weights']>): number {
  if (w instanceof Float32Array) return 0;
  if (w instanceof Uint32Array) return 1;
  return 2;
}

/** Bytes of a .wcsr file holding `csr`. */
export function writeBinaryCsr(csr: HostCsr): Uint8Array {
  checkLittleEndian();
  const n = csr.vertexCount;
  const m = csr.edgeCount;
  if (csr.offsets.length !== n + 1 || csr.targets.length !== m || (csr.weights && csr.weights.length !== m)) {
    throw new InputError('array lengths do not match vertexCount and edgeCount', 'csr');
  }
  const weighted = csr.weights !== undefined;
  const total = HEADER_BYTES + 4 * (n + 1) + 4 * m * (weighted ? 2 : 1) + 4;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, BINARY_CSR_VERSION, true);
  const flags =
    (weighted ? 1 : 0) | (csr.directed ? 2 : 0) | (weighted ? weightTypeIndex(csr.weights!) << 2 : 0);
  view.setUint32(12, flags, true);
  view.setBigUint64(16, BigInt(n), true);
  view.setBigUint64(24, BigInt(m), true);
  let at = HEADER_BYTES;
  for (const a of [csr.offsets, csr.targets, csr.weights]) {
    if (a === undefined) continue;
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  view.setUint32(at, crc32(0, out.subarray(0, at)), true);
  return out;
}

export interface BinaryCsrOptions {
  /** Names the source in errors. */
  name?: string;
  /** The file's size when known: checked against the header before any array is allocated. */
  byteLength?: number;
}

/** Where a section's bytes go as they arrive. */
export interface SectionSink {
  /** May return a promise: the reader waits for it before the next piece (a sink that pauses for the GPU). */
  write(piece: Uint8Array): void | Promise<void>;
}

/**
 * One array of the file, filled as its bytes arrive. Storage grows with what has been read, so a corrupt header
 * that claims billions of vertices costs nothing until the bytes are really there.
 */
export class Section implements SectionSink {
  #bytes = new Uint8Array(0);
  filled = 0;

  /** `length`: the byte length the header implies. */
  constructor(readonly length: number) {}

  write(piece: Uint8Array): void {
    if (this.filled + piece.length > this.#bytes.length) {
      const grown = new Uint8Array(
        Math.min(this.length, Math.max(2 * this.#bytes.length, this.filled + piece.length, 1 << 16)),
      );
      grown.set(this.#bytes.subarray(0, this.filled));
      this.#bytes = grown;
    }
    this.#bytes.set(piece, this.filled);
    this.filled += piece.length;
  }

  /** The complete section (call once `filled === length`): its own buffer, exactly `length` bytes. */
  get buffer(): ArrayBuffer {
    return this.#bytes.buffer as ArrayBuffer;
  }
}

/** What a .wcsr header says. */
export interface BinaryCsrHeader {
  vertexCount: number;
  edgeCount: number;
  directed: boolean;
  weightType: (typeof WEIGHT_TYPES)[number] | undefined;
  /** File offset of the targets' first byte. */
  targetsAt: number;
}

/** Throws the reader's one-line error for byte `byte` of the source called `name`. */
export function binaryCsrFailure(name: string): (byte: number, reason: string) => never {
  return (byte, reason) => {
    throw new InputError(reason, `${name}: byte ${byte}`);
  };
}

/** Bytes of a .wcsr header: what {@link binaryCsrHeader} reads. */
export const BINARY_CSR_HEADER_BYTES = HEADER_BYTES;

/**
 * Reads a .wcsr file's first 32 bytes (magic, version, flags, sizes) and checks them, and the file's size
 * against them when `options.byteLength` is given; errors name the byte as `readBinaryCsr`'s do.
 */
export function binaryCsrHeader(header: Uint8Array, options: BinaryCsrOptions = {}): BinaryCsrHeader {
  checkOptionsObject('binaryCsrHeader', options);
  checkLittleEndian();
  const fail = binaryCsrFailure(options.name ?? 'binary CSR input');
  if (header.length < HEADER_BYTES)
    fail(header.length, `the file ends inside the ${HEADER_BYTES}-byte header`);
  const view = new DataView(header.buffer, header.byteOffset, HEADER_BYTES);
  for (let i = 0; i < MAGIC.length; i++) if (header[i] !== MAGIC[i]) fail(i, 'bad magic: not a .wcsr file');
  const version = view.getUint32(8, true);
  if (version !== BINARY_CSR_VERSION)
    fail(8, `unsupported version ${version} (this reader knows ${BINARY_CSR_VERSION})`);
  const flags = view.getUint32(12, true);
  const weighted = (flags & 1) !== 0;
  const typeIndex = (flags >>> 2) & 3;
  if (flags >>> 4 !== 0 || typeIndex > 2 || (!weighted && typeIndex !== 0))
    fail(12, `bad flags 0x${flags.toString(16)}`);
  const n = view.getBigUint64(16, true);
  const m = view.getBigUint64(24, true);
  if (n > BigInt(MAX_VERTEX_COUNT)) fail(16, `vertex count ${n} exceeds the u32 id range`);
  if (m > 0xffffffffn) fail(24, `edge count ${m} exceeds the u32 offset range`);
  const vertexCount = Number(n);
  const edgeCount = Number(m);
  const total = HEADER_BYTES + 4 * (vertexCount + 1) + 4 * edgeCount * (weighted ? 2 : 1) + 4;
  if (options.byteLength !== undefined && options.byteLength !== total) {
    fail(16, `the header implies ${total} bytes but the file has ${options.byteLength}`);
  }
  return {
    vertexCount,
    edgeCount,
    directed: (flags & 2) !== 0,
    weightType: weighted ? WEIGHT_TYPES[typeIndex] : undefined,
    targetsAt: HEADER_BYTES + 4 * (vertexCount + 1),
  };
}

/**
 * Streams a .wcsr file: checks the header (magic, version, flags, sizes, `byteLength`), hands each array's
 * bytes to the sinks `open(header)` returns (offsets, targets, then weights when weighted) as they arrive, and
 * checks the length and the CRC-32 at the end. Errors name the byte offset; the sinks validate values.
 */
export async function streamBinaryCsr(
  source: ByteSource,
  options: BinaryCsrOptions,
  open: (header: BinaryCsrHeader) => SectionSink[],
): Promise<BinaryCsrHeader> {
  checkLittleEndian();
  const fail = binaryCsrFailure(options.name ?? 'binary CSR input');
  const header = new Uint8Array(HEADER_BYTES);
  let position = 0;
  let crc = 0;
  let total = -1;
  let lengths: number[] = [];
  let sinks: SectionSink[] = [];
  const stored = new Section(4);
  let section = 0;
  let filled = 0;
  let parsed: BinaryCsrHeader | undefined;

  const startSections = () => {
    const h = binaryCsrHeader(header, options);
    const weighted = h.weightType !== undefined;
    total = h.targetsAt + 4 * h.edgeCount * (weighted ? 2 : 1) + 4;
    parsed = h;
    lengths = [4 * (h.vertexCount + 1), 4 * h.edgeCount, ...(weighted ? [4 * h.edgeCount] : []), 4];
    sinks = [...open(h), stored];
  };

  for await (const chunk of source) {
    let i = 0;
    while (i < chunk.length) {
      if (position < HEADER_BYTES) {
        const take = Math.min(HEADER_BYTES - position, chunk.length - i);
        header.set(chunk.subarray(i, i + take), position);
        position += take;
        i += take;
        if (position === HEADER_BYTES) {
          crc = crc32(crc, header);
          startSections();
        }
        continue;
      }
      // Zero-length sections (no edges) end as soon as they start.
      while (lengths[section] === 0) section++;
      if (section >= lengths.length)
        fail(position, `extra bytes after the checksum (the header implies ${total} bytes)`);
      const take = Math.min(lengths[section]! - filled, chunk.length - i);
      const piece = chunk.subarray(i, i + take);
      await sinks[section]!.write(piece);
      if (section < lengths.length - 1) crc = crc32(crc, piece);
      position += take;
      i += take;
      filled += take;
      if (filled === lengths[section]) {
        section++;
        filled = 0;
      }
    }
  }
  if (position < HEADER_BYTES) {
    return fail(position, `the file ends inside the ${HEADER_BYTES}-byte header`);
  }
  if (position < total)
    fail(position, `the file ends at byte ${position} but the header implies ${total} bytes`);
  const want = new DataView(stored.buffer).getUint32(0, true);
  if (want !== crc) {
    fail(
      total - 4,
      `checksum mismatch: stored 0x${want.toString(16)}, computed 0x${crc.toString(16)} (corrupt file)`,
    );
  }
  return parsed!;
}

/** Checks CSR offsets as the reader does: from 0, never decreasing, ending at the edge count. */
export function checkBinaryCsrOffsets(
  offsets: Uint32Array,
  edgeCount: number,
  fail: (byte: number, reason: string) => never,
): void {
  const n = offsets.length - 1;
  if (offsets[0] !== 0) fail(HEADER_BYTES, `offsets[0] is ${offsets[0]}, expected 0`);
  for (let v = 0; v < n; v++) {
    if (offsets[v + 1]! < offsets[v]!) {
      fail(
        HEADER_BYTES + 4 * (v + 1),
        `offsets[${v + 1}] = ${offsets[v + 1]} is below offsets[${v}] = ${offsets[v]}`,
      );
    }
  }
  if (offsets[n] !== edgeCount)
    fail(HEADER_BYTES + 4 * n, `offsets[${n}] is ${offsets[n]}, expected the edge count ${edgeCount}`);
}

/** The first target at or past the vertex count in `targets` (element `first` onwards), as an error reason. */
export function badTarget(
  targets: Uint32Array,
  first: number,
  vertexCount: number,
): [number, string] | undefined {
  for (let e = 0; e < targets.length; e++) {
    if (targets[e]! >= vertexCount)
      return [
        first + e,
        `targets[${first + e}] = ${targets[e]} is not below the vertex count ${vertexCount}`,
      ];
  }
  return undefined;
}

/**
 * Reads a .wcsr file chunk by chunk and validates all of it: magic, version, flags, sizes, checksum,
 * offsets (start at 0, never decrease, end at the edge count) and targets (below the vertex count).
 * Errors name the byte offset.
 */
export async function readBinaryCsr(source: ByteSource, options: BinaryCsrOptions = {}): Promise<HostCsr> {
  checkOptionsObject('readBinaryCsr', options);
  const fail = binaryCsrFailure(options.name ?? 'binary CSR input');
  let sections: Section[] = [];
  const header = await streamBinaryCsr(source, options, (h) => {
    const lengths = [4 * (h.vertexCount + 1), 4 * h.edgeCount, ...(h.weightType ? [4 * h.edgeCount] : [])];
    sections = lengths.map((length) => new Section(length));
    return sections;
  });
  const { vertexCount: n, edgeCount: m, weightType } = header;
  const csr: HostCsr = {
    vertexCount: n,
    edgeCount: m,
    offsets: new Uint32Array(sections[0]!.buffer),
    targets: new Uint32Array(sections[1]!.buffer),
    directed: header.directed,
  };
  if (weightType !== undefined) {
    const buffer = sections[2]!.buffer;
    csr.weights =
      weightType === 'f32'
        ? new Float32Array(buffer)
        : weightType === 'u32'
          ? new Uint32Array(buffer)
          : new Int32Array(buffer);
  }
  checkBinaryCsrOffsets(csr.offsets, m, fail);
  const bad = badTarget(csr.targets, 0, n);
  if (bad) fail(header.targetsAt + 4 * bad[0], bad[1]);
  return csr;
}
