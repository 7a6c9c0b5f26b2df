import type { ElementType } from '@weft/gpu';

/** Key type codes for the `key_type` parameter of kernels whose `order_key` is not generated per type. */
export const KEY_TYPE_CODE = { u32: 0, i32: 1, f32: 2 } as const;

/** Uniform parameters of {@link orderKeyWgsl}'s parameterized form (declared by every sort kernel). */
export const ORDER_PARAMS = { key_type: 'u32', invert: 'u32' } as const;

/** The values of {@link ORDER_PARAMS} for `order`. */
export function orderParams(order: KeyOrder): { key_type: number; invert: number } {
  return { key_type: KEY_TYPE_CODE[order.type], invert: order.descending ? 0xffffffff : 0 };
}

/** How keys are ordered: their type (the bits' meaning) and the direction. */
export interface KeyOrder {
  readonly type: ElementType;
  readonly descending: boolean;
}

/**
 * WGSL `fn order_key(raw: u32) -> u32`: maps a key's bits to a u32 whose unsigned order is the key's order.
 * - u32: the bits themselves.
 * - i32: flip the sign bit, so negatives come first.
 * - f32: negatives have all bits flipped (larger magnitude sorts first), non-negatives get the sign bit set;
 *   so -Inf < ... < -0 < +0 < ... < +Inf. Every NaN (either sign, any payload) maps to 0xffffffff: last.
 * Descending order inverts the mapped key (NaNs then come first, as in `torch.sort(descending=True)`).
 *
 * `generated`: the function is written for `order`'s type and direction. Otherwise it branches on the
 * uniform parameters `key_type` ({@link KEY_TYPE_CODE}) and `invert` (0 or 0xffffffff). On the H100 (2^27
 * u32, same command) the generated form made key sorts faster (6.20 -> 5.45 ms: the ranking kernel had
 * spent 15 % of its time on those branches), yet the pairs' ranking kernel slower (7.26 -> 10.14 ms, from
 * the compiler's code for the whole kernel: hoisting the values' loads and packing registers were ruled
 * out). So key-only kernels take the generated form and the pairs' ranking kernels the parameterized one.
 */
export function orderKeyWgsl(order: KeyOrder, generated: boolean): string {
  if (!generated) {
    return /* wgsl */ `
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
  }
  const mapped =
    order.type === 'u32'
      ? 'raw'
      : order.type === 'i32'
        ? '(raw ^ 0x80000000u)'
        : // f32; NaNs (magnitude above infinity's bits) last.
          'select(select(raw | 0x80000000u, ~raw, (raw & 0x80000000u) != 0u), 0xffffffffu, (raw & 0x7fffffffu) > 0x7f800000u)';
  return /* wgsl */ `
fn order_key(raw: u32) -> u32 { return ${order.descending ? `~${mapped}` : mapped}; }`;
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
