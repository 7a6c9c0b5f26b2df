import { InputError } from '@weft/gpu';
import type { HostWeights } from '../host-graph.ts';
import { capacityHint, Growable } from './growable.ts';

/** How a text loader stores weights: `'auto'` picks u32 for non-negative integers, i32 for integers, else f32. */
export type WeightType = 'auto' | 'u32' | 'i32' | 'f32';

const U32_MAX = 2 ** 32 - 1;
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

/** The first line (and its value) where a property breaks, or none yet. */
interface FirstBreak {
  line: number;
  value: number;
}

/**
 * Weights read line by line. The storage type is only known at the end ('auto' looks at every value), so the
 * column remembers the first line of each kind of value that some type cannot hold: the error for a value
 * that does not fit can then name its line without keeping a line number per edge.
 */
export class WeightColumn {
  readonly #values: Growable<Float64Array>;
  #nonInteger: FirstBreak | undefined;
  #negative: FirstBreak | undefined;
  #aboveU32: FirstBreak | undefined;
  #outsideI32: FirstBreak | undefined;
  #beyondF32: FirstBreak | undefined;

  constructor(claimedCount = 16) {
    this.#values = new Growable((n) => new Float64Array(n), capacityHint(claimedCount));
  }

  get length(): number {
    return this.#values.length;
  }

  push(value: number, line: number): void {
    this.#values.push(value);
    const at = { line, value };
    if (!Number.isInteger(value)) this.#nonInteger ??= at;
    if (value < 0) this.#negative ??= at;
    if (value > U32_MAX) this.#aboveU32 ??= at;
    if (value < I32_MIN || value > I32_MAX) this.#outsideI32 ??= at;
    // A finite value that f32 rounds to infinity would silently become an infinite weight.
    if (!Number.isFinite(Math.fround(value))) this.#beyondF32 ??= at;
  }

  /** The values as `type`; a value that type cannot hold is an {@link InputError} naming `name` and its line. */
  finish(type: WeightType, name: string): HostWeights {
    let chosen = type;
    if (chosen === 'auto') chosen = this.#nonInteger ? 'f32' : this.#negative ? 'i32' : 'u32';
    const breaks =
      chosen === 'f32'
        ? [this.#beyondF32]
        : chosen === 'u32'
          ? [this.#nonInteger, this.#negative, this.#aboveU32]
          : [this.#nonInteger, this.#outsideI32];
    let first: FirstBreak | undefined;
    for (const b of breaks) if (b !== undefined && (first === undefined || b.line < first.line)) first = b;
    if (first !== undefined) {
      const why =
        type === 'auto'
          ? ` (weights are stored as ${chosen}${chosen === 'f32' ? '' : ' because they are all integers'}${chosen === 'i32' ? ', some negative' : ''}; pass weightType to choose)`
          : '';
      throw new InputError(`weight ${first.value} does not fit ${chosen}${why}`, `${name}:${first.line}`);
    }
    const values = this.#values.finish();
    if (chosen === 'f32') return Float32Array.from(values);
    return chosen === 'u32' ? Uint32Array.from(values) : Int32Array.from(values);
  }
}
