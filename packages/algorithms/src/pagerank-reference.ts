import { checkOptionsObject } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

export interface PageRankReferenceOptions {
  alpha?: number;
  tolerance?: number;
  maxIterations?: number;
  /** `null` ignores the graph's weights; by default they weight each vertex's out-edges (networkx's default). */
  weight?: 'weights' | null;
}

/**
 * PageRank as networkx computes it (power iteration in f64): uniform teleport, a vertex's rank shared over
 * its out-edges in proportion to their weights (equally without weights), a dangling vertex's (no out-edges,
 * or out-weights summing to 0) spread evenly over all vertices, ranks summing to 1; stops when no rank changes by more than
 * `tolerance` relative to itself (as the GPU version; networkx uses the L1 change below `N * tol`) or
 * after `maxIterations`.
 */
export function pageRankReference(
  csr: HostCsr,
  options: PageRankReferenceOptions = {},
): { ranks: Float64Array; iterations: number; converged: boolean } {
  checkOptionsObject('pageRankReference', options);
  const n = csr.vertexCount;
  const alpha = options.alpha ?? 0.85;
  const tolerance = options.tolerance ?? 1e-5;
  const maxIterations = options.maxIterations ?? 100;
  const w = options.weight === null ? undefined : csr.weights;
  const outWeight = new Float64Array(n);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) outWeight[u]! += w === undefined ? 1 : w[e]!;
  }
  let ranks = new Float64Array(n).fill(1 / n);
  let next = new Float64Array(n);
  for (let it = 1; it <= maxIterations; it++) {
    let dangling = 0;
    next.fill(0);
    for (let u = 0; u < n; u++) {
      if (outWeight[u] === 0) {
        dangling += ranks[u]!;
        continue;
      }
      const share = ranks[u]! / outWeight[u]!;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        next[csr.targets[e]!]! += w === undefined ? share : share * w[e]!;
      }
    }
    let change = 0;
    for (let v = 0; v < n; v++) {
      next[v] = (1 - alpha) / n + alpha * (next[v]! + dangling / n);
      change = Math.max(change, Math.abs(next[v]! - ranks[v]!) / Math.max(next[v]!, 1e-300));
    }
    [ranks, next] = [next, ranks];
    if (change < tolerance) return { ranks, iterations: it, converged: true };
  }
  return { ranks, iterations: maxIterations, converged: n === 0 };
}
