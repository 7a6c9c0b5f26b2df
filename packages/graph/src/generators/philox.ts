import { wgsl } from '@weft/gpu';

/*
 * Philox-2x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011):
 * a counter-based generator, so the draw for (counter, key) needs no state and every thread of a kernel
 * computes its own. The TypeScript and WGSL versions below are bit-exact twins: both take the high half of
 * the 32 x 32 product from 16-bit halves, since WGSL has no u64 and JavaScript numbers lose bits past 2^53.
 */

const MULTIPLIER = 0xd256d193;
const WEYL = 0x9e3779b9;

/** The high 32 bits of the 64-bit product of two u32s. */
export function mulhi32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  return (p11 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16)) >>> 0;
}

/** Philox-2x32-10 of the counter (c0, c1) under `key`: two uniform u32s. */
export function philox2x32(c0: number, c1: number, key: number): [number, number] {
  let x = c0 >>> 0;
  let y = c1 >>> 0;
  let k = key >>> 0;
  for (let round = 0; round < 10; round++) {
    const hi = mulhi32(MULTIPLIER, x);
    const lo = Math.imul(MULTIPLIER, x) >>> 0;
    x = (hi ^ k ^ y) >>> 0;
    y = lo;
    k = (k + WEYL) >>> 0;
  }
  return [x, y];
}

/** WGSL twin of {@link mulhi32}: `(a: u32, b: u32) -> u32`. */
export const mulhiWgsl = wgsl`(a: u32, b: u32) -> u32 {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  return p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
}`;

/** WGSL twin of {@link philox2x32}: `(c0: u32, c1: u32, key: u32) -> vec2<u32>`. */
export const philoxWgsl = wgsl`(c0: u32, c1: u32, key: u32) -> vec2<u32> {
  var x = c0;
  var y = c1;
  var k = key;
  for (var round = 0u; round < 10u; round++) {
    let hi = ${mulhiWgsl}(0xd256d193u, x);
    let lo = 0xd256d193u * x;
    x = hi ^ k ^ y;
    y = lo;
    k = k + 0x9e3779b9u;
  }
  return vec2<u32>(x, y);
}`;
