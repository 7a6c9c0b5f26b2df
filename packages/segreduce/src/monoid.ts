import { Functor, InputError } from '@weft/gpu';

/** The element types a segmented reduction works on. */
export type ReduceType = 'u32' | 'i32' | 'f32';

/**
 * An associative, commutative operation with an identity: `combine` is a functor `(a: T, b: T) -> T`,
 * `identity` a WGSL expression of type T (what empty segments get). `atomic` names the WGSL built-in that
 * folds a value into memory the same way, when there is one (u32/i32 plus, min, max); other monoids fold
 * with a compare-exchange loop. The same shape as @weft/scan's Monoid, so either can be passed later.
 */
export interface Monoid<T extends ReduceType = ReduceType> {
  readonly type: T;
  readonly identity: string;
  readonly combine: Functor;
  readonly atomic?: 'atomicAdd' | 'atomicMin' | 'atomicMax';
}

function check(type: string, who: string): void {
  if (type !== 'u32' && type !== 'i32' && type !== 'f32') {
    throw new InputError(`type must be 'u32', 'i32' or 'f32', got '${type}'`, who);
  }
}

function combine(type: string, body: string): Functor {
  return new Functor([`(a: ${type}, b: ${type}) -> ${type} { return ${body}; }`], []);
}

/** Addition (identity 0). */
export function plus<T extends ReduceType>(type: T): Monoid<T> {
  check(type, 'plus');
  return {
    type,
    identity: `${type}(0)`,
    combine: combine(type, 'a + b'),
    ...(type === 'f32' ? {} : { atomic: 'atomicAdd' as const }),
  };
}

// WGSL rejects infinities in constant expressions: f32 min/max use the largest finite f32.
const F32_MAX = '0x1.fffffep+127f';

/** Minimum (identity: the type's largest value; for f32 the largest finite one). */
export function min<T extends ReduceType>(type: T): Monoid<T> {
  check(type, 'min');
  const identity = { u32: '0xffffffffu', i32: '2147483647i', f32: F32_MAX }[type];
  return {
    type,
    identity,
    combine: combine(type, 'min(a, b)'),
    ...(type === 'f32' ? {} : { atomic: 'atomicMin' as const }),
  };
}

/** Maximum (identity: the type's smallest value; for f32 the lowest finite one). */
export function max<T extends ReduceType>(type: T): Monoid<T> {
  check(type, 'max');
  const identity = { u32: '0u', i32: 'bitcast<i32>(0x80000000u)', f32: `-${F32_MAX}` }[type];
  return {
    type,
    identity,
    combine: combine(type, 'max(a, b)'),
    ...(type === 'f32' ? {} : { atomic: 'atomicMax' as const }),
  };
}
