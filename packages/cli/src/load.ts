import { basename } from 'node:path';
import { type HostCsr, hostCsrFromEdgeList } from '@weft/graph';
import { loadGraph } from '@weft/graph/node';

export interface LoadOptions {
  undirected: boolean;
  oneBased: boolean;
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
  let { csr } = await loadGraph(file, { directed: !options.undirected, oneBased: options.oneBased, build });
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
  };
  return hostCsrFromEdgeList(edges).csr;
}

/** The file's name as summaries print it. */
export const fileName = (file: string): string => basename(file);
