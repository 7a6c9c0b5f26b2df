import { checkOptionsObject, chunkShift, DeviceLimitError, InputError, type WeftDevice } from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, type UploadGraphOptions, uploadGraph } from './device-graph.ts';
import type { HostCsr, HostWeights } from './host-graph.ts';

/** Arcs are u32-indexed: a part's CSR offsets stop at 2^32 - 1. */
export const MAX_ARCS_PER_PART = 2 ** 32 - 1;

/** How rows are cut into parts ({@link partitionCsr}, {@link PartitionedGraph.upload}, the partitioned generators). */
export interface PartitionOptions {
  /** At least this many parts; more where `maxArcsPerPart` needs them. */
  parts?: number | undefined;
  /**
   * The most arcs one part may hold: at most 2^32 - 1, what u32 offsets can index. Where devices are known
   * the default is {@link defaultArcsPerPart}'s; {@link partitionCsr} alone defaults to 2^32 - 1.
   */
  maxArcsPerPart?: number | undefined;
}

/**
 * The default part budget on `devices`: a part's targets in at most half a shader stage's storage buffers,
 * so every kernel that binds all of a part's target chunks keeps room for its other arrays (8 chunks of 2^28
 * arcs, 2^31, under Dawn's 16 buffers and 2 GiB bindings), and never past 2^32 - 1.
 */
export function defaultArcsPerPart(devices: readonly WeftDevice[]): number {
  let arcs = MAX_ARCS_PER_PART;
  for (const device of devices) {
    const chunk = 2 ** chunkShift(device.bindingBudget);
    const chunks = Math.max(1, Math.floor(device.limits.maxStorageBuffersPerShaderStage / 2));
    arcs = Math.min(arcs, chunks * chunk);
  }
  return arcs;
}

/** One device's share of a vertex-partitioned graph. */
export interface CsrPart {
  /** The first vertex this part owns (a multiple of 32, so bitmap words are owned whole). */
  lo: number;
  /** One past the last vertex it owns. */
  hi: number;
  /** The whole vertex range with only the owned rows' edges: rows outside `[lo, hi)` are empty. */
  csr: HostCsr;
}

/** One part of a {@link PartitionedGraph}. */
export interface GraphPart {
  readonly lo: number;
  readonly hi: number;
  /** The global index of the part's first arc: the arcs of the parts before it (may exceed 2^32). */
  readonly base: number;
  /** Every vertex id, only rows `[lo, hi)` non-empty; its offsets count from the part's first arc. */
  readonly graph: DeviceGraph;
}

/** Checks `options` and fills in the defaults. */
export function partitionOptions(
  options: PartitionOptions,
  defaultParts: number,
  defaultBudget: number = MAX_ARCS_PER_PART,
): { parts: number; maxArcsPerPart: number } {
  const parts = options.parts ?? defaultParts;
  if (!Number.isInteger(parts) || parts < 1) {
    throw new InputError(`parts must be a positive integer, got ${parts}`, 'parts');
  }
  const maxArcsPerPart = options.maxArcsPerPart ?? defaultBudget;
  if (!Number.isInteger(maxArcsPerPart) || maxArcsPerPart < 1 || maxArcsPerPart > MAX_ARCS_PER_PART) {
    throw new InputError(
      `maxArcsPerPart must be an integer in [1, 2^32 - 1], got ${maxArcsPerPart}`,
      'maxArcsPerPart',
    );
  }
  return { parts, maxArcsPerPart };
}

/**
 * The part boundaries `[0, ..., n]` (at least `parts` parts) for `n` vertices whose 32-vertex blocks hold
 * `blockArcs[b]` arcs: no part above `maxArcsPerPart` arcs, and the largest part's arcs plus vertices as small
 * as cuts at multiples of 32 allow (the least cap that greedy packing fits into the part count). Trailing
 * parts are empty where fewer suffice. A block above the budget is a {@link DeviceLimitError}.
 */
export function cutRows(
  n: number,
  blockArcs: ArrayLike<number>,
  options: { parts: number; maxArcsPerPart: number },
  where: string,
): number[] {
  const budget = options.maxArcsPerPart;
  const blocks = blockArcs.length;
  const costs = new Float64Array(blocks);
  let total = 0;
  let widest = 0;
  for (let b = 0; b < blocks; b++) {
    const arcs = blockArcs[b]!;
    if (arcs > budget) {
      const end = Math.min(n, 32 * b + 32);
      throw new DeviceLimitError(
        `${where}: the arcs of vertices [${32 * b}, ${end})`,
        arcs,
        'maxArcsPerPart',
        budget,
        'parts are cut at multiples of 32 vertices, so raise maxArcsPerPart',
      );
    }
    costs[b] = arcs + Math.min(32, n - 32 * b);
    total += costs[b]!;
    widest = Math.max(widest, costs[b]!);
  }
  // Greedy packing under both caps gives the fewest contiguous parts, so the least fitting cap balances them.
  const pack = (cap: number): number[] => {
    const starts = [0];
    let c = 0;
    let arcs = 0;
    for (let b = 0; b < blocks; b++) {
      if (b > starts[starts.length - 1]! / 32 && (c + costs[b]! > cap || arcs + blockArcs[b]! > budget)) {
        starts.push(32 * b);
        c = 0;
        arcs = 0;
      }
      c += costs[b]!;
      arcs += blockArcs[b]!;
    }
    return starts;
  };
  const parts = Math.max(options.parts, pack(Number.POSITIVE_INFINITY).length);
  let lo = Math.max(widest, Math.ceil(total / parts));
  let hi = Math.max(lo, total);
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (pack(mid).length <= parts) hi = mid;
    else lo = mid + 1;
  }
  const cuts = pack(lo);
  while (cuts.length <= parts) cuts.push(n);
  return cuts;
}

/** Arcs per 32-vertex block of `csr`. */
function csrBlockArcs(csr: HostCsr): number[] {
  const n = csr.vertexCount;
  return Array.from(
    { length: Math.ceil(n / 32) },
    (_, b) => csr.offsets[Math.min(n, 32 * b + 32)]! - csr.offsets[32 * b]!,
  );
}

/**
 * Splits `csr` into contiguous vertex ranges (boundaries at multiples of 32) of about equal edges plus
 * vertices: `parts` of them (a number), or `{ parts?, maxArcsPerPart? }` for at least `parts` (default 1)
 * with none above `maxArcsPerPart` arcs. Each part keeps every vertex id, so kernels index one global id
 * space, and only its own rows' edges; a range may be empty where fewer parts suffice.
 */
export function partitionCsr(csr: HostCsr, split: number | PartitionOptions): CsrPart[] {
  const options = partitionOptions(typeof split === 'number' ? { parts: split } : split, 1);
  const n = csr.vertexCount;
  const cuts = cutRows(n, csrBlockArcs(csr), options, 'partitionCsr');
  return cuts.slice(0, -1).map((lo, p) => {
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

/** One thing {@link PartitionedGraph.kept} holds. */
interface Kept {
  readonly made: Promise<unknown>;
  readonly destroy: (value: unknown) => void;
  value?: { value: unknown };
}

/**
 * A graph split by vertex ranges into parts, each a {@link DeviceGraph} on some device (several parts may
 * share one): part `i` owns the rows `[lo, hi)` and holds their arcs, its offsets counted from its first arc,
 * whose global index is `base`. So no kernel sees an offset past 2^32 while `edgeCount` may exceed it. An
 * undirected graph's part keeps both directions of each owned row, so it can both push from and pull into
 * its own vertices.
 */
export class PartitionedGraph {
  readonly vertexCount: number;
  /** Arcs over all parts: a number that may exceed 2^32. */
  readonly edgeCount: number;
  readonly directed: boolean;
  readonly #kept = new Map<string, Kept>();

  private constructor(readonly parts: readonly GraphPart[]) {
    const first = parts[0]!.graph;
    this.vertexCount = first.vertexCount;
    this.directed = first.directed;
    const last = parts[parts.length - 1]!;
    this.edgeCount = last.base + last.graph.edgeCount;
  }

  /**
   * A partitioned graph of parts already built: ranges contiguous from 0 to the vertex count, every boundary
   * a multiple of 32 or the vertex count, all graphs of one vertex count and directedness, and (not checked)
   * each graph's arcs in its own rows only. The parts then belong to it (`destroy()` frees them).
   */
  static fromParts(parts: readonly { lo: number; hi: number; graph: DeviceGraph }[]): PartitionedGraph {
    if (parts.length === 0) throw new InputError('a partitioned graph needs at least one part', 'parts');
    for (const [i, p] of parts.entries()) checkDeviceGraph(p?.graph, `parts[${i}].graph`);
    const { vertexCount: n, directed } = parts[0]!.graph;
    let base = 0;
    const made = parts.map((p, i) => {
      const where = `parts[${i}]`;
      if (p.graph.vertexCount !== n) {
        throw new InputError(`part ${i} has ${p.graph.vertexCount} vertices, part 0 has ${n}`, where);
      }
      if (p.graph.directed !== directed) {
        throw new InputError(`part ${i} is ${p.graph.directed ? '' : 'un'}directed, part 0 is not`, where);
      }
      const start = i === 0 ? 0 : parts[i - 1]!.hi;
      if (p.lo !== start) throw new InputError(`part ${i} starts at ${p.lo}, not at ${start}`, where);
      if (!Number.isInteger(p.hi) || p.hi < p.lo || p.hi > n) {
        throw new InputError(`part ${i} ends at ${p.hi}, outside [${p.lo}, ${n}]`, where);
      }
      for (const at of [p.lo, p.hi]) {
        if (at % 32 !== 0 && at !== n) {
          throw new InputError(`part ${i} boundary ${at} is neither a multiple of 32 nor ${n}`, where);
        }
      }
      const part = { lo: p.lo, hi: p.hi, base, graph: p.graph };
      base += p.graph.edgeCount;
      return part;
    });
    const end = parts[parts.length - 1]!.hi;
    if (end !== n) throw new InputError(`the parts end at ${end}, not at the vertex count ${n}`, 'parts');
    return new PartitionedGraph(made);
  }

  /**
   * Splits `csr` as {@link partitionCsr} does into at least `options.parts` parts (default one per device),
   * none above `options.maxArcsPerPart` arcs (default {@link defaultArcsPerPart}), and uploads part `i` to
   * `devices[i % devices.length]`; `csc` as for `uploadGraph`.
   */
  static upload(
    devices: readonly WeftDevice[],
    csr: HostCsr,
    options: UploadGraphOptions & PartitionOptions = {},
  ): PartitionedGraph {
    checkOptionsObject('PartitionedGraph.upload', options);
    if (devices.length === 0) throw new InputError('no devices to partition the graph over', 'devices');
    const { parts, maxArcsPerPart, ...upload } = options;
    const split = partitionCsr(csr, {
      parts: parts ?? devices.length,
      maxArcsPerPart: maxArcsPerPart ?? defaultArcsPerPart(devices),
    });
    const made: { lo: number; hi: number; graph: DeviceGraph }[] = [];
    try {
      split.forEach((p, i) => {
        made.push({ lo: p.lo, hi: p.hi, graph: uploadGraph(devices[i % devices.length]!, p.csr, upload) });
      });
      return PartitionedGraph.fromParts(made);
    } catch (e) {
      for (const p of made) p.graph.destroy();
      throw e;
    }
  }

  /**
   * What an algorithm derives from this graph and keeps between its calls (an exchange's id lists, staging
   * buffers), made by `make` on the first call with `key` and given to `destroy` when the graph is destroyed.
   * A `make` that fails is not kept, so the next call tries again.
   */
  async kept<T>(key: string, make: () => Promise<T>, destroy: (value: T) => void): Promise<T> {
    let entry = this.#kept.get(key);
    if (!entry) {
      const made = make();
      const kept: Kept = { made, destroy: destroy as (value: unknown) => void };
      this.#kept.set(key, kept);
      made.then(
        (value) => {
          kept.value = { value };
        },
        () => {
          if (this.#kept.get(key) === kept) this.#kept.delete(key);
        },
      );
      entry = kept;
    }
    return entry.made as Promise<T>;
  }

  destroy(): void {
    for (const kept of this.#kept.values()) {
      // One still being made is destroyed once it is.
      if (kept.value) kept.destroy(kept.value.value);
      else kept.made.then(kept.destroy, () => undefined);
    }
    this.#kept.clear();
    for (const p of this.parts) p.graph.destroy();
  }
}
