import { basename } from 'node:path';
import { InputError } from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList } from '@weft/graph';
import { loadGraph } from '@weft/graph/node';
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
export function sourceVertex(csr: HostCsr, text: string, file: string, option = '--source'): number {
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
