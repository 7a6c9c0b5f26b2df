import {
  atomic,
  type ChunkedArray,
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
import { exclusiveScan } from '@weft/scan';
import { DeviceGraph } from '../device-graph.ts';
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
const MAX_ARCS = 2 ** 32 - 1;

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
  const p = uniformParameters(options);
  return scatterBuild(device, 'uniformMultigraphOnDevice', {
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
  const { edgeCount: m, endpoints, weight } = input;
  const n = 2 ** input.scale;
  if (2 * m > MAX_ARCS) {
    throw new DeviceLimitError(
      `${where}: ${m} edges (up to ${2 * m} arcs)`,
      2 * m,
      'u32 arc indices',
      MAX_ARCS,
      'CSR offsets are u32: lower the scale or the edge factor',
    );
  }
  const made: (DeviceArray | ChunkedArray)[] = [];
  const keep = <A extends DeviceArray | ChunkedArray>(a: A): A => {
    made.push(a);
    return a;
  };
  try {
    // One entry past the vertices stays 0, so the exclusive scan's last entry is the arc count.
    const { degrees, offsets } = await device.scoped(`${where} vertex arrays`, () => ({
      degrees: keep(device.array('u32', n + 1, { label: `${where} degrees` })),
      offsets: keep(device.array('u32', n + 1, { label: 'graph row offsets' })),
    }));
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
    await exclusiveScan(counts, degrees, offsets);
    await counts.submit();
    const arcs = (await offsets.download(n, 1))[0]!;
    const { targets, weights } = await device.scoped(`${where} arc arrays`, () => ({
      targets: keep(device.chunkedArray('u32', arcs, { label: 'graph column indices' })),
      weights: weight && keep(device.chunkedArray('u32', arcs, { label: 'graph edge weights' })),
    }));
    if (arcs > 0) {
      const scatter = device.recorder({ label: `${where} scatter` });
      // The cursor counts a vertex's degree down to 0: its slot is the old value minus one.
      const cursor = atomic(degrees);
      const arc = (from: string, to: string) =>
        inline(wgsl`{
      let i = ${offsets}[${from}] + atomicSub(&${cursor}[${from}], 1u) - 1u;
      ${store(targets, 'i', to)};
    }`);
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
    degrees.destroy();
    const graph = new DeviceGraph(device, n, arcs, false, offsets, targets, weights, undefined);
    // Measured now, as uploadGraph knows it: problems that pick a load balance read it without a round trip.
    await graph.maxOutDegree();
    return graph;
  } catch (e) {
    for (const a of made) a.destroy();
    throw e;
  }
}
