/**
 * Node.js file helpers, the file side of `@weft/graph/io`: open a path as a chunk stream, pick the parser or writer
 * from the extension.
 *
 * @module @weft/graph/node
 */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { totalmem } from 'node:os';
import { basename, extname } from 'node:path';
import { checkOptionsObject, DeviceLimitError, InputError, type WeftDevice } from '@weft/gpu';
import { type BuildOptions, type BuildReport, hostCsrFromEdgeList } from './host-build.ts';
import type { HostCsr, HostEdgeList } from './host-graph.ts';
import {
  BINARY_CSR_HEADER_BYTES,
  type BinaryCsrHeader,
  binaryCsrHeader,
  readBinaryCsr,
  writeBinaryCsr,
} from './io/binary-csr.ts';
import { parseDimacs } from './io/dimacs.ts';
import { type EdgeListOptions, parseEdgeList } from './io/edge-list.ts';
import { parseMatrixMarket } from './io/matrix-market.ts';
import { dimacsChunks, edgeListChunks, matrixMarketChunks } from './io/text-writers.ts';
import type { WeightType } from './io/weights.ts';
import { type BinaryCsrUpload, type UploadBinaryCsrOptions, uploadBinaryCsr } from './upload-binary-csr.ts';

export type GraphFileFormat = 'mtx' | 'edgelist' | 'dimacs' | 'wcsr';

const EXTENSIONS: Record<string, GraphFileFormat> = {
  '.mtx': 'mtx',
  '.txt': 'edgelist',
  '.el': 'edgelist',
  '.wel': 'edgelist',
  '.tsv': 'edgelist',
  '.csv': 'edgelist',
  '.edges': 'edgelist',
  '.gr': 'dimacs',
  '.wcsr': 'wcsr',
};

/** The format a path's extension names, or an {@link InputError} listing the known ones. */
export function graphFormatOf(path: string): GraphFileFormat {
  const format = EXTENSIONS[extname(path).toLowerCase()];
  if (format === undefined) {
    throw new InputError(
      `unknown graph file extension '${extname(path)}': use ${Object.keys(EXTENSIONS).join(', ')} or pass format`,
      path,
    );
  }
  return format;
}

/** A file's bytes as a stream of chunks (never the whole file at once). */
export function fileChunks(path: string, chunkSize = 1 << 20): AsyncIterable<Uint8Array> {
  return createReadStream(path, { highWaterMark: chunkSize }) as AsyncIterable<Uint8Array>;
}

/** The header of the .wcsr file at `path` (its first 32 bytes), checked against the file's size. */
export async function binaryCsrFileHeader(path: string): Promise<BinaryCsrHeader> {
  await checkRegularFile(path);
  const { size } = await stat(path);
  const file = await open(path, 'r');
  try {
    const bytes = new Uint8Array(BINARY_CSR_HEADER_BYTES);
    const { bytesRead } = await file.read(bytes, 0, bytes.length, 0);
    return binaryCsrHeader(bytes.subarray(0, bytesRead), { name: basename(path), byteLength: size });
  } finally {
    await file.close();
  }
}

/**
 * Streams the .wcsr file at `path` to the GPU ({@link uploadBinaryCsr}): its edges are never held on the host,
 * so files far larger than the host's memory for arrays load, in chunks beyond one binding.
 */
export async function uploadBinaryCsrFile(
  device: WeftDevice,
  path: string,
  options: Omit<UploadBinaryCsrOptions, 'name' | 'byteLength'> = {},
): Promise<BinaryCsrUpload> {
  checkOptionsObject('uploadBinaryCsrFile', options);
  await checkRegularFile(path);
  const { size } = await stat(path);
  return uploadBinaryCsr(device, fileChunks(path, 1 << 22), {
    ...options,
    name: basename(path),
    byteLength: size,
  });
}

/** `maxBytes` of {@link readGraphFile} and {@link loadGraph} by default: a quarter of the machine's memory. */
export function defaultMaxBytes(): number {
  return Math.floor(totalmem() / 4);
}

/**
 * Options of the text parsers and their budget (`maxBytes` defaults to {@link defaultMaxBytes},
 * the file's size bounds declared entry counts).
 */
export interface ReadGraphOptions extends Omit<EdgeListOptions, 'name' | 'byteLength'> {
  /** Overrides the format the extension implies. */
  format?: GraphFileFormat;
  /** For Matrix Market integer values and edge-list weights. */
  weightType?: WeightType;
}

/** What a file held: an edge list (text formats) or a CSR (.wcsr). */
export type GraphFile =
  | { kind: 'edges'; format: Exclude<GraphFileFormat, 'wcsr'>; edges: HostEdgeList }
  | { kind: 'csr'; format: 'wcsr'; csr: HostCsr };

const BANNER = '%%matrixmarket';

/**
 * The format of the file at `path`: a `%%MatrixMarket` banner makes it Matrix Market whatever the extension
 * (one whose extension names another format is an {@link InputError} naming both, since parsing it as the
 * extension says would misread the banner and the size line as edges), else the extension decides.
 * A missing path or a directory is an {@link InputError}.
 */
export async function detectGraphFormat(path: string): Promise<GraphFileFormat> {
  await checkRegularFile(path);
  const handle = await open(path, 'r');
  let head: string;
  try {
    const bytes = new Uint8Array(3 + BANNER.length);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    head = new TextDecoder().decode(bytes.subarray(start, bytesRead)).toLowerCase();
  } finally {
    await handle.close();
  }
  const byExtension = EXTENSIONS[extname(path).toLowerCase()];
  if (!head.startsWith(BANNER)) return graphFormatOf(path);
  if (byExtension !== undefined && byExtension !== 'mtx') {
    throw new InputError(
      `the file starts with a %%MatrixMarket banner but its extension '${extname(path)}' names ${byExtension}: ` +
        "rename it to .mtx or pass format 'mtx'",
      path,
    );
  }
  return 'mtx';
}

async function checkRegularFile(path: string): Promise<void> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new InputError('no such file', path);
    throw e;
  }
  if (info.isDirectory()) throw new InputError('is a directory, not a graph file', path);
}

/**
 * Reads a graph file as it is stored; errors name the file (by its base name) and line or byte. Without
 * `options.format` the format is {@link detectGraphFormat}'s.
 */
export async function readGraphFile(path: string, options: ReadGraphOptions = {}): Promise<GraphFile> {
  checkOptionsObject('readGraphFile', options);
  const format = options.format ?? (await detectGraphFormat(path));
  if (options.format !== undefined) await checkRegularFile(path);
  if (options.renumber && format !== 'edgelist') {
    throw new InputError(`renumber is for edge lists; a ${format} file numbers its vertices itself`, path);
  }
  const name = basename(path);
  const { format: _, ...rest } = options;
  const { size } = await stat(path);
  const budget = {
    name,
    byteLength: size,
    maxBytes: options.maxBytes ?? defaultMaxBytes(),
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
  };
  switch (format) {
    case 'wcsr': {
      return { kind: 'csr', format, csr: await readBinaryCsr(fileChunks(path), { name, byteLength: size }) };
    }
    case 'mtx': {
      const mm = options.weightType === undefined ? budget : { ...budget, weightType: options.weightType };
      return { kind: 'edges', format, edges: await parseMatrixMarket(fileChunks(path), mm) };
    }
    case 'dimacs':
      return { kind: 'edges', format, edges: await parseDimacs(fileChunks(path), budget) };
    case 'edgelist':
      return { kind: 'edges', format, edges: await parseEdgeList(fileChunks(path), { ...rest, ...budget }) };
    default:
      throw new InputError(`unknown format '${format as string}'`, 'options.format');
  }
}

export interface LoadGraphOptions extends ReadGraphOptions {
  /** How edge lists become a CSR (ignored for .wcsr, which is already one). */
  build?: BuildOptions;
}

/** Reads any supported file and returns a CSR (edge lists go through `hostCsrFromEdgeList`). */
export async function loadGraph(
  path: string,
  options: LoadGraphOptions = {},
): Promise<{ csr: HostCsr; report?: BuildReport }> {
  checkOptionsObject('loadGraph', options);
  const { build, ...read } = options;
  const file = await readGraphFile(path, read);
  if (file.kind === 'csr') return { csr: file.csr };
  try {
    return hostCsrFromEdgeList(file.edges, build);
  } catch (e) {
    // Name the file: the builder only sees the edges.
    if (e instanceof DeviceLimitError) {
      throw new DeviceLimitError(
        `${basename(path)}: ${e.what}`,
        e.requested,
        e.limitName,
        e.limit,
        'the graph has more vertices than the target device can hold',
      );
    }
    throw e;
  }
}

export interface WriteGraphOptions {
  /** Overrides the format the extension implies. */
  format?: GraphFileFormat;
  /** Matrix Market: write an undirected graph as a `symmetric` file (entries with row >= column only). */
  symmetric?: boolean;
  /** Edge lists: write ids + 1. */
  oneBased?: boolean;
}

/**
 * Writes a graph in the format the extension names: `.wcsr` (a CSR only), `.mtx`, edge lists (`.el`, `.wel`,
 * ...) or DIMACS `.gr`, chunk by chunk. Use it to hand Weft's generated graphs to gapbs or Gunrock.
 */
export async function writeGraphFile(
  path: string,
  graph: HostCsr | HostEdgeList,
  options: WriteGraphOptions = {},
): Promise<void> {
  checkOptionsObject('writeGraphFile', options);
  const format = options.format ?? graphFormatOf(path);
  if (graph.ids !== undefined && format !== 'edgelist') {
    throw new InputError(
      `the graph's vertices have names (renumbered on load), which ${format} cannot store: write an edge list`,
      path,
    );
  }
  let parts: Iterable<Uint8Array>;
  if (format === 'wcsr') {
    if (!('offsets' in graph))
      throw new InputError('.wcsr holds a CSR: build one with hostCsrFromEdgeList', path);
    parts = [writeBinaryCsr(graph)];
  } else if (format === 'mtx') {
    parts = matrixMarketChunks(
      graph,
      options.symmetric === undefined ? {} : { symmetric: options.symmetric },
    );
  } else if (format === 'dimacs') {
    parts = dimacsChunks(graph);
  } else {
    parts = edgeListChunks(graph, options.oneBased === undefined ? {} : { oneBased: options.oneBased });
  }
  const file = await open(path, 'w');
  try {
    for (const part of parts) await file.write(part);
  } finally {
    await file.close();
  }
}
