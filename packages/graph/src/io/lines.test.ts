import { InputError } from '@weft/gpu';
import { mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { crc32 } from './crc32.ts';
import { bytesSource, forEachLine, LineTokens, readableChunks } from './lines.ts';

async function collect(chunks: Iterable<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  const decoder = new TextDecoder();
  await forEachLine(chunks, (bytes, start, end) => out.push(decoder.decode(bytes.subarray(start, end))));
  return out;
}

function randomChunks(bytes: Uint8Array, seed: number): Uint8Array[] {
  const r = mulberry32(seed);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const len = r() < 0.2 ? 0 : 1 + Math.floor(r() * 9);
    out.push(bytes.subarray(i, i + len));
    i += len;
  }
  return out;
}

describe('forEachLine', () => {
  it('splits LF and CRLF lines the same way for any chunk boundaries, including empty chunks', async () => {
    const text = 'a\r\nbb\n\r\n  ccc  \nlong line with a number 123456789\r\nlast without newline';
    const expected = ['a', 'bb', '', '  ccc  ', 'long line with a number 123456789', 'last without newline'];
    const bytes = new TextEncoder().encode(text);
    for (let seed = 1; seed <= 30; seed++) expect(await collect(randomChunks(bytes, seed))).toEqual(expected);
    expect(await collect(bytesSource(text, 1))).toEqual(expected);
    expect(await collect(bytesSource(`${text}\n`, 2))).toEqual(expected);
    expect(await collect(bytesSource(''))).toEqual([]);
    expect(await collect(bytesSource('\n'))).toEqual(['']);
    const long = 'x'.repeat(5000);
    expect(await collect(bytesSource(`${long}\n${long}`, 3))).toEqual([long, long]);
  });
});

describe('LineTokens', () => {
  it('parses integers, reals and refuses what is not a number', () => {
    const t = new LineTokens(true);
    const bytes = new TextEncoder().encode(' 9007199254740991,-12\t+3 .5e1 1e+2 7. 9007199254740992');
    t.split(bytes, 0, bytes.length, 'x:1');
    expect(t.count).toBe(7);
    expect(t.unsigned(0, 'a')).toBe(2 ** 53 - 1);
    expect(t.integer(1, 'b')).toBe(-12);
    expect(t.integer(2, 'c')).toBe(3);
    expect(t.real(3, 'd')).toBe(5);
    expect(t.real(4, 'e')).toBe(100);
    expect(t.real(5, 'f')).toBe(7);
    expect(() => t.unsigned(6, 'g')).toThrow(/x:1: g is too large/);
    for (const bad of ['0x10', 'Infinity', 'NaN', '1e', '-', '.']) {
      const b = new TextEncoder().encode(bad);
      t.split(b, 0, b.length, 'x:2');
      expect(() => t.real(0, 'w')).toThrow(/x:2: w is not a number/);
    }
  });
});

describe('crc32', () => {
  it('matches the standard check value and is incremental', () => {
    const bytes = new TextEncoder().encode('123456789');
    expect(crc32(0, bytes)).toBe(0xcbf43926);
    expect(crc32(crc32(0, bytes.subarray(0, 5)), bytes.subarray(5))).toBe(0xcbf43926);
    expect(crc32(0, new Uint8Array(0))).toBe(0);
  });
});

describe('readableChunks', () => {
  it('reads a web ReadableStream chunk by chunk', async () => {
    const parts = ['ab\nc', 'd\r', '\ne'].map((p) => new TextEncoder().encode(p));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const p of parts) controller.enqueue(p);
        controller.close();
      },
    });
    const out: string[] = [];
    await forEachLine(readableChunks(stream), (b, s, e) =>
      out.push(new TextDecoder().decode(b.subarray(s, e))),
    );
    expect(out).toEqual(['ab', 'cd', 'e']);
  });
});

describe('maxLineBytes', () => {
  it('refuses a line without an ending before its carry grows past the bound', async () => {
    const zeros = {
      *[Symbol.iterator]() {
        // An endless stream of NUL bytes, as /dev/zero gives: refused after the first chunks past the bound.
        for (;;) yield new Uint8Array(4096);
      },
    };
    const err = await forEachLine(zeros, () => {}, 1 << 16, 'zero.mtx').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe('zero.mtx:1: line is longer than 65536 bytes (maxLineBytes)');
    // The bound is inclusive: a line of exactly maxLineBytes (CR counted, LF not) passes.
    expect(await forEachLine(bytesSource('ab\r\nabc\n'), () => {}, 3)).toBe(2);
  });
});
