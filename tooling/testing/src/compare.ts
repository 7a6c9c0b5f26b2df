import { expect } from 'vitest';

/**
 * Tolerance for a sum of `terms` f32 values whose absolute values sum to `magnitude`: the GPU adds in a
 * different order than the reference, so allow the usual error bound of recursive summation.
 */
export function ulpTolerance(terms: number, magnitude: number): number {
  return Math.max(1e-6, 2 ** -23 * Math.max(1, Math.log2(Math.max(terms, 2))) * 4 * magnitude);
}

/** Element-wise comparison with a per-element absolute tolerance; reports the first mismatch. */
export function expectClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tolerance: (i: number) => number,
) {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (!(Math.abs(a - e) <= tolerance(i))) {
      expect.fail(`element ${i}: got ${a}, expected ${e} (tolerance ${tolerance(i)})`);
    }
  }
}

/**
 * Exact element-wise equality that scales to tens of millions of elements (deep equality of huge typed
 * arrays is slow and memory-hungry) and names the first mismatch.
 */
export function expectArrayEqual(actual: ArrayLike<number>, expected: ArrayLike<number>, what = 'array') {
  if (actual.length !== expected.length) {
    expect.fail(`${what}: length ${actual.length}, expected ${expected.length}`);
  }
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i]) && actual[i] !== expected[i]) {
      expect.fail(`${what}: element ${i} of ${expected.length} is ${actual[i]}, expected ${expected[i]}`);
    }
  }
}
