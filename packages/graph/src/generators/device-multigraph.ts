import {
  atomic,
  type ChunkedArray,
  checkOptionsObject,
  type DeviceArray,
  DeviceLimitError,
  type Functor,
  InputError,
  inline,
  rw,
  store,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { exclusiveScan, transformScan } from '@weft/scan';
import { DeviceGraph } from '../device-graph.ts';
import {
  cutRows,
  defaultArcsPerPart,
  MAX_ARCS_PER_PART,
  PartitionedGraph,
  type PartitionOptions,
  partitionOptions,
} from '../partition.ts';
import {
  type KroneckerOnDeviceOptions,
  kroneckerParameters,
  pairWeightKey,
  type UniformOnDeviceOptions,
  uniformParameters,
} from './counter-based.ts';
import { kroneckerEndpointsWgsl, pairWeightWgsl, uniformEndpointsWgsl } from './device-generators.ts';

/*
 * The scatter build (docs/decisions/kronecker-scale-26.md): a counter-based generator can draw edge e again in
 * any kernel, so the build needs no edge list and no sort. Pass 1 draws every edge and counts both endpoints'
 * degrees with atomics, a scan makes the offsets, pass 2 draws every edge again and writes each arc at its
 * source's offset plus a slot taken from an atomic cursor, and pass 3 fills each chunk of weights from its
 * chunk of targets (an arc's source found by binary search in the offsets), so no kernel binds targets and
 * weights of every chunk at once. Only the arc arrays are edge-sized, and they are chunked: the build holds
 * 4 bytes an arc (8 weighted) and 8 a vertex, the graph it leaves behind and no more.
 */

/** Arcs are u32-indexed: CSR offsets and chunked-array indices stop at 2^32 - 1. */
const MAX_ARCS = MAX_ARCS_PER_PART;
/** Edge indices are u32 counters of the generators. */
const MAX_EDGES = 2 ** 32 - 1;

/**
 * A Graph500 Kronecker multigraph generated and built on the GPU without a sort: every edge of
 * `philoxKronecker` but self-loops becomes two arcs, duplicates kept (Graph500's rule for its kernels), with
 * weights drawn per vertex pair, so both arcs of an edge and its duplicates carry the same one. Targets and
 * weights exceeding one storage binding are stored in chunks ({@link DeviceGraph.chunkedTargets}); each
 * vertex's list is in no particular order. The same arcs, as a multiset per vertex, as `philoxKroneckerMultigraph(o)`.
 * Throws {@link DeviceLimitError} above 2^32 - 1 possible arcs, and `GpuOutOfMemoryError` when the arrays
 * cannot be allocated (nothing stays allocated).
 */
export async function kroneckerMultigraphOnDevice(
  device: WeftDevice,
  options: KroneckerOnDeviceOptions,
): Promise<DeviceGraph> {
  checkOptionsObject('kroneckerMultigraphOnDevice', options, true);
  const p = kroneckerParameters(options);
  return scatterBuild(device, 'kroneckerMultigraphOnDevice', {
    scale: p.scale,
    edgeCount: p.edgeCount,
    endpoints: kroneckerEndpointsWgsl(p),
    weight: p.weights && pairWeightWgsl(pairWeightKey(p.key), p.weights),
  });
}

/** A uniform random multigraph built as {@link kroneckerMultigraphOnDevice}: `philoxUniformMultigraph(o)`. */
export async function uniformMultigraphOnDevice(
  device: WeftDevice,
  options: UniformOnDeviceOptions,
): Promise<DeviceGraph> {
  checkOptionsObject('uniformMultigraphOnDevice', options, true);
  const p = uniformParameters(options);
  return scatterBuild(device, 'uniformMultigraphOnDevice', {
    scale: p.scale,
    edgeCount: p.edgeCount,
    endpoints: uniformEndpointsWgsl(p),
    weight: p.weights && pairWeightWgsl(pairWeightKey(p.key), p.weights),
  });
}

/**
 * {@link kroneckerMultigraphOnDevice}'s graph in vertex-range parts, for graphs past 2^32 - 1 arcs or beyond
 * one device: at least `split.parts` parts (default one per device), none above `split.maxArcsPerPart` arcs
 * (default {@link defaultArcsPerPart}), part `i` built on `devices[i % devices.length]` from the seed alone (no arcs cross the
 * host). Every part holds the same arcs of its rows as the unpartitioned build; a single part covering every
 * row is that build. Throws {@link DeviceLimitError} when 32 vertices (parts are cut at multiples of 32) hold
 * more than the budget, and as {@link kroneckerMultigraphOnDevice} when memory runs out (nothing stays
 * allocated).
 */
export async function kroneckerMultigraphPartitioned(
  devices: readonly WeftDevice[],
  options: KroneckerOnDeviceOptions,
  split: PartitionOptions = {},
): Promise<PartitionedGraph> {
  checkOptionsObject('kroneckerMultigraphPartitioned', options, true);
  checkOptionsObject('kroneckerMultigraphPartitioned', split);
  const p = kroneckerParameters(options);
  return partitionedBuild(devices, 'kroneckerMultigraphPartitioned', split, {
    scale: p.scale,
    edgeCount: p.edgeCount,
    endpoints: kroneckerEndpointsWgsl(p),
    weight: p.weights && pairWeightWgsl(pairWeightKey(p.key), p.weights),
  });
}

/** {@link uniformMultigraphOnDevice}'s graph in parts, as {@link kroneckerMultigraphPartitioned}. */
export async function uniformMultigraphPartitioned(
  devices: readonly WeftDevice[],
  options: UniformOnDeviceOptions,
  split: PartitionOptions = {},
): Promise<PartitionedGraph> {
  checkOptionsObject('uniformMultigraphPartitioned', options, true);
  checkOptionsObject('uniformMultigraphPartitioned', split);
  const p = uniformParameters(options);
  return partitionedBuild(devices, 'uniformMultigraphPartitioned', split, {
    scale: p.scale,
    edgeCount: p.edgeCount,
    endpoints: uniformEndpointsWgsl(p),
    weight: p.weights && pairWeightWgsl(pairWeightKey(p.key), p.weights),
  });
}

/**
 * The weights the multigraph builds store, as a WGSL edge functor `(src: u32, dst: u32, edge: u32) -> u32`
 * of the arc's endpoints (for SSSP's `weight` option, which then binds no weight array): the same for the
 * seed and weight range of `options` whichever generator drew the arcs. `options.weights` must be set.
 */
export function pairWeightFunctor(options: Pick<KroneckerOnDeviceOptions, 'seed' | 'weights'>): Functor {
  const p = uniformParameters({ scale: 0, seed: options.seed, weights: options.weights ?? false });
  if (p.weights === undefined) throw new InputError('pairWeightFunctor needs options.weights', 'weights');
  const pair = pairWeightWgsl(pairWeightKey(p.key), p.weights);
  return wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return ${pair}(src, dst); }`;
}

interface ScatterInput {
  scale: number;
  edgeCount: number;
  /** `(e: u32) -> vec2<u32>`: edge e's endpoints. */
  endpoints: Functor;
  /** `(u: u32, v: u32) -> u32`: the weight of the pair {u, v}. */
  weight: Functor | undefined;
}

async function scatterBuild(device: WeftDevice, where: string, input: ScatterInput): Promise<DeviceGraph> {
  const { edgeCount: m } = input;
  if (2 * m > MAX_ARCS) {
    throw new DeviceLimitError(
      `${where}: ${m} edges (up to ${2 * m} arcs)`,
      2 * m,
      'u32 arc indices',
      MAX_ARCS,
      'CSR offsets are u32: lower the scale or the edge factor, or build it in parts (kroneckerMultigraphPartitioned)',
    );
  }
  const made: Made = [];
  try {
    const degrees = await countDegrees(device, where, input, made);
    const graph = await scatterRows(device, where, input, degrees, undefined, made);
    degrees.destroy();
    return graph;
  } catch (e) {
    for (const a of made) a.destroy();
    throw e;
  }
}

/** The arrays a build allocated, freed if it fails. */
type Made = (DeviceArray | ChunkedArray)[];

const keep = <A extends DeviceArray | ChunkedArray>(made: Made, a: A): A => {
  made.push(a);
  return a;
};

/** Pass 1: every vertex's degree, in `n + 1` entries (the last stays 0, so a scan's last entry is the arc count). */
async function countDegrees(
  device: WeftDevice,
  where: string,
  input: ScatterInput,
  made: Made,
): Promise<DeviceArray<'u32'>> {
  const { edgeCount: m, endpoints } = input;
  const n = 2 ** input.scale;
  const degrees = await device.scoped(`${where} vertex arrays`, () =>
    keep(made, device.array('u32', n + 1, { label: `${where} degrees` })),
  );
  const counts = device.recorder({ label: `${where} degrees` });
  await counts.fill(degrees, 0);
  if (m > 0) {
    await transform(
      counts,
      m,
      wgsl`(e: u32) {
  let p = ${endpoints}(e);
  if (p.x != p.y) {
    atomicAdd(&${atomic(degrees)}[p.x], 1u);
    atomicAdd(&${atomic(degrees)}[p.y], 1u);
  }
}`,
    );
  }
  await counts.submit();
  return degrees;
}

/**
 * Passes 2 and 3 for the rows `[lo, hi)` of `own` (every row when undefined): their offsets by a scan of
 * their degrees (zero elsewhere), every edge drawn again and only arcs from owned rows written, then their
 * weights. Counts the owned rows' `degrees` down to 0.
 */
async function scatterRows(
  device: WeftDevice,
  where: string,
  input: ScatterInput,
  degrees: DeviceArray<'u32'>,
  own: { lo: number; hi: number } | undefined,
  made: Made,
): Promise<DeviceGraph> {
  const { edgeCount: m, endpoints, weight } = input;
  const n = 2 ** input.scale;
  const offsets = await device.scoped(`${where} vertex arrays`, () =>
    keep(made, device.array('u32', n + 1, { label: 'graph row offsets' })),
  );
  const rows = device.recorder({ label: `${where} offsets` });
  if (own === undefined) await exclusiveScan(rows, degrees, offsets);
  else {
    await transformScan(
      rows,
      n + 1,
      wgsl`(v: u32) -> u32 {
  return select(0u, ${degrees}[v], v >= ${u32(own.lo)} && v < ${u32(own.hi)});
}`,
      offsets,
    );
  }
  await rows.submit();
  const arcs = (await offsets.download(n, 1))[0]!;
  const { targets, weights } = await device.scoped(`${where} arc arrays`, () => ({
    targets: keep(made, device.chunkedArray('u32', arcs, { label: 'graph column indices' })),
    weights: weight && keep(made, device.chunkedArray('u32', arcs, { label: 'graph edge weights' })),
  }));
  if (arcs > 0) {
    const scatter = device.recorder({ label: `${where} scatter` });
    // The cursor counts a vertex's degree down to 0: its slot is the old value minus one.
    const cursor = atomic(degrees);
    const slot = (from: string, to: string) =>
      inline(wgsl`{
      let i = ${offsets}[${from}] + atomicSub(&${cursor}[${from}], 1u) - 1u;
      ${store(targets, 'i', to)};
    }`);
    const arc = (from: string, to: string) =>
      own === undefined
        ? slot(from, to)
        : inline(wgsl`if (${from} >= ${u32(own.lo)} && ${from} < ${u32(own.hi)}) ${slot(from, to)}`);
    await transform(
      scatter,
      m,
      wgsl`(e: u32) {
  let p = ${endpoints}(e);
  if (p.x != p.y) {
    ${arc('p.x', 'p.y')}
    ${arc('p.y', 'p.x')}
  }
}`,
    );
    if (weights) {
      const size = 2 ** targets.shift;
      for (const [c, chunk] of targets.chunks.entries()) {
        const out = weights.chunks[c]!;
        await transform(
          scatter,
          chunk.length,
          wgsl`(i: u32) {
  let a = ${u32(c * size)} + i;
  var lo = 0u;
  var hi = ${u32(n)};
  loop {
    if (hi - lo <= 1u) { break; }
    let mid = (lo + hi) >> 1u;
    if (${offsets}[mid] <= a) { lo = mid; } else { hi = mid; }
  }
  ${rw(out)}[i] = ${weight!}(lo, ${chunk}[i]);
}`,
        );
      }
    }
    await scatter.submit();
  }
  const graph = new DeviceGraph(device, n, arcs, false, offsets, targets, weights, undefined);
  // Measured now, as uploadGraph knows it: problems that pick a load balance read it without a round trip.
  await graph.maxOutDegree();
  return graph;
}

/**
 * Counts degrees on the first device and reads back each 32-vertex block's arcs, so the host cuts the rows
 * within the budget; then every device counts its own degrees and scatters each of its parts' rows.
 */
async function partitionedBuild(
  devices: readonly WeftDevice[],
  where: string,
  split: PartitionOptions,
  input: ScatterInput,
): Promise<PartitionedGraph> {
  if (devices.length === 0) throw new InputError(`${where} needs at least one device`, 'devices');
  const cutOptions = partitionOptions(split, devices.length, defaultArcsPerPart(devices));
  const m = input.edgeCount;
  if (m > MAX_EDGES) {
    throw new DeviceLimitError(
      `${where}: ${m} edges`,
      m,
      'u32 edge indices',
      MAX_EDGES,
      'edges are drawn by a u32 index: lower the scale or the edge factor',
    );
  }
  const n = 2 ** input.scale;
  const made: Made = [];
  const parts: { lo: number; hi: number; graph: DeviceGraph }[] = [];
  try {
    const first = devices[0]!;
    const degrees = [await countDegrees(first, where, input, made)];
    const cuts = cutRows(n, await blockArcs(first, where, degrees[0]!, n, made), cutOptions, where);
    for (let d = 0; d < devices.length; d++) {
      const device = devices[d]!;
      for (let i = d; i < cuts.length - 1; i += devices.length) {
        degrees[d] ??= await countDegrees(device, where, input, made);
        const [lo, hi] = [cuts[i]!, cuts[i + 1]!];
        const own = lo === 0 && hi === n ? undefined : { lo, hi };
        parts[i] = { lo, hi, graph: await scatterRows(device, where, input, degrees[d]!, own, made) };
      }
      degrees[d]?.destroy();
    }
    return PartitionedGraph.fromParts(parts);
  } catch (e) {
    for (const a of made) a.destroy();
    throw e;
  }
}

/** The arcs of each 32-vertex block, summed on the GPU (saturating at 2^32 - 1) and read back. */
async function blockArcs(
  device: WeftDevice,
  where: string,
  degrees: DeviceArray<'u32'>,
  n: number,
  made: Made,
): Promise<Uint32Array> {
  const blocks = Math.ceil(n / 32);
  if (blocks === 0) return new Uint32Array(0);
  const sums = await device.scoped(`${where} block sums`, () =>
    keep(made, device.array('u32', blocks, { label: `${where} block arcs` })),
  );
  await transform(
    device,
    blocks,
    wgsl`(b: u32) {
  var s = 0u;
  let end = min(b * 32u + 32u, ${u32(n)});
  for (var v = b * 32u; v < end; v++) {
    let d = ${degrees}[v];
    s = select(0xffffffffu, s + d, s + d >= s);
  }
  ${rw(sums)}[b] = s;
}`,
  );
  const out = await sums.download();
  sums.destroy();
  return out;
}
