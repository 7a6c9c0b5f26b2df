import type { ElementType } from '@weft/gpu';

/** How keys are ordered: their type (the bits' meaning) and the direction. */
export interface KeyOrder {
  readonly type: ElementType;
  readonly descending: boolean;
}

/**
 * WGSL `fn order_key(raw: u32) -> u32`, written for `order`'s type and direction: maps a key's bits to a u32
 * whose unsigned order is the key's order.
 * - u32: the bits themselves.
 * - i32: flip the sign bit, so negatives come first.
 * - f32: negatives have all bits flipped (larger magnitude sorts first), non-negatives get the sign bit set;
 *   so -Inf < ... < -0 < +0 < ... < +Inf. Every NaN (either sign, any payload) maps to 0xffffffff: last.
 * Descending order inverts the mapped key (NaNs then come first, as in `torch.sort(descending=True)`).
 * Written per order rather than branching on uniform parameters, which the GPU compiler turned into slower
 * ranking kernels (docs/decisions/sort-ranking.md).
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
fn order_key(raw: u32) -> u32 { return ${order.descending ? `~${mapped}` : mapped}; }`;
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

/** The TypeScript twin of the kernels' WGSL `order_key` for one key given as raw bits (used by tests and references). */
export function orderKeyOf(type: ElementType, raw: number, descending = false): number {
  let k: number;
  if (type === 'u32') k = raw >>> 0;
  else if (type === 'i32') k = (raw ^ 0x80000000) >>> 0;
  else if ((raw & 0x7fffffff) >>> 0 > 0x7f800000) k = 0xffffffff;
  else if (raw & 0x80000000) k = ~raw >>> 0;
  else k = (raw | 0x80000000) >>> 0;
  return descending ? ~k >>> 0 : k;
}
