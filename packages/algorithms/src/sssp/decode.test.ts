import { mulberry32, randomPermutation, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { SATURATED_F32, SATURATED_U32 } from '../weights.ts';
import { decodeDistances, UNREACHED_F32, UNREACHED_U32 } from './decode.ts';

/** Random distance words of either kind, with unreached ones mixed in, and `extra` words past the end. */
function words(n: number, float: boolean, seed: number, extra = 0): Uint32Array {
  const r = mulberry32(seed);
  const raw = randomU32(n + extra, seed, 2 ** 20);
  const floats = new Float32Array(raw.buffer);
  for (let i = 0; i < n; i++) {
    if (r() < 0.2) raw[i] = float ? UNREACHED_F32 : UNREACHED_U32;
    else if (float) floats[i] = r() * 1e6;
  }
  return raw;
}

/** The decode of word `i` as vertex `order[i]`'s: the words permuted into vertex order, then decoded plainly. */
function permutedReference(raw: Uint32Array, float: boolean, order: Uint32Array): Float64Array {
  const byVertex = new Uint32Array(order.length);
  for (let i = 0; i < order.length; i++) byVertex[order[i]!] = raw[i]!;
  return decodeDistances(byVertex, float);
}

describe('decodeDistances', () => {
  it('decodes words as numbers, unreached as Infinity, in vertex order or through an order', () => {
    for (const float of [false, true]) {
      for (const n of [0, 1, 2, 7, 100, 1000]) {
        const raw = words(n, float, n + 3, 2);
        const plain = decodeDistances(raw.subarray(0, n), float);
        const values = float ? new Float32Array(raw.buffer) : raw;
        for (let v = 0; v < n; v++) {
          const unreached = raw[v] === (float ? UNREACHED_F32 : UNREACHED_U32);
          expect(plain[v]).toBe(unreached ? Number.POSITIVE_INFINITY : values[v]);
        }
        const order = randomPermutation(n, n);
        // The two words past the order's length are not read.
        expect(decodeDistances(raw, float, order)).toEqual(permutedReference(raw, float, order));
      }
    }
  });

  it('names the lowest saturated vertex, through an order as without', () => {
    for (const float of [false, true]) {
      const n = 50;
      const saturated = float ? SATURATED_F32 : SATURATED_U32;
      const order = randomPermutation(n, 9);
      const raw = words(n, float, 4);
      // Vertices 31 and 17 overflow; 17 sits later in the order than 31.
      const at = (v: number) => order.indexOf(v);
      expect(at(17)).toBeGreaterThan(at(31));
      raw[at(31)] = saturated;
      raw[at(17)] = saturated;
      expect(() => decodeDistances(raw, float, order)).toThrow(/distance of vertex 17 reached/);
      expect(() => permutedReference(raw, float, order)).toThrow(/distance of vertex 17 reached/);
      expect(() => decodeDistances(Uint32Array.of(0, saturated, saturated), float)).toThrow(/vertex 1 /);
    }
  });
});
