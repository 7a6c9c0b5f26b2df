import {
  checkOptionsObject,
  type DeviceArray,
  DeviceLimitError,
  type Functor,
  InputError,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { deviceGraphFromEdgeList } from '../device-build.ts';
import type { DeviceGraph } from '../device-graph.ts';
import {
  type KroneckerOnDeviceOptions,
  type KroneckerParameters,
  kroneckerParameters,
  type ScrambleParameters,
  STREAM_EDGES,
  STREAM_WEIGHTS,
  type UniformOnDeviceOptions,
  type UniformParameters,
  uniformParameters,
  type WeightParameters,
} from './counter-based.ts';
import { mulhiWgsl, philoxWgsl } from './philox.ts';

/** Device arrays a generator writes: `edgeCount` sources, targets and (weighted options) u32 weights. */
export interface GeneratedEdges {
  src: DeviceArray<'u32'>;
  dst: DeviceArray<'u32'>;
  weights?: DeviceArray<'u32'>;
}

export interface OnDeviceBuildOptions {
  /** Also build the in-edge view (on the GPU). Default false. */
  csc?: boolean;
}

/**
 * Records the edge list of {@link philoxKronecker} into `edges` (one thread per edge; edge e's draws depend
 * only on the seed and e). `edges` must hold `edgeFactor * 2^scale` entries, and weights exactly when the
 * options ask for them. No read-back.
 */
export async function recordKroneckerEdges(
  rec: Recorder,
  edges: GeneratedEdges,
  options: KroneckerOnDeviceOptions,
): Promise<void> {
  checkOptionsObject('recordKroneckerEdges', options, true);
  const p = kroneckerParameters(options);
  checkOutputs(edges, p.edgeCount, p.weights !== undefined);
  if (p.edgeCount === 0) return;
  const endpoints = kroneckerEndpointsWgsl(p);
  await transform(
    rec,
    p.edgeCount,
    wgsl`(e: u32) {
  let p = ${endpoints}(e);
  ${rw(edges.src)}[e] = p.x;
  ${rw(edges.dst)}[e] = p.y;
}`,
  );
  if (p.weights) await recordWeights(rec, edges.weights!, p.edgeCount, p.key, p.weights);
}

/** Records the edge list of {@link philoxUniform} into `edges`, as {@link recordKroneckerEdges} does. */
export async function recordUniformEdges(
  rec: Recorder,
  edges: GeneratedEdges,
  options: UniformOnDeviceOptions,
): Promise<void> {
  checkOptionsObject('recordUniformEdges', options, true);
  const p = uniformParameters(options);
  checkOutputs(edges, p.edgeCount, p.weights !== undefined);
  if (p.edgeCount === 0) return;
  const endpoints = uniformEndpointsWgsl(p);
  await transform(
    rec,
    p.edgeCount,
    wgsl`(e: u32) {
  let p = ${endpoints}(e);
  ${rw(edges.src)}[e] = p.x;
  ${rw(edges.dst)}[e] = p.y;
}`,
  );
  if (p.weights) await recordWeights(rec, edges.weights!, p.edgeCount, p.key, p.weights);
}

/**
 * A Graph500 Kronecker (R-MAT) graph generated and built on the GPU: the same graph as
 * `hostCsrFromEdgeList(philoxKronecker(options))`, symmetrized, without self-loops, duplicates merged (min
 * weight). Throws {@link DeviceLimitError} before allocating anything when the build's arrays exceed one
 * storage binding.
 */
export async function kroneckerOnDevice(
  device: WeftDevice,
  options: KroneckerOnDeviceOptions & OnDeviceBuildOptions,
): Promise<DeviceGraph> {
  checkOptionsObject('kroneckerOnDevice', options, true);
  const p = kroneckerParameters(options);
  return generateAndBuild(
    device,
    'kroneckerOnDevice',
    p.scale,
    p.edgeCount,
    p.weights !== undefined,
    options,
    (rec, edges) => recordKroneckerEdges(rec, edges, options),
  );
}

/** A uniform random graph generated and built on the GPU: `hostCsrFromEdgeList(philoxUniform(options))`. */
export async function uniformOnDevice(
  device: WeftDevice,
  options: UniformOnDeviceOptions & OnDeviceBuildOptions,
): Promise<DeviceGraph> {
  checkOptionsObject('uniformOnDevice', options, true);
  const p = uniformParameters(options);
  return generateAndBuild(
    device,
    'uniformOnDevice',
    p.scale,
    p.edgeCount,
    p.weights !== undefined,
    options,
    (rec, edges) => recordUniformEdges(rec, edges, options),
  );
}

/**
 * Throws {@link DeviceLimitError} when a GPU build of `edgeCount` undirected edges cannot fit one binding:
 * the build holds two entries per edge (both directions) in u32 arrays.
 */
export function checkDeviceBuildFits(device: WeftDevice, edgeCount: number, where: string): void {
  const limit = device.limits.maxStorageBufferBindingSize!;
  const entries = 2 * edgeCount;
  if (4 * entries > limit) {
    throw new DeviceLimitError(
      `${where}: graph build keys (u32 x ${entries})`,
      4 * entries,
      'maxStorageBufferBindingSize',
      limit,
      `at most ${Math.floor(limit / 8)} edges fit one binding on this adapter; kroneckerMultigraphOnDevice and uniformMultigraphOnDevice build larger graphs in chunks (duplicates kept)`,
    );
  }
}

async function generateAndBuild(
  device: WeftDevice,
  where: string,
  scale: number,
  m: number,
  weighted: boolean,
  options: OnDeviceBuildOptions,
  record: (rec: Recorder, edges: GeneratedEdges) => Promise<void>,
): Promise<DeviceGraph> {
  checkDeviceBuildFits(device, m, where);
  const made: DeviceArray[] = [];
  const array = (label: string) => {
    const arr = device.array('u32', m, { label: `${where} ${label}` });
    made.push(arr);
    return arr;
  };
  try {
    const edges: GeneratedEdges = { src: array('sources'), dst: array('targets') };
    if (weighted) edges.weights = array('weights');
    const rec = device.recorder({ label: where });
    await record(rec, edges);
    await rec.submit();
    const { graph } = await deviceGraphFromEdgeList(
      device,
      { ...edges, vertexCount: 2 ** scale, directed: false },
      { csc: options.csc ?? false },
    );
    return graph;
  } finally {
    for (const arr of made) arr.destroy();
  }
}

function checkOutputs(edges: GeneratedEdges, m: number, weighted: boolean): void {
  for (const [name, arr] of [
    ['edges.src', edges.src],
    ['edges.dst', edges.dst],
    ['edges.weights', edges.weights],
  ] as const) {
    if (arr !== undefined && arr.length !== m) {
      throw new InputError(`${name} has ${arr.length} entries, the generator makes ${m}`, name);
    }
  }
  if ((edges.weights !== undefined) !== weighted) {
    throw new InputError('give a weights array exactly when the options ask for weights', 'edges.weights');
  }
}

function scrambleWgsl(s: ScrambleParameters): Functor {
  return wgsl`(x: u32) -> u32 {
  var y = (x * ${u32(s.m1)} + ${u32(s.k1)}) & ${u32(s.mask)};
  y = y ^ (y >> ${u32(s.shift)});
  y = (y * ${u32(s.m2)} + ${u32(s.k2)}) & ${u32(s.mask)};
  return y ^ (y >> ${u32(s.shift)});
}`;
}

async function recordWeights(
  rec: Recorder,
  out: DeviceArray<'u32'>,
  m: number,
  key: number,
  w: WeightParameters,
): Promise<void> {
  const weight = weightWgsl(key, w);
  await transform(rec, m, wgsl`(e: u32) { ${rw(out)}[e] = ${weight}(e); }`);
}

/** WGSL `(e: u32) -> vec2<u32>`: the relabelled (source, target) of Kronecker edge e, as {@link philoxKronecker}. */
export function kroneckerEndpointsWgsl(p: KroneckerParameters): Functor {
  const quadrant = wgsl`(d: u32) -> vec2<u32> {
  if (d < ${u32(p.ta)}) { return vec2<u32>(0u, 0u); }
  if (d < ${u32(p.tb)}) { return vec2<u32>(0u, 1u); }
  if (d < ${u32(p.tc)}) { return vec2<u32>(1u, 0u); }
  return vec2<u32>(1u, 1u);
}`;
  const relabel = p.scramble ? scrambleWgsl(p.scramble) : wgsl`(x: u32) -> u32 { return x; }`;
  const scale = u32(p.scale);
  const key = u32(p.key);
  return wgsl`(e: u32) -> vec2<u32> {
  var u = 0u;
  var v = 0u;
  for (var level = 0u; level < ${scale}; level += 2u) {
    let r = ${philoxWgsl}(e, level >> 1u, ${key});
    let q0 = ${quadrant}(r.x);
    u = (u << 1u) | q0.x;
    v = (v << 1u) | q0.y;
    if (level + 1u < ${scale}) {
      let q1 = ${quadrant}(r.y);
      u = (u << 1u) | q1.x;
      v = (v << 1u) | q1.y;
    }
  }
  return vec2<u32>(${relabel}(u), ${relabel}(v));
}`;
}

/** WGSL `(e: u32) -> vec2<u32>`: the endpoints of uniform edge e, as {@link philoxUniform}. */
export function uniformEndpointsWgsl(p: UniformParameters): Functor {
  // 2^31 is the largest vertex count, so n fits a u32.
  const n = u32(2 ** p.scale);
  return wgsl`(e: u32) -> vec2<u32> {
  let r = ${philoxWgsl}(e, ${u32(STREAM_EDGES << 16)}, ${u32(p.key)});
  return vec2<u32>(${mulhiWgsl}(r.x, ${n}), ${mulhiWgsl}(r.y, ${n}));
}`;
}

/** WGSL `(u: u32, v: u32) -> u32`: the weight of the vertex pair {u, v}, as `pairWeight` draws it. */
export function pairWeightWgsl(pairKey: number, w: WeightParameters): Functor {
  return wgsl`(u: u32, v: u32) -> u32 {
  let r = ${philoxWgsl}(min(u, v), max(u, v), ${u32(pairKey)}).x;
  var x = r;
  if (${u32(w.span)} != 0u) { x = ${mulhiWgsl}(r, ${u32(w.span)}); }
  return ${u32(w.lo)} + x;
}`;
}

/** WGSL `(e: u32) -> u32`: the weight of edge e (stream 1), as the host twins draw it. */
function weightWgsl(key: number, w: WeightParameters): Functor {
  return wgsl`(e: u32) -> u32 {
  let r = ${philoxWgsl}(e, ${u32(STREAM_WEIGHTS << 16)}, ${u32(key)}).x;
  var x = r;
  if (${u32(w.span)} != 0u) { x = ${mulhiWgsl}(r, ${u32(w.span)}); }
  return ${u32(w.lo)} + x;
}`;
}
