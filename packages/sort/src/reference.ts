import type { ElementType } from '@weft/gpu';

/** Plain TypeScript references for the tests: Array.prototype.sort with explicit comparators. */

/** f32 order: -Inf < ... < -0 < +0 < ... < +Inf < NaN. */
function compareF32(x: number, y: number): number {
  const nx = Number.isNaN(x);
  const ny = Number.isNaN(y);
  if (nx || ny) return Number(nx) - Number(ny);
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === 0) return Number(!Object.is(x, -0)) - Number(!Object.is(y, -0));
  return 0;
}

function numbersOf(type: ElementType, raw: Uint32Array): ArrayLike<number> {
  if (type === 'u32') return raw;
  if (type === 'i32') return new Int32Array(raw.buffer, raw.byteOffset, raw.length);
  return new Float32Array(raw.buffer, raw.byteOffset, raw.length);
}

/**
 * The stable sorting permutation of keys given as raw bits: `perm[i]` is the input index of the i-th key
 * in sorted order. `lowBits` (u32 keys only) compares only the key's low bits.
 */
export function referencePermutation(
  type: ElementType,
  raw: Uint32Array,
  descending = false,
  lowBits = 32,
): number[] {
  const values = numbersOf(type, raw);
  const mask = lowBits >= 32 ? 0xffffffff : 2 ** lowBits - 1;
  const keyOf =
    type === 'u32' && lowBits < 32
      ? (i: number) => (raw[i]! & mask) >>> 0
      : type === 'i32' && lowBits < 32
        ? (i: number) => (values[i]! & mask) >>> 0
        : (i: number) => values[i]!;
  const compare = type === 'f32' ? compareF32 : (x: number, y: number) => x - y;
  const index = Array.from({ length: raw.length }, (_, i) => i);
  const sign = descending ? -1 : 1;
  return index.sort((a, b) => sign * compare(keyOf(a), keyOf(b)) || a - b);
}

export function permute(raw: ArrayLike<number>, perm: readonly number[]): Uint32Array {
  const out = new Uint32Array(perm.length);
  for (let i = 0; i < perm.length; i++) out[i] = raw[perm[i]!]!;
  return out;
}

/** Index of the first element >= x (lower) or > x (upper) in ascending `haystack`. */
export function referenceBound(haystack: ArrayLike<number>, x: number, upper: boolean): number {
  let lo = 0;
  let hi = haystack.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (upper ? haystack[mid]! <= x : haystack[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Multiset intersection size of two ascending arrays, by a sequential merge. */
export function referenceIntersectCount(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let i = 0;
  let j = 0;
  let count = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      count++;
      i++;
      j++;
    }
  }
  return count;
}
