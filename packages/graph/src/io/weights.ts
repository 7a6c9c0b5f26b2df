import { InputError } from '@weft/gpu';
import type { HostWeights } from '../host-graph.ts';

/** How a text loader stores weights: `'auto'` picks u32 for non-negative integers, i32 for integers, else f32. */
export type WeightType = 'auto' | 'u32' | 'i32' | 'f32';

/** Converts parsed weights to the requested typed array; values that do not fit are an {@link InputError}. */
export function toWeights(values: Float64Array, type: WeightType, where: string): HostWeights {
  let chosen = type;
  if (chosen === 'auto') {
    let integral = true;
    let nonNegative = true;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (!Number.isInteger(v)) integral = false;
      if (v < 0) nonNegative = false;
    }
    chosen = !integral ? 'f32' : nonNegative ? 'u32' : 'i32';
  }
  if (chosen === 'f32') return Float32Array.from(values);
  const [lo, hi] = chosen === 'u32' ? [0, 2 ** 32 - 1] : [-(2 ** 31), 2 ** 31 - 1];
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isInteger(v) || v < lo || v > hi) {
      throw new InputError(`weight ${i} (${v}) is not a ${chosen} value`, where);
    }
  }
  return chosen === 'u32' ? Uint32Array.from(values) : Int32Array.from(values);
}
