import { overflowError, SATURATED_F32, SATURATED_U32 } from '../weights.ts';

/** Unreached distance as stored: u32 max for integer weights, the bits of +Infinity for f32 weights. */
export const UNREACHED_U32 = 0xffffffff;
export const UNREACHED_F32 = 0x7f800000;

/**
 * Distance words as read back (u32 sums or f32 bits) as numbers, `Infinity` where unreached; throws the
 * overflow error where a sum saturated.
 */
export function decodeDistances(raw: Uint32Array, float: boolean): Float64Array {
  const n = raw.length;
  const values = float ? new Float32Array(raw.buffer, raw.byteOffset, n) : raw;
  const distances = new Float64Array(n);
  const saturated = float ? SATURATED_F32 : SATURATED_U32;
  const unreached = float ? UNREACHED_F32 : UNREACHED_U32;
  for (let v = 0; v < n; v++) {
    if (raw[v] === saturated) throw overflowError(float, v);
    distances[v] = raw[v] === unreached ? Number.POSITIVE_INFINITY : values[v]!;
  }
  return distances;
}
