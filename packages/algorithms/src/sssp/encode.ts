import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  distanceOverflowError,
  InputError,
  inline,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { SATURATED_F32, SATURATED_U32 } from '../weights.ts';
import { decodeDistances, UNREACHED_F32, UNREACHED_U32 } from './decode.ts';

/** Where distance words become `Float64Array` values: a kernel on the device, or the JS loop on the host. */
export type DistanceDecode = 'device' | 'host';

/** No saturated vertex: the status word's start, above every vertex id. */
const NONE = 0xffffffff;

/**
 * `(w: u32) -> vec2<u32>`: the binary64 words (low, high) of distance word `w` as `decodeDistances` reads
 * it: `unreached` as +Infinity, else a u32 sum or the bits of an f32.
 */
function binary64(float: boolean, unreached: number) {
  return float
    ? wgsl`(w: u32) -> vec2<u32> {
  if (w == ${u32(unreached)}) { return vec2<u32>(0u, 0x7ff00000u); }
  let sign = w & 0x80000000u;
  let e = (w >> 23u) & 0xffu;
  let m = w & 0x7fffffu;
  if (e == 0xffu) { return vec2<u32>(m << 29u, sign | 0x7ff00000u | (m >> 3u)); }
  if (e != 0u) { return vec2<u32>(m << 29u, sign | ((e + 896u) << 20u) | (m >> 3u)); }
  if (m == 0u) { return vec2<u32>(0u, sign); }
  let p = 31u - countLeadingZeros(m);
  let t = (m << (31u - p)) << 1u;
  return vec2<u32>(t << 20u, sign | ((874u + p) << 20u) | (t >> 12u));
}`
    : wgsl`(w: u32) -> vec2<u32> {
  if (w == 0u) { return vec2<u32>(0u, 0u); }
  if (w == ${u32(unreached)}) { return vec2<u32>(0u, 0x7ff00000u); }
  let p = 31u - countLeadingZeros(w);
  let t = (w << (31u - p)) << 1u;
  return vec2<u32>(t << 20u, ((1023u + p) << 20u) | (t >> 12u));
}`;
}

/**
 * Whether {@link readDistances} encodes `n` distances on the device: its scratch (two words a distance and
 * a status word) must fit one binding.
 */
export function encodesOnDevice(distances: DeviceArray<'u32'>, n: number): boolean {
  return n > 0 && (2 * n + 1) * 4 <= distances.device.bindingBudget;
}

/**
 * The first `n` distance words of `distances` as `decodeDistances(raw, float, order)` returns them (the same
 * values, the same overflow error), encoded on the device: a kernel writes each distance's binary64 words
 * into a scratch array, which is read straight into the result's buffer, so no JS runs per distance (a
 * plain loop over tens of millions of words costs more than the search on slow hosts). With `order` (on
 * the device, `n` words), word `i` is vertex `order[i]`'s; `unreached` is the word read as `Infinity`
 * (default: the sums' and floats' own, as `decodeDistances`'s). Falls back to the host loop where the scratch
 * does not fit one binding or `decode` is `'host'` (`order` is then read back).
 */
export async function readDistances(
  distances: DeviceArray<'u32'>,
  n: number,
  float: boolean,
  options: { order?: DeviceArray<'u32'>; decode?: DistanceDecode | undefined; unreached?: number } = {},
): Promise<Float64Array> {
  checkOptionsObject('readDistances', options);
  const { order, decode = 'device', unreached = float ? UNREACHED_F32 : UNREACHED_U32 } = options;
  if (decode !== 'device' && decode !== 'host') {
    throw new InputError(`decode must be 'device' or 'host', got '${decode}'`, 'decode');
  }
  if (decode === 'host' || !encodesOnDevice(distances, n)) {
    const host = order ? await order.download(0, n) : undefined;
    return distances.read((raw) => decodeDistances(raw, float, host, unreached), 0, n);
  }
  const device = distances.device;
  // Per call, not per problem: a problem's result is read once, and the pool hands the buffer to the next.
  const words = device.array('u32', 2 * n + 1, { label: 'sssp f64 distances' });
  const status = device.array('u32', 1, { label: 'sssp f64 status' });
  try {
    const rec = device.recorder({ label: 'sssp f64 distances' });
    await rec.fill(status, NONE);
    const vertex = inline(order ? wgsl`${order}[i]` : wgsl`i`);
    await transform(
      rec,
      n,
      wgsl`(i: u32) {
  let w = ${distances}[i];
  let v = ${vertex};
  if (w == ${u32(float ? SATURATED_F32 : SATURATED_U32)}) { atomicMin(&${atomic(status)}[0], v); }
  let d = ${binary64(float, unreached)}(w);
  ${rw(words)}[2u * v] = d.x;
  ${rw(words)}[2u * v + 1u] = d.y;
}`,
    );
    await transform(rec, 1, wgsl`(i: u32) { ${rw(words)}[${u32(2 * n)}] = ${status}[0]; }`);
    // The read's copy queues behind the encoding: one wait for both.
    await rec.submit({ wait: false });
    const result = new Float64Array(n);
    const overflowed = await words.read((view) => {
      new Uint32Array(result.buffer).set(view.subarray(0, 2 * n));
      return view[2 * n]!;
    });
    if (overflowed !== NONE) throw distanceOverflowError(float, overflowed);
    return result;
  } finally {
    words.destroy();
    status.destroy();
  }
}
