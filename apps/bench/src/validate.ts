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
