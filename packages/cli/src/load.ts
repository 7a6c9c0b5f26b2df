import { basename } from 'node:path';
import { DeviceLimitError, InputError, type WeftDevice } from '@weft/gpu';
import { type DeviceGraph, type HostCsr, hostCsrFromEdgeList } from '@weft/graph';
import { binaryCsrFileHeader, graphFormatOf, loadGraph, uploadBinaryCsrFile } from '@weft/graph/node';
import { vertexIdOption } from './args.ts';

export interface LoadOptions {
  undirected: boolean;
  oneBased: boolean;
  /** Edge-list ids are names, numbered in order of first appearance (`csr.ids`). */
  renumber?: boolean;
  /** Refuse graphs of more vertices before building per-vertex arrays (a device's limit). */
  maxVertexCount?: number;
}

/**
 * Loads a graph file as a CSR the way users expect: self-loops dropped, parallel edges merged keeping the
 * smallest weight, undirected edges as two arcs; `undirected` symmetrizes any format, .wcsr included.
 */
export async function loadCsr(file: string, options: LoadOptions): Promise<{ csr: HostCsr; loadMs: number }> {
  const start = performance.now();
  const build = {
    ...(options.maxVertexCount === undefined ? {} : { maxVertexCount: options.maxVertexCount }),
    ...(options.undirected ? { symmetrize: true } : {}),
  };
  let { csr } = await loadGraph(file, {
    directed: !options.undirected,
    oneBased: options.oneBased,
    ...(options.renumber ? { renumber: true } : {}),
    build,
  });
  // A .wcsr is already a CSR, so the builder (and its symmetrize) is skipped.
  if (options.undirected && csr.directed) csr = undirectedCsr(csr);
  return { csr, loadMs: performance.now() - start };
}

/** What a run needs of its graph on the host: sizes, row offsets, names, and the edges where loaded there. */
export type HostView = Pick<HostCsr, 'vertexCount' | 'edgeCount' | 'directed' | 'offsets' | 'ids'> &
  Partial<Pick<HostCsr, 'targets' | 'weights'>>;

export interface StreamOptions {
  undirected: boolean;
  renumber: boolean;
  /** The algorithm reads an undirected graph (a directed file then goes through the host). */
  needsUndirected: boolean;
  /** The run reads the edges on the host afterwards. */
  needsHostEdges: boolean;
}

/**
 * A .wcsr file streamed straight to the GPU when the run needs nothing more of it on the host (no symmetrize,
 * no undirected copy, no host edges): its edges are never held on the host, so files of billions of arcs
 * load, in chunks beyond one binding; a directed graph gets its in-edge view built on the GPU where its
 * targets fit one binding. Undefined when the file must go through the host instead.
 */
export async function streamWcsr(
  device: WeftDevice,
  file: string,
  options: StreamOptions,
): Promise<{ graph: DeviceGraph; view: HostView; loadMs: number } | undefined> {
  if (graphFormatOf(file) !== 'wcsr' || options.undirected || options.renumber || options.needsHostEdges) {
    return undefined;
  }
  const start = performance.now();
  const header = await binaryCsrFileHeader(file);
  if (header.directed && options.needsUndirected) return undefined;
  const limit = device.limits.maxStorageBufferBindingSize;
  if (4 * (header.vertexCount + 1) > limit) {
    throw new DeviceLimitError(
      `${fileName(file)}: row offsets of ${header.vertexCount} vertices`,
      4 * (header.vertexCount + 1),
      'maxStorageBufferBindingSize',
      limit,
      'the offsets must fit one binding',
    );
  }
  const csc = header.directed && 4 * header.edgeCount <= device.bindingBudget;
  const { graph, offsets } = await uploadBinaryCsrFile(device, file, { csc });
  const view = {
    vertexCount: graph.vertexCount,
    edgeCount: graph.edgeCount,
    directed: graph.directed,
    offsets,
  };
  return { graph, view, loadMs: performance.now() - start };
}

/** The undirected graph of a directed CSR: every arc as an edge both ways (merged where both were there). */
export function undirectedCsr(csr: HostCsr): HostCsr {
  if (!csr.directed) return csr;
  const src = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < csr.vertexCount; v++) src.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
  const edges = {
    vertexCount: csr.vertexCount,
    src,
    dst: csr.targets,
    directed: false,
    ...(csr.weights === undefined ? {} : { weights: csr.weights }),
    ...(csr.ids === undefined ? {} : { ids: csr.ids }),
  };
  return hostCsrFromEdgeList(edges).csr;
}

/**
 * `--source`'s vertex: a 0-based id, or with `--renumber` a name from the file (`csr.ids`); either must be a
 * vertex of the graph.
 */
export function sourceVertex(
  csr: Pick<HostCsr, 'vertexCount' | 'ids'>,
  text: string,
  file: string,
  option = '--source',
): number {
  if (csr.ids !== undefined) {
    const v = csr.ids.indexOf(text);
    if (v < 0) throw new InputError(`no vertex named '${text}' in ${fileName(file)}`, option);
    return v;
  }
  const v = vertexIdOption(text, option);
  if (v >= csr.vertexCount) {
    throw new InputError(
      `source ${v} is not a vertex of ${fileName(file)} (it has ${csr.vertexCount})`,
      option,
    );
  }
  return v;
}

/** The file's name as summaries print it. */
export const fileName = (file: string): string => basename(file);
