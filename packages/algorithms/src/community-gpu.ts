import {
  type ArrayCapture,
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  inline,
  load,
  map,
  plus,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import { reduce, transformScanTo } from '@weft/scan';
import { segmentedReduce, transformSegreduce } from '@weft/segreduce';
import { sortPairs } from '@weft/sort';
import { checkResolution, type ModularityOptions } from './community-reference.ts';

/** Bits that hold every id below `n` (at least 1): the radix passes a sort by community id needs. */
export function idBits(n: number): number {
  return Math.max(1, Math.ceil(Math.log2(Math.max(2, n))));
}

/**
 * `(edge: u32) -> f32`: the edge's weight (1 without weights or with `use` false); a negative, infinite or
 * NaN weight raises `status[0]` and reads as 0.
 */
export function edgeWeight(graph: DeviceGraph, use: boolean | undefined, status: ArrayCapture): Functor {
  const w = graph.chunkedWeights;
  if (!w || use === false) return wgsl`(edge: u32) -> f32 { return 1.0; }`;
  if (w.type === 'u32') return wgsl`(edge: u32) -> f32 { return f32(${load(w, 'edge')}); }`;
  if (w.type === 'i32') {
    return wgsl`(edge: u32) -> f32 {
  let x = ${load(w, 'edge')};
  if (x < 0) { atomicStore(&${status}[0], 1u); }
  return f32(max(x, 0));
}`;
  }
  return wgsl`(edge: u32) -> f32 {
  let bits = bitcast<u32>(${load(w, 'edge')});
  if (bits == 0x80000000u) { return 0.0; }
  if (bits >= 0x7f800000u) { atomicStore(&${status}[0], 1u); return 0.0; }
  return bitcast<f32>(bits);
}`;
}

/** `(e: u32) -> u32`: the source of CSR edge `e` (the last vertex whose offset is at most `e`). */
export function edgeSource(graph: DeviceGraph): Functor {
  return wgsl`(e: u32) -> u32 {
  var lo = 0u;
  var hi = ${u32(Math.max(0, graph.vertexCount - 1))};
  while (lo < hi) {
    let mid = (lo + hi + 1u) / 2u;
    if (${graph.offsets}[mid] <= e) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}`;
}

/** Records `rows[v]` = the first index of the sorted `ids[0 .. count)` not below `v`, for v in [0, n]. */
export async function recordRows(
  rec: Recorder,
  ids: DeviceArray<'u32'>,
  count: number,
  n: number,
  rows: DeviceArray<'u32'>,
): Promise<void> {
  await map(
    rec,
    n + 1,
    wgsl`(v: u32) -> u32 {
  var lo = 0u;
  var hi = ${u32(count)};
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (${ids}[mid] < v) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}`,
    rows,
  );
}

/** Records the segments of runs of equal `key(p)`-pairs: `starts[s]` is run `s`'s first index, `total` their count. */
export async function recordRuns(
  rec: Recorder,
  count: number,
  differs: Functor,
  starts: DeviceArray<'u32'>,
  total: GpuCount,
): Promise<void> {
  await transformScanTo(
    rec,
    count,
    wgsl`(p: u32) -> u32 {
  if (p == 0u) { return 1u; }
  return u32(${differs}(p));
}`,
    wgsl`(p: u32, scanned: u32, value: u32) { if (value == 1u) { ${rw(starts)}[scanned] = p; } }`,
    { monoid: plus('u32'), total },
  );
}

/** Per-vertex arrays and scratch for the sums of per-vertex values over communities. */
export class CommunitySums {
  readonly keys: DeviceArray<'u32'>;
  readonly ids: DeviceArray<'u32'>;
  readonly rows: DeviceArray<'u32'>;

  constructor(device: WeftDevice, n: number) {
    this.keys = device.array('u32', Math.max(1, n), { label: 'community sort keys' });
    this.ids = device.array('u32', Math.max(1, n), { label: 'community sort ids' });
    this.rows = device.array('u32', n + 1, { label: 'community rows' });
  }

  /** Sorts the `n` vertices by `comm` (ids below `communities`) so {@link sum} can reduce over them. */
  async group(rec: Recorder, comm: DeviceArray<'u32'>, n: number, communities: number): Promise<void> {
    const { keys, ids } = this;
    await transform(rec, n, wgsl`(v: u32) { ${rw(keys)}[v] = ${comm}[v]; ${rw(ids)}[v] = v; }`);
    await sortPairs(rec, keys, ids, { count: n, bits: idBits(communities) });
    await recordRows(rec, keys, n, communities, this.rows);
  }

  /** `out[c]` = Σ values[v] over the vertices of community c (after {@link group}). */
  async sum(
    rec: Recorder,
    values: DeviceArray<'f32'>,
    n: number,
    communities: number,
    out: DeviceArray<'f32'>,
  ) {
    await transformSegreduce(
      rec,
      n,
      this.rows,
      communities,
      wgsl`(index: u32, seg: u32, rank: u32) -> f32 { return ${values}[${this.ids}[index]]; }`,
      out,
    );
  }

  destroy(): void {
    this.keys.destroy();
    this.ids.destroy();
    this.rows.destroy();
  }
}

/**
 * Records the two parts of modularity into `parts`: [0] Σ share over arcs inside a community, [1]
 * Σ_c outSum[c] × inSum[c]. Then Q = parts[0] / total − γ parts[1] / total².
 */
export async function recordModularityParts(
  rec: Recorder,
  arcs: { count: number; src: DeviceArray<'u32'>; dst: DeviceArray<'u32'>; share: DeviceArray<'f32'> },
  comm: DeviceArray<'u32'>,
  outSum: DeviceArray<'f32'>,
  inSum: DeviceArray<'f32'>,
  communities: number,
  scratch: DeviceArray<'f32'>,
  parts: DeviceArray<'f32'>,
): Promise<void> {
  const { src, dst, share } = arcs;
  await map(
    rec,
    arcs.count,
    wgsl`(e: u32) -> f32 { return select(0.0, ${share}[e], ${comm}[${src}[e]] == ${comm}[${dst}[e]]); }`,
    scratch,
  );
  await reduce(rec, scratch, { array: parts, index: 0 }, { count: arcs.count });
  await map(rec, communities, wgsl`(c: u32) -> f32 { return ${outSum}[c] * ${inSum}[c]; }`, scratch);
  await reduce(rec, scratch, { array: parts, index: 1 }, { count: communities });
}

export function modularityFromParts(parts: ArrayLike<number>, total: number, resolution: number): number {
  if (!(total > 0)) return 0;
  return parts[0]! / total - (resolution * parts[1]!) / (total * total);
}

/**
 * Modularity of a partition on the GPU (networkx `modularity` semantics; see `modularityReference`): one
 * segmented reduction for the degrees, a sort of the vertices by community and a segmented reduction for
 * the communities' degree sums, two reductions for the intra-community weight and the expected weight.
 * `partition` holds any u32 community id per vertex.
 */
export async function modularity(
  graph: DeviceGraph,
  partition: ArrayLike<number>,
  options: ModularityOptions = {},
): Promise<number> {
  checkOptionsObject('modularity', options);
  checkDeviceGraph(graph);
  const resolution = options.resolution ?? 1;
  checkResolution(resolution);
  const n = graph.vertexCount;
  const m = graph.edgeCount;
  if (partition.length !== n) {
    throw new InputError(`partition has ${partition.length} entries for ${n} vertices`, 'partition');
  }
  const ids = new Map<number, number>();
  const dense = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    const c = partition[v]!;
    if (!Number.isInteger(c) || c < 0 || c > 0xffffffff) {
      throw new InputError(`partition[${v}] = ${c} is not a u32 community id`, 'partition');
    }
    let id = ids.get(c);
    if (id === undefined) {
      id = ids.size;
      ids.set(c, id);
    }
    dense[v] = id;
  }
  if (n === 0 || m === 0) return 0;
  const device = graph.device;
  const made: { destroy(): void }[] = [];
  const arr = <T extends 'u32' | 'f32'>(type: T, length: number, label: string) => {
    const a = device.array(type, Math.max(1, length), { label });
    made.push(a);
    return a;
  };
  try {
    const status = arr('u32', 1, 'modularity status');
    const src = arr('u32', m, 'modularity sources');
    // The parts read one target column: targets in chunks are copied into one (edge-sized scratch).
    const dst = graph.chunked ? arr('u32', m, 'modularity targets') : graph.targets;
    const share = arr('f32', m, 'modularity shares');
    const outDeg = arr('f32', n, 'modularity out-degrees');
    const inDeg = arr('u32', n, 'modularity in-degrees');
    const outSum = arr('f32', n, 'modularity community out');
    const inSum = arr('f32', n, 'modularity community in');
    const scratch = arr('f32', Math.max(m, n), 'modularity scratch');
    const parts = arr('f32', 2, 'modularity parts');
    const comm = arr('u32', n, 'modularity partition').upload(dense);
    const sums = new CommunitySums(device, n);
    made.push(sums);
    status.upload([0]);
    const rec = device.recorder({ label: 'modularity' });
    rec.clear(inDeg);
    const weightOf = edgeWeight(graph, options.weight, atomic(status));
    const sourceOf = edgeSource(graph);
    const directed = graph.directed;
    await transform(
      rec,
      m,
      wgsl`(e: u32) {
  let u = ${sourceOf}(e);
  let v = ${load(graph.chunkedTargets, 'e')};
  let x = ${weightOf}(e);
  ${rw(src)}[e] = u;
  ${inline(graph.chunked ? wgsl`${rw(dst)}[e] = v;` : wgsl``)}
  ${rw(share)}[e] = select(x, 2.0 * x, u == v && ${u32(directed ? 0 : 1)} == 1u);
}`,
    );
    await segmentedReduce(rec, share, graph.offsets, n, outDeg);
    const count = ids.size;
    await sums.group(rec, comm, n, count);
    await sums.sum(rec, outDeg, n, count, outSum);
    if (directed) {
      const inAtomic = atomic(inDeg);
      await transform(
        rec,
        m,
        wgsl`(e: u32) {
  let add = ${share}[e];
  let v = ${dst}[e];
  var old = atomicLoad(&${inAtomic}[v]);
  loop {
    let r = atomicCompareExchangeWeak(&${inAtomic}[v], old, bitcast<u32>(bitcast<f32>(old) + add));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}`,
      );
      const inF = arr('f32', n, 'modularity in-degrees f32');
      await map(rec, n, wgsl`(v: u32) -> f32 { return bitcast<f32>(${inDeg}[v]); }`, inF);
      await sums.sum(rec, inF, n, count, inSum);
    }
    await recordModularityParts(
      rec,
      { count: m, src, dst, share },
      comm,
      outSum,
      directed ? inSum : outSum,
      count,
      scratch,
      parts,
    );
    await reduce(rec, share, { array: scratch, index: 0 }, { count: m });
    await rec.submit();
    if ((await status.download())[0]) {
      throw new InputError('modularity needs finite non-negative weights', 'graph');
    }
    const [p, total] = [await parts.download(), (await scratch.download(0, 1))[0]!];
    return modularityFromParts(p, total, resolution);
  } finally {
    for (const a of made) a.destroy();
  }
}

/** `(x: f32) -> u32`: a u32 that orders like the f32 `x`. */
export const orderKey = wgsl`(x: f32) -> u32 {
  let b = bitcast<u32>(x);
  return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}`;
