import { InputError, type WeftDevice } from '@weft/gpu';
import { type DeviceGraph, type UploadGraphOptions, uploadGraph } from './device-graph.ts';
import type { HostCsr, HostWeights } from './host-graph.ts';

/** One device's share of a vertex-partitioned graph. */
export interface CsrPart {
  /** The first vertex this part owns (a multiple of 32, so bitmap words are owned whole). */
  lo: number;
  /** One past the last vertex it owns. */
  hi: number;
  /** The whole vertex range with only the owned rows' edges: rows outside `[lo, hi)` are empty. */
  csr: HostCsr;
}

/**
 * Splits `csr` into `parts` contiguous vertex ranges of about equal edges plus vertices (boundaries at
 * multiples of 32). Each part keeps every vertex id, so kernels index one global id space, and only its
 * own rows' edges; a range may be empty where the graph has fewer than `32 * parts` vertices.
 */
export function partitionCsr(csr: HostCsr, parts: number): CsrPart[] {
  if (!Number.isInteger(parts) || parts < 1) {
    throw new InputError(`parts must be a positive integer, got ${parts}`, 'parts');
  }
  const n = csr.vertexCount;
  const total = csr.edgeCount + n;
  const cuts = [0];
  let v = 0;
  for (let p = 1; p < parts; p++) {
    const goal = (total * p) / parts;
    // The first multiple of 32 whose edges plus vertices before it reach the goal.
    while (v < n && csr.offsets[Math.min(v, n)]! + v < goal) v += 32;
    v = Math.min(v, n);
    cuts.push(Math.max(v, cuts[cuts.length - 1]!));
  }
  cuts.push(n);
  return cuts.slice(0, parts).map((lo, p) => {
    const hi = cuts[p + 1]!;
    const first = csr.offsets[lo]!;
    const last = csr.offsets[hi]!;
    const offsets = new Uint32Array(n + 1);
    for (let u = 0; u <= n; u++) {
      offsets[u] = Math.min(Math.max(csr.offsets[u]!, first), last) - first;
    }
    const part: HostCsr = {
      vertexCount: n,
      edgeCount: last - first,
      offsets,
      targets: csr.targets.slice(first, last),
      directed: csr.directed,
    };
    if (csr.weights) part.weights = csr.weights.slice(first, last) as HostWeights;
    return { lo, hi, csr: part };
  });
}

/**
 * A graph split by vertex ranges over several devices ({@link partitionCsr}): part `i` lives on
 * `devices[i]`. An undirected graph's part keeps both directions of each owned row, so it can both push
 * from and pull into its own vertices.
 */
export class PartitionedGraph {
  readonly vertexCount: number;
  readonly edgeCount: number;
  readonly directed: boolean;

  private constructor(
    readonly parts: readonly { readonly lo: number; readonly hi: number; readonly graph: DeviceGraph }[],
    csr: HostCsr,
  ) {
    this.vertexCount = csr.vertexCount;
    this.edgeCount = csr.edgeCount;
    this.directed = csr.directed;
  }

  /** Uploads part `i` of `csr` to `devices[i]` (one part per device). */
  static upload(
    devices: readonly WeftDevice[],
    csr: HostCsr,
    options: UploadGraphOptions = {},
  ): PartitionedGraph {
    if (devices.length === 0) throw new InputError('no devices to partition the graph over', 'devices');
    const split = partitionCsr(csr, devices.length);
    const made: { lo: number; hi: number; graph: DeviceGraph }[] = [];
    try {
      split.forEach((p, i) => {
        made.push({ lo: p.lo, hi: p.hi, graph: uploadGraph(devices[i]!, p.csr, options) });
      });
    } catch (e) {
      for (const p of made) p.graph.destroy();
      throw e;
    }
    return new PartitionedGraph(made, csr);
  }

  destroy(): void {
    for (const p of this.parts) p.graph.destroy();
  }
}
