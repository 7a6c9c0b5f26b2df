import { InputError } from '@weft/gpu';
import { DEFAULT_MAX_LINE_BYTES } from './budget.ts';

/** Bytes of a file arriving in chunks: a Node stream, `response.body`, or {@link bytesSource}. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** A ByteSource over bytes (or text, UTF-8 encoded) already in memory, cut into `chunkSize`-byte chunks. */
export function bytesSource(data: Uint8Array | string, chunkSize = 1 << 20): Iterable<Uint8Array> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  if (!(chunkSize >= 1)) throw new InputError(`chunkSize must be at least 1, got ${chunkSize}`, 'chunkSize');
  return {
    *[Symbol.iterator]() {
      for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.subarray(i, i + chunkSize);
    },
  };
}

/**
 * The chunks of a web `ReadableStream` (e.g. `fetch(url).then((r) => r.body)`), for browsers whose streams are
 * not async-iterable yet.
 */
export async function* readableChunks(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * One line of a text file without its line ending: `bytes[start .. end)`. The view is only valid during the
 * callback (the bytes may be a carry buffer reused for the next line).
 */
export type LineHandler = (bytes: Uint8Array, start: number, end: number, lineNumber: number) => void;

const LF = 10;
const CR = 13;

/**
 * Calls `onLine` for every line (LF or CRLF endings; a last line without an ending counts), reading the source
 * chunk by chunk. Lines that straddle chunks are joined in a carry buffer; nothing holds the whole file.
 * A line longer than `maxLineBytes` (its LF excluded) is an {@link InputError} at `name:line`, raised before the
 * carry buffer grows past the bound. Returns the number of lines.
 */
export async function forEachLine(
  source: ByteSource,
  onLine: LineHandler,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
  name = 'input',
): Promise<number> {
  let carry: Uint8Array = new Uint8Array(256);
  let carryLength = 0;
  let line = 0;
  const tooLong = (length: number) => {
    if (length > maxLineBytes) {
      throw new InputError(`line is longer than ${maxLineBytes} bytes (maxLineBytes)`, `${name}:${line + 1}`);
    }
  };
  const emit = (bytes: Uint8Array, start: number, end: number) => {
    tooLong(end - start);
    line++;
    const stop = end > start && bytes[end - 1] === CR ? end - 1 : end;
    // A UTF-8 byte order mark is no part of the first token.
    const first =
      line === 1 &&
      stop - start >= 3 &&
      bytes[start] === 0xef &&
      bytes[start + 1] === 0xbb &&
      bytes[start + 2] === 0xbf
        ? start + 3
        : start;
    onLine(bytes, first, stop, line);
  };
  for await (const chunk of source) {
    let start = 0;
    for (let i = chunk.indexOf(LF); i !== -1; i = chunk.indexOf(LF, start)) {
      if (carryLength > 0) {
        tooLong(carryLength + i - start);
        carry = appendBytes(carry, carryLength, chunk, start, i);
        carryLength += i - start;
        emit(carry, 0, carryLength);
        carryLength = 0;
      } else {
        emit(chunk, start, i);
      }
      start = i + 1;
    }
    if (start < chunk.length) {
      tooLong(carryLength + chunk.length - start);
      carry = appendBytes(carry, carryLength, chunk, start, chunk.length);
      carryLength += chunk.length - start;
    }
  }
  if (carryLength > 0) emit(carry, 0, carryLength);
  return line;
}

function appendBytes(
  carry: Uint8Array,
  used: number,
  src: Uint8Array,
  start: number,
  end: number,
): Uint8Array {
  let out = carry;
  if (used + end - start > carry.length) {
    out = new Uint8Array(Math.max(2 * carry.length, used + end - start));
    out.set(carry.subarray(0, used));
  }
  out.set(src.subarray(start, end), used);
  return out;
}

const SPACE = 32;
const COMMA = 44;
const TAB = 9;

/** Separator bytes: space, tab, CR, vertical tab, form feed; commas only where a format allows them. */
const SEPARATORS = new Uint8Array(256);
for (const b of [SPACE, TAB, CR, 11, 12]) SEPARATORS[b] = 1;
const SEPARATORS_AND_COMMA = SEPARATORS.slice();
SEPARATORS_AND_COMMA[COMMA] = 1;

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Splits a line into tokens (separated by spaces, tabs and, when allowed, commas) and parses them. */
export class LineTokens {
  bytes: Uint8Array = new Uint8Array(0);
  readonly starts: number[] = [];
  readonly ends: number[] = [];
  count = 0;
  /** For error messages: `"<file>:<line>"`. */
  where = '';
  readonly #separator: Uint8Array;

  constructor(commas: boolean) {
    this.#separator = commas ? SEPARATORS_AND_COMMA : SEPARATORS;
  }

  split(bytes: Uint8Array, start: number, end: number, where: string): this {
    const sep = this.#separator;
    this.bytes = bytes;
    this.where = where;
    let count = 0;
    let i = start;
    while (i < end) {
      let commas = 0;
      while (i < end && sep[bytes[i]!] === 1) {
        if (bytes[i] === COMMA) commas++;
        i++;
      }
      // Commas separate fields: two before a token, or one before the first, leave a field empty (a trailing
      // comma, as some exporters write, and a line of commas only are not).
      if (i < end && (commas > 1 || (commas === 1 && count === 0))) {
        throw new InputError('empty field: two commas in a row, or a comma before the first value', where);
      }
      if (i >= end) break;
      const s = i;
      while (i < end && sep[bytes[i]!] !== 1) i++;
      this.starts[count] = s;
      this.ends[count] = i;
      count++;
    }
    this.count = count;
    return this;
  }

  text(i: number): string {
    let s = '';
    for (let k = this.starts[i]!; k < this.ends[i]!; k++) s += String.fromCharCode(this.bytes[k]!);
    return s;
  }

  /** Token `i` decoded as UTF-8 (names in files); invalid UTF-8 is an error naming the line. */
  utf8(i: number, what: string): string {
    const s = this.starts[i]!;
    const e = this.ends[i]!;
    let ascii = true;
    for (let k = s; k < e; k++) if (this.bytes[k]! >= 0x80) ascii = false;
    if (ascii) return this.text(i);
    try {
      return UTF8.decode(this.bytes.subarray(s, e));
    } catch {
      throw new InputError(`${what} is not valid UTF-8`, this.where);
    }
  }

  /** Digits `[s, e)` as a number, or -1 if any byte is not a digit or there are none. */
  #digits(s: number, e: number): number {
    if (s >= e) return -1;
    const bytes = this.bytes;
    let v = 0;
    for (let k = s; k < e; k++) {
      const d = bytes[k]! - 48;
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    return v;
  }

  /** Token `i` as a non-negative integer (at most 2^53 - 1); `what` names it in errors. */
  unsigned(i: number, what: string): number {
    const s = this.starts[i]!;
    const e = this.ends[i]!;
    const v = this.#digits(s, e);
    if (v < 0) {
      if (this.bytes[s] === 45 /* - */ && this.#digits(s + 1, e) >= 0) {
        throw new InputError(`${what} is negative: '${this.text(i)}'`, this.where);
      }
      throw new InputError(`${what} is not a non-negative integer: '${this.text(i)}'`, this.where);
    }
    if (!Number.isSafeInteger(v)) throw new InputError(`${what} is too large: '${this.text(i)}'`, this.where);
    return v;
  }

  /** Token `i` as an integer, sign allowed. */
  integer(i: number, what: string): number {
    const s = this.starts[i]!;
    const sign = this.bytes[s] === 45 ? -1 : 1;
    const digits = this.bytes[s] === 45 || this.bytes[s] === 43 ? s + 1 : s;
    const v = this.#digits(digits, this.ends[i]!);
    if (v < 0) throw new InputError(`${what} is not an integer: '${this.text(i)}'`, this.where);
    if (!Number.isSafeInteger(v)) throw new InputError(`${what} is too large: '${this.text(i)}'`, this.where);
    return sign * v;
  }

  /** Token `i` as a decimal real number (no hex, no Infinity or NaN). */
  real(i: number, what: string): number {
    const s = this.starts[i]!;
    const e = this.ends[i]!;
    const sign = this.bytes[s] === 45 ? -1 : 1;
    const digits = this.bytes[s] === 45 || this.bytes[s] === 43 ? s + 1 : s;
    // Short digit runs are exact as integers; everything else goes through the decimal parser.
    if (e - digits <= 15) {
      const v = this.#digits(digits, e);
      if (v >= 0) return sign * v;
    }
    const text = this.text(i);
    if (!REAL.test(text)) throw new InputError(`${what} is not a number: '${text}'`, this.where);
    const v = Number(text);
    // '1e999' passes the pattern but is no finite number.
    if (!Number.isFinite(v)) throw new InputError(`${what} is too large: '${text}'`, this.where);
    return v;
  }
}

const REAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * First byte that is not a separator (space, tab, CR, vertical tab, form feed), or -1: a line of separators
 * only is blank, so a non-blank line always has a first token.
 */
export function firstNonBlank(bytes: Uint8Array, start: number, end: number): number {
  for (let k = start; k < end; k++) {
    const b = bytes[k]!;
    if (SEPARATORS[b] !== 1) return b;
  }
  return -1;
}
