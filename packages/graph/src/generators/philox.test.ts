import { rw, transform, u32, wgsl } from '@weft/gpu';
import { expectArrayEqual, gpuTest, randomU32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { mulhi32, mulhiWgsl, philox2x32, philoxWgsl } from './philox.ts';

// Random123's kat_vectors for philox2x32 with 10 rounds: counter (c0, c1), key, then the two outputs.
const KNOWN_ANSWERS = [
  [0x00000000, 0x00000000, 0x00000000, 0xff1dae59, 0x6cd10df2],
  [0xffffffff, 0xffffffff, 0xffffffff, 0x2c3f628b, 0xab4fd7ad],
  [0x243f6a88, 0x85a308d3, 0x13198a2e, 0xdd7ce038, 0xf62a4c12],
] as const;

describe('philox2x32 (host)', () => {
  it('matches the published known-answer vectors', () => {
    for (const [c0, c1, key, r0, r1] of KNOWN_ANSWERS) expect(philox2x32(c0, c1, key)).toEqual([r0, r1]);
  });

  it('mulhi32 is the high word of the exact product', () => {
    const a = randomU32(300, 1);
    const b = randomU32(300, 2);
    const edge = [0, 1, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff];
    const pairs: [number, number][] = [...a].map((x, i) => [x, b[i]!]);
    for (const x of edge) for (const y of edge) pairs.push([x, y]);
    for (const [x, y] of pairs) expect(mulhi32(x, y)).toBe(Number((BigInt(x) * BigInt(y)) >> 32n));
  });
});

describe('philox2x32 (WGSL)', () => {
  it('is bit-exact with the TypeScript twin, known answers included', async () => {
    await gpuTest(async (device) => {
      const count = 1000;
      const c1s = randomU32(count, 3);
      const keys = randomU32(count, 4);
      const c0s = Uint32Array.from({ length: count }, (_, i) => (i < 500 ? i : (i * 2654435761) >>> 0));
      KNOWN_ANSWERS.forEach(([c0, c1, key], i) => {
        c0s[i] = c0;
        c1s[i] = c1;
        keys[i] = key;
      });
      const ins = [c0s, c1s, keys].map((a) => device.upload(a));
      const out = device.array('u32', 3 * count);
      try {
        const [c0, c1, key] = ins as [typeof out, typeof out, typeof out];
        await transform(
          device,
          count,
          wgsl`(i: u32) {
  let r = ${philoxWgsl}(${c0}[i], ${c1}[i], ${key}[i]);
  ${rw(out)}[3u * i] = r.x;
  ${rw(out)}[3u * i + 1u] = r.y;
  ${rw(out)}[3u * i + 2u] = ${mulhiWgsl}(${c1}[i], ${key}[i] | ${u32(0x80000000)});
}`,
        );
        const want = new Uint32Array(3 * count);
        for (let i = 0; i < count; i++) {
          const [r0, r1] = philox2x32(c0s[i]!, c1s[i]!, keys[i]!);
          want[3 * i] = r0;
          want[3 * i + 1] = r1;
          want[3 * i + 2] = mulhi32(c1s[i]!, (keys[i]! | 0x80000000) >>> 0);
        }
        expectArrayEqual(await out.download(), want, 'philox outputs');
      } finally {
        for (const a of [...ins, out]) a.destroy();
      }
    });
  });
});
