/** Null when the arrays are equal, else a message naming the first differing element. */
export function firstMismatch(actual: ArrayLike<number>, expected: ArrayLike<number>): string | null {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i] && !(Number.isNaN(actual[i]) && Number.isNaN(expected[i]))) {
      return `element ${i} is ${actual[i]}, expected ${expected[i]}`;
    }
  }
  return null;
}

/** Null when every element is within `tolerance(i)` of the reference. */
export function firstFar(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  tolerance: (i: number) => number,
): string | null {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    if (!(Math.abs(actual[i]! - expected[i]!) <= tolerance(i))) {
      return `element ${i} is ${actual[i]}, expected ${expected[i]} (tolerance ${tolerance(i)})`;
    }
  }
  return null;
}
