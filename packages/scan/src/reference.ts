import type { ElementType, HostArray } from '@weft/gpu';

/** A host-side binary operation matching a monoid, on values already rounded to the element type. */
export type HostCombine = (a: number, b: number) => number;

const rounders: Record<ElementType, (x: number) => number> = {
  u32: (x) => x >>> 0,
  i32: (x) => x | 0,
  f32: Math.fround,
};

/** Host operations of the built-in monoids, for references (`plus` wraps like the GPU's u32/i32 adds). */
export const hostMonoids = {
  plus: (type: ElementType): HostCombine => {
    const r = rounders[type];
    return (a, b) => r(a + b);
  },
  min: (): HostCombine => Math.min,
  max: (): HostCombine => Math.max,
  bitOr: (type: 'u32' | 'i32'): HostCombine => (type === 'u32' ? (a, b) => (a | b) >>> 0 : (a, b) => a | b),
};

/** TypeScript reference scan (sequential, in the array's precision). */
export function hostScan<A extends HostArray<ElementType>>(
  input: A,
  combine: HostCombine,
  identity: number,
  inclusive: boolean,
): A {
  const out = new (input.constructor as new (n: number) => A)(input.length);
  let acc = identity;
  for (let i = 0; i < input.length; i++) {
    if (inclusive) {
      acc = combine(acc, input[i]!);
      out[i] = acc;
    } else {
      out[i] = acc;
      acc = combine(acc, input[i]!);
    }
  }
  return out;
}

/** TypeScript reference reduction. */
export function hostReduce(input: ArrayLike<number>, combine: HostCombine, identity: number): number {
  let acc = identity;
  for (let i = 0; i < input.length; i++) acc = combine(acc, input[i]!);
  return acc;
}
