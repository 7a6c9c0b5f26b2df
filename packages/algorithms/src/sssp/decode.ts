import { distanceOverflowError } from '@weft/gpu';
import { SATURATED_F32, SATURATED_U32 } from '../weights.ts';

/** Unreached distance as stored: u32 max for integer weights, the bits of +Infinity for f32 weights. */
export const UNREACHED_U32 = 0xffffffff;
export const UNREACHED_F32 = 0x7f800000;

/**
 * Distance words as read back (u32 sums or f32 bits) as numbers, `Infinity` where unreached; throws the
 * overflow error where a sum saturated. With `order`, word `i` is vertex `order[i]`'s (the first
 * `order.length` words; a permutation of the vertices), and the error names the lowest such vertex as
 * without it. `unreached` is the word read as `Infinity` (a `NeighborGraph`'s SSSP marks f32 distances
 * so too). `raw` may be a mapped read-back view: nothing of it is kept.
 */
export function decodeDistances(
  raw: Uint32Array,
  float: boolean,
  order?: Uint32Array,
  unreached = float ? UNREACHED_F32 : UNREACHED_U32,
): Float64Array {
  const n = order ? order.length : raw.length;
  const values = float ? new Float32Array(raw.buffer, raw.byteOffset, raw.length) : raw;
  const distances = new Float64Array(n);
  const saturated = float ? SATURATED_F32 : SATURATED_U32;
  if (!order) {
    for (let v = 0; v < n; v++) {
      if (raw[v] === saturated) throw distanceOverflowError(float, v);
      distances[v] = raw[v] === unreached ? Number.POSITIVE_INFINITY : values[v]!;
    }
    return distances;
  }
  let overflowed = n;
  for (let i = 0; i < n; i++) {
    const v = order[i]!;
    if (raw[i] === saturated) overflowed = Math.min(overflowed, v);
    distances[v] = raw[i] === unreached ? Number.POSITIVE_INFINITY : values[i]!;
  }
  if (overflowed < n) throw distanceOverflowError(float, overflowed);
  return distances;
}
