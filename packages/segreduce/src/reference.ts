/** Plain TypeScript references for the tests. */

export function offsetsOf(lengths: ArrayLike<number>): { offsets: Uint32Array; count: number } {
  const offsets = new Uint32Array(lengths.length);
  let count = 0;
  for (let s = 0; s < lengths.length; s++) {
    offsets[s] = count;
    count += lengths[s]!;
  }
  return { offsets, count };
}

export interface HostMonoid {
  readonly identity: number;
  readonly combine: (a: number, b: number) => number;
}

/** Host monoids with the GPU's arithmetic: u32 wraps, i32 wraps, f32 rounds each step. */
export const hostMonoids = {
  'plus u32': { identity: 0, combine: (a, b) => (a + b) >>> 0 },
  'plus i32': { identity: 0, combine: (a, b) => (a + b) | 0 },
  'plus f32': { identity: 0, combine: (a, b) => Math.fround(a + b) },
  'min u32': { identity: 0xffffffff, combine: Math.min },
  'min i32': { identity: 2147483647, combine: Math.min },
  'min f32': { identity: 3.4028234663852886e38, combine: Math.min },
  'max u32': { identity: 0, combine: Math.max },
  'max i32': { identity: -2147483648, combine: Math.max },
  'max f32': { identity: -3.4028234663852886e38, combine: Math.max },
} satisfies Record<string, HostMonoid>;

/** output[s] = combination of value(i, s, rank) over segment s; identity when empty. */
export function segreduceReference(
  count: number,
  offsets: ArrayLike<number>,
  numSegments: number,
  value: (index: number, seg: number, rank: number) => number,
  monoid: HostMonoid,
): number[] {
  const out: number[] = [];
  for (let s = 0; s < numSegments; s++) {
    const end = s + 1 < numSegments ? offsets[s + 1]! : count;
    let acc = monoid.identity;
    for (let i = offsets[s]!; i < end; i++) acc = monoid.combine(acc, value(i, s, i - offsets[s]!));
    out.push(acc);
  }
  return out;
}
