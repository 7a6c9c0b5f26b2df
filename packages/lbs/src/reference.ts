/** Plain TypeScript references for the tests. */

/** Exclusive scan of segment lengths: the segment starts, and the total item count. */
export function offsetsOf(lengths: ArrayLike<number>): { offsets: Uint32Array; count: number } {
  const offsets = new Uint32Array(lengths.length);
  let count = 0;
  for (let s = 0; s < lengths.length; s++) {
    offsets[s] = count;
    count += lengths[s]!;
  }
  return { offsets, count };
}

/** Calls `f(index, seg, rank)` for every item in order. */
export function forEachItem(
  count: number,
  offsets: ArrayLike<number>,
  numSegments: number,
  f: (index: number, seg: number, rank: number) => void,
): void {
  for (let s = 0; s < numSegments; s++) {
    const end = s + 1 < numSegments ? offsets[s + 1]! : count;
    for (let i = offsets[s]!; i < end; i++) f(i, s, i - offsets[s]!);
  }
}

export function loadBalancedSearchReference(
  count: number,
  offsets: ArrayLike<number>,
  numSegments: number,
): Uint32Array {
  const out = new Uint32Array(count);
  forEachItem(count, offsets, numSegments, (i, s) => {
    out[i] = s;
  });
  return out;
}

/** `n` uniform lengths in [0, 2 * mean]. */
export function uniformLengths(n: number, mean: number, random: () => number): Uint32Array {
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(random() * (2 * mean + 1));
  return out;
}
