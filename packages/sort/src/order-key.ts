import type { ElementType } from '@weft/gpu';

/**
 * WGSL `fn order_key(raw: u32) -> u32`: maps a key's bits to a u32 whose unsigned order is the key's order.
 * - u32: the bits themselves.
 * - i32: flip the sign bit, so negatives come first.
 * - f32: negatives have all bits flipped (larger magnitude sorts first), non-negatives get the sign bit set;
 *   so -Inf < ... < -0 < +0 < ... < +Inf. Every NaN (either sign, any payload) maps to 0xffffffff: last.
 * Descending order inverts the mapped key (NaNs then come first, as in `torch.sort(descending=True)`).
 */
export function orderKeyWgsl(type: ElementType, descending: boolean): string {
  const body =
    type === 'u32'
      ? 'let k = raw;'
      : type === 'i32'
        ? 'let k = raw ^ 0x80000000u;'
        : `var k = raw | 0x80000000u;
  if ((raw & 0x80000000u) != 0u) { k = ~raw; }
  if ((raw & 0x7fffffffu) > 0x7f800000u) { k = 0xffffffffu; }`;
  return /* wgsl */ `
fn order_key(raw: u32) -> u32 {
  ${body}
  return ${descending ? '~k' : 'k'};
}`;
}

/** The TypeScript twin of {@link orderKeyWgsl} for one key given as raw bits (used by tests and references). */
export function orderKeyOf(type: ElementType, raw: number, descending = false): number {
  let k: number;
  if (type === 'u32') k = raw >>> 0;
  else if (type === 'i32') k = (raw ^ 0x80000000) >>> 0;
  else if ((raw & 0x7fffffff) >>> 0 > 0x7f800000) k = 0xffffffff;
  else if (raw & 0x80000000) k = ~raw >>> 0;
  else k = (raw | 0x80000000) >>> 0;
  return descending ? ~k >>> 0 : k;
}
