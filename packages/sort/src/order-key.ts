import type { ElementType } from '@weft/gpu';

/** Key type codes for the kernels' `key_type` parameter (one pipeline serves every key type). */
export const KEY_TYPE_CODE = { u32: 0, i32: 1, f32: 2 } as const;

/**
 * WGSL `fn order_key(raw: u32) -> u32`: maps a key's bits to a u32 whose unsigned order is the key's order.
 * - u32: the bits themselves.
 * - i32: flip the sign bit, so negatives come first.
 * - f32: negatives have all bits flipped (larger magnitude sorts first), non-negatives get the sign bit set;
 *   so -Inf < ... < -0 < +0 < ... < +Inf. Every NaN (either sign, any payload) maps to 0xffffffff: last.
 * Descending order inverts the mapped key (`params.invert` = 0xffffffff; NaNs then come first, as in
 * `torch.sort(descending=True)`). Key type and direction are uniform parameters, not WGSL text, so all
 * six variants share one compiled pipeline.
 */
export const ORDER_KEY_WGSL = /* wgsl */ `
fn order_key(raw: u32) -> u32 {
  var k = raw;
  if (params.key_type == ${KEY_TYPE_CODE.i32}u) {
    k = raw ^ 0x80000000u;
  } else if (params.key_type == ${KEY_TYPE_CODE.f32}u) {
    k = select(raw | 0x80000000u, ~raw, (raw & 0x80000000u) != 0u);
    if ((raw & 0x7fffffffu) > 0x7f800000u) { k = 0xffffffffu; }
  }
  return k ^ params.invert;
}`;

/** The TypeScript twin of {@link ORDER_KEY_WGSL} for one key given as raw bits (used by tests and references). */
export function orderKeyOf(type: ElementType, raw: number, descending = false): number {
  let k: number;
  if (type === 'u32') k = raw >>> 0;
  else if (type === 'i32') k = (raw ^ 0x80000000) >>> 0;
  else if ((raw & 0x7fffffff) >>> 0 > 0x7f800000) k = 0xffffffff;
  else if (raw & 0x80000000) k = ~raw >>> 0;
  else k = (raw | 0x80000000) >>> 0;
  return descending ? ~k >>> 0 : k;
}
