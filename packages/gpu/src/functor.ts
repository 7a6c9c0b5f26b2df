import { DeviceArray, type ElementType } from './array.ts';
import { InputError } from './errors.ts';

/** How a functor uses a captured array. */
export type ArrayAccess = 'read' | 'read_write' | 'atomic';

/** A captured device array with its access mode. */
export interface ArrayCapture {
  readonly kind: 'array';
  readonly array: DeviceArray;
  readonly access: ArrayAccess;
}

/** A captured scalar: passed through the dispatch's uniform parameters, so new values reuse the pipeline. */
export interface ScalarCapture {
  readonly kind: 'scalar';
  readonly type: ElementType;
  readonly value: number;
}

/** WGSL text spliced verbatim (a type name, a constant): part of the pipeline's cache key. */
export interface Literal {
  readonly kind: 'literal';
  readonly text: string;
}

/** A functor's text spliced in place (not declared as a helper): what `load`/`store` of a chunked array give. */
export interface Inline {
  readonly kind: 'inline';
  readonly functor: Functor;
}

export type Capture = ArrayCapture | ScalarCapture;
/**
 * What a `wgsl` template interpolates: an array, a captured scalar, a literal, another functor, an inline
 * functor or WGSL text.
 */
export type Interpolation = DeviceArray | Capture | Literal | Inline | Functor | string;

/** Splices `functor`'s text where it is interpolated, with its captures named as the template's own. */
export function inline(functor: Functor): Inline {
  return { kind: 'inline', functor };
}

/** Captures `array` for reading and writing. */
export function rw(array: DeviceArray): ArrayCapture {
  return { kind: 'array', array, access: 'read_write' };
}

/** Captures a u32 or i32 `array` as `array<atomic<T>>`. */
export function atomic(array: DeviceArray<'u32' | 'i32'>): ArrayCapture {
  if ((array.type as string) === 'f32')
    throw new InputError('WGSL has no f32 atomics', `atomic(${array.label})`);
  return { kind: 'array', array, access: 'atomic' };
}

/** Captures a u32 scalar value. */
export function u32(value: number): ScalarCapture {
  return { kind: 'scalar', type: 'u32', value };
}
/** Captures an i32 scalar value. */
export function i32(value: number): ScalarCapture {
  return { kind: 'scalar', type: 'i32', value };
}
/** Captures an f32 scalar value. */
export function f32(value: number): ScalarCapture {
  return { kind: 'scalar', type: 'f32', value };
}
/** Splices WGSL text (changing it compiles a new pipeline; use u32()/f32() for run-time values). */
export function lit(text: string | number): Literal {
  return { kind: 'literal', text: String(text) };
}

/**
 * A functor: a WGSL function's parameter list and body with typed captures, written as a tagged template:
 *
 * ```ts
 * const double = wgsl`(i: u32) -> u32 { return ${input}[i] * 2u; }`;
 * ```
 *
 * A kernel template declares it under a name of its choosing (`fn weft_op(i: u32) -> u32 { ... }`).
 * Captured arrays become generated storage bindings; captured scalars become uniform fields. Nested functors
 * (interpolated `Functor`s) are declared once as helper functions and called by their generated name.
 */
export class Functor {
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly Interpolation[],
    /** The tagged template's strings object: one per call site, so it identifies the functor's shape cheaply. */
    readonly source?: TemplateStringsArray,
  ) {
    values.forEach((v, i) => {
      if (
        typeof v === 'number' ||
        typeof v === 'bigint' ||
        typeof v === 'boolean' ||
        v === null ||
        v === undefined
      ) {
        throw new InputError(
          `interpolation ${i} is ${String(v)}: wrap numbers in u32()/i32()/f32() to capture them, or lit() to splice them`,
          'wgsl`...`',
        );
      }
    });
  }
}

/** Tagged template that makes a {@link Functor}. */
export function wgsl(strings: TemplateStringsArray, ...values: Interpolation[]): Functor {
  return new Functor([...strings], values, strings);
}

const templateIds = new WeakMap<TemplateStringsArray, number>();
let nextTemplateId = 0;

/** What `linkFunctors` would produce, without rendering: a key of the WGSL text and the captures in order. */
export interface FunctorShape {
  /** Equal keys give equal linked WGSL text. */
  readonly key: string;
  /** Captured arrays in binding order (first appearance), as `linkFunctors` assigns them. */
  readonly arrays: readonly DeviceArray[];
  /** Captured scalar values in field order. */
  readonly scalars: readonly number[];
}

/**
 * The shape of a set of functors, walked in the same order as `linkFunctors` names things, so a kernel whose
 * shape was seen before can reuse its generated text and only rebind captures (recording stays cheap in
 * graph loops that build the same kernels every iteration).
 */
export function functorShape(functors: Readonly<Record<string, Functor>>): FunctorShape {
  const parts: string[] = [];
  const arrays = new Map<DeviceArray, number>();
  const helpers = new Map<Functor, number>();
  const scalars: number[] = [];
  const array = (a: DeviceArray, access: ArrayAccess) => {
    let index = arrays.get(a);
    if (index === undefined) {
      index = arrays.size;
      arrays.set(a, index);
    }
    parts.push(`a${index}${a.type}${access}`);
  };
  const visit = (f: Functor) => {
    if (f.source) {
      let id = templateIds.get(f.source);
      if (id === undefined) {
        id = nextTemplateId++;
        templateIds.set(f.source, id);
      }
      parts.push(`T${id}(`);
    } else {
      parts.push(`S${JSON.stringify(f.strings)}(`);
    }
    for (const v of f.values) {
      if (typeof v === 'string') parts.push(`s${JSON.stringify(v)}`);
      else if (v instanceof DeviceArray) array(v, 'read');
      else if (v instanceof Functor) {
        const seen = helpers.get(v);
        if (seen !== undefined) parts.push(`h${seen}`);
        else {
          helpers.set(v, helpers.size);
          parts.push('H');
          visit(v);
        }
      } else if (v.kind === 'literal') parts.push(`l${JSON.stringify(v.text)}`);
      else if (v.kind === 'inline') {
        parts.push('I');
        visit(v.functor);
      } else if (v.kind === 'array') array(v.array, v.access);
      else {
        scalars.push(v.value);
        parts.push(`c${v.type}`);
      }
    }
    parts.push(')');
  };
  for (const [name, f] of Object.entries(functors)) {
    parts.push(`N${name}`);
    visit(f);
  }
  return { key: parts.join(''), arrays: [...arrays.keys()], scalars };
}

/** A binding that a linked kernel needs for functor captures. */
interface CaptureBinding {
  readonly name: string;
  readonly array: DeviceArray;
  readonly access: ArrayAccess;
}

/** A scalar field of the kernel's uniform parameters that a functor captured. */
export interface CaptureScalar {
  readonly name: string;
  readonly type: ElementType;
  readonly value: number;
}

/** The result of linking functors into a kernel: WGSL text plus what to bind at dispatch. */
export interface LinkedFunctors {
  readonly code: string;
  readonly bindings: readonly CaptureBinding[];
  readonly scalars: readonly CaptureScalar[];
}

/**
 * Declares each functor as `fn <name><text>` and assigns capture names. Names depend only on the order of
 * captures, so the same functor shape with other arrays yields the same WGSL text (and pipeline).
 * An array captured several times shares one binding; its access is the strongest asked for.
 */
export function linkFunctors(
  functors: Readonly<Record<string, Functor>>,
  paramsVar = 'params',
): LinkedFunctors {
  const arrays = new Map<DeviceArray, { name: string; access: ArrayAccess }>();
  const scalars: CaptureScalar[] = [];
  const helpers = new Map<Functor, string>();
  const decls: string[] = [];

  const render = (f: Functor): string => {
    let out = f.strings[0] ?? '';
    f.values.forEach((v, i) => {
      out += renderValue(v) + (f.strings[i + 1] ?? '');
    });
    return out;
  };
  const renderValue = (v: Interpolation): string => {
    if (typeof v === 'string') return v;
    if (v instanceof DeviceArray) return arrayName(v, 'read');
    if (v instanceof Functor) {
      let name = helpers.get(v);
      if (name === undefined) {
        name = `weft_helper_${helpers.size}`;
        helpers.set(v, name);
        decls.push(`fn ${name}${render(v)}`);
      }
      return name;
    }
    switch (v.kind) {
      case 'literal':
        return v.text;
      case 'inline':
        return render(v.functor);
      case 'array':
        return arrayName(v.array, v.access);
      case 'scalar': {
        const name = `cap_s${scalars.length}`;
        scalars.push({ name, type: v.type, value: v.value });
        return `${paramsVar}.${name}`;
      }
    }
  };
  const arrayName = (array: DeviceArray, access: ArrayAccess): string => {
    const seen = arrays.get(array);
    if (seen) {
      if ((seen.access === 'atomic') !== (access === 'atomic')) {
        throw new InputError(
          `array '${array.label}' is captured both as atomic and as plain; WGSL needs one type per binding`,
          'functor captures',
        );
      }
      if (access === 'read_write') seen.access = 'read_write';
      return seen.name;
    }
    const name = `cap_a${arrays.size}`;
    arrays.set(array, { name, access });
    return name;
  };

  for (const [name, f] of Object.entries(functors)) decls.push(`fn ${name}${render(f)}`);
  const bindings = [...arrays].map(([array, { name, access }]) => ({ name, array, access }));
  return { code: decls.join('\n\n'), bindings, scalars };
}

/**
 * How many storage bindings the arrays that `functor` captures take (each distinct array once), so an operator
 * can pick a kernel variant that fits the device's `maxStorageBuffersPerShaderStage` before generating it.
 */
export function functorBindingCount(functor: Functor): number {
  return linkFunctors({ f: functor }).bindings.length;
}
