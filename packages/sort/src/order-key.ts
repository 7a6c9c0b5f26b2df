import type { ElementType } from '@weft/gpu';

/** Key type codes for the `key_type` parameter of `order_key_uniform`. */
export const KEY_TYPE_CODE = { u32: 0, i32: 1, f32: 2 } as const;

/** Uniform parameters of {@link orderKeyWgsl}'s `order_key_uniform` (declared by every sort kernel). */
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
 * WGSL `fn order_key(raw: u32) -> u32` and its twin `order_key_uniform`: map a key's bits to a u32 whose
 * unsigned order is the key's order.
 * - u32: the bits themselves.
 * - i32: flip the sign bit, so negatives come first.
 * - f32: negatives have all bits flipped (larger magnitude sorts first), non-negatives get the sign bit set;
 *   so -Inf < ... < -0 < +0 < ... < +Inf. Every NaN (either sign, any payload) maps to 0xffffffff: last.
 * Descending order inverts the mapped key (NaNs then come first, as in `torch.sort(descending=True)`).
 *
 * `order_key` is written for `order`'s type and direction; `order_key_uniform` branches on the uniform
 * parameters `key_type` ({@link KEY_TYPE_CODE}) and `invert` (0 or 0xffffffff). Both exist because of what
 * the H100 measured (2^27 u32, bench, same commands): the written form made key sorts faster (6.20 -> 5.45
 * ms; the ranking kernel had spent 15 % of its time on those branches), but where the *pairs'* ranking
 * loop used it, pairs went 7.30 -> 10.58 ms (in their scatter alone it helps: 7.30 -> 7.15). Hoisting of
 * the values' loads and register packing were tried and ruled out; it is the compiler's code for the whole
 * kernel. So the pairs kernels rank with `order_key_uniform` and everything else uses `order_key`.
 */
export function orderKeyWgsl(order: KeyOrder): string {
  const mapped =
    order.type === 'u32'
      ? 'raw'
      : order.type === 'i32'
        ? '(raw ^ 0x80000000u)'
        : // f32; NaNs (magnitude above infinity's bits) last.
          'select(select(raw | 0x80000000u, ~raw, (raw & 0x80000000u) != 0u), 0xffffffffu, (raw & 0x7fffffffu) > 0x7f800000u)';
  return /* wgsl */ `
fn order_key(raw: u32) -> u32 { return ${order.descending ? `~${mapped}` : mapped}; }
fn order_key_uniform(raw: u32) -> u32 {
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

/**
 * Raw bits of a key whose `order_key` is 0xffffffff, so its digit is the largest in every pass: it pads a
 * tile past the input's end. None for descending f32 (no float maps to 0 before the inversion).
 */
export function padKeyOf(order: KeyOrder): number | undefined {
  const { type, descending } = order;
  if (type === 'u32') return descending ? 0 : 0xffffffff;
  if (type === 'i32') return descending ? 0x80000000 : 0x7fffffff;
  return descending ? undefined : 0x7fc00000; // a NaN: every NaN maps to 0xffffffff
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
