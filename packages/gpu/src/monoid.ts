import type { ElementType } from './array.ts';
import { InputError } from './errors.ts';
import { Functor } from './functor.ts';

/** A functor from fixed WGSL text (no captures). */
function fixed(text: string): Functor {
  return new Functor([text], []);
}

/** Atomic built-ins that fold a value into a u32/i32 result in memory in one step. */
export type AtomicFold = 'atomicAdd' | 'atomicMin' | 'atomicMax' | 'atomicOr';

/**
 * An associative and commutative operation with an identity: what scans, reductions and segmented
 * reductions combine with. `combine` is a functor `(a: T, b: T) -> T`; `identity` a WGSL expression of
 * type T (what empty segments get). Built-in monoids also name subgroup built-ins and an atomic that compute
 * the same operation faster; without an atomic, a fold into memory uses a compare-exchange loop.
 */
export interface Monoid<T extends ElementType = ElementType> {
  readonly type: T;
  readonly identity: string;
  readonly combine: Functor;
  /** Subgroup built-ins for this operation: `reduce` (e.g. `subgroupAdd`), and the scans where WGSL has them. */
  readonly subgroup?: { readonly reduce: string; readonly inclusive?: string; readonly exclusive?: string };
  readonly atomic?: AtomicFold;
}

const TYPES: readonly string[] = ['u32', 'i32', 'f32'];

function checkType(type: string, who: string): void {
  if (!TYPES.includes(type)) {
    throw new InputError(`type must be 'u32', 'i32' or 'f32', got '${type}'`, who);
  }
}

/** Addition; the subgroup scans `subgroupInclusiveAdd`/`subgroupExclusiveAdd` exist only for it (and mul). */
export function plus<T extends ElementType>(type: T): Monoid<T> {
  checkType(type, 'plus');
  return {
    type,
    identity: `${type}(0)`,
    combine: fixed(`(a: ${type}, b: ${type}) -> ${type} { return a + b; }`),
    subgroup: { reduce: 'subgroupAdd', inclusive: 'subgroupInclusiveAdd', exclusive: 'subgroupExclusiveAdd' },
    ...(type === 'f32' ? {} : { atomic: 'atomicAdd' as const }),
  };
}

// The largest finite f32 by its bits: WGSL rejects infinities, and the decimal literal does not round-trip.
const F32_MAX = 'bitcast<f32>(0x7f7fffffu)';
const F32_LOWEST = 'bitcast<f32>(0xff7fffffu)';
const IDENTITY_MIN = { u32: '0xffffffffu', i32: '2147483647i', f32: F32_MAX } as const;
const IDENTITY_MAX = { u32: '0u', i32: 'bitcast<i32>(0x80000000u)', f32: F32_LOWEST } as const;

/** Minimum. The f32 identity is the largest finite f32, so +inf inputs come back as that value. */
export function min<T extends ElementType>(type: T): Monoid<T> {
  checkType(type, 'min');
  return {
    type,
    identity: IDENTITY_MIN[type],
    combine: fixed(`(a: ${type}, b: ${type}) -> ${type} { return min(a, b); }`),
    subgroup: { reduce: 'subgroupMin' },
    ...(type === 'f32' ? {} : { atomic: 'atomicMin' as const }),
  };
}

/** Maximum. The f32 identity is the lowest finite f32. */
export function max<T extends ElementType>(type: T): Monoid<T> {
  checkType(type, 'max');
  return {
    type,
    identity: IDENTITY_MAX[type],
    combine: fixed(`(a: ${type}, b: ${type}) -> ${type} { return max(a, b); }`),
    subgroup: { reduce: 'subgroupMax' },
    ...(type === 'f32' ? {} : { atomic: 'atomicMax' as const }),
  };
}

/** Bitwise or of integers. */
export function bitOr<T extends 'u32' | 'i32'>(type: T): Monoid<T> {
  if (type !== 'u32' && type !== 'i32') {
    throw new InputError(`bitOr needs 'u32' or 'i32', got '${type}'`, 'bitOr');
  }
  return {
    type,
    identity: `${type}(0)`,
    combine: fixed(`(a: ${type}, b: ${type}) -> ${type} { return a | b; }`),
    subgroup: { reduce: 'subgroupOr' },
    atomic: 'atomicOr',
  };
}

/**
 * A user monoid: `combine` must be associative and commutative (tiles are reduced in a different order
 * than they are scanned), and `identity` its identity. Subgroup steps use shuffles.
 *
 * ```ts
 * const maxAbs = monoid({ type: 'i32', identity: '0i', combine: wgsl`(a: i32, b: i32) -> i32 { return max(abs(a), abs(b)); }` });
 * ```
 */
export function monoid<T extends ElementType>(spec: {
  type: T;
  identity: string;
  combine: Functor;
}): Monoid<T> {
  checkType(spec.type, 'monoid');
  if (spec.identity.trim() === '') throw new InputError('identity must be a WGSL expression', 'monoid');
  return { type: spec.type, identity: spec.identity, combine: spec.combine };
}
