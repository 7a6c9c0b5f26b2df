import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import type { WeftDevice } from './index.ts';

/** Trailing zero bits of a u32, 32 for 0 (WGSL's countTrailingZeros). */
function trailingZeros(x: number): number {
  return x === 0 ? 32 : 31 - Math.clz32(x & -x);
}

/** Runs `call` (a WGSL expression of `words[i]`) on each element of `words` (`elem`: its WGSL type). */
async function applyPerElement(
  device: WeftDevice,
  elem: 'u32' | 'vec4<u32>',
  data: Uint32Array,
  call: string,
): Promise<number[]> {
  const count = elem === 'u32' ? data.length : data.length / 4;
  const words = device.upload(data);
  const out = device.array('u32', count);
  const k = await device.kernel({
    label: `prelude ${call}`,
    bindings: {
      words: { type: `array<${elem}>`, access: 'read' },
      out: { type: 'array<u32>', access: 'read_write' },
    },
    params: { n: 'u32' },
    code: /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.x;
  if (i < params.n) { out[i] = ${call}; }
}`,
  });
  const rec = device.recorder();
  rec.dispatch(k, { bindings: { words, out }, params: { n: count }, workgroups: Math.ceil(count / 64) });
  await rec.submit();
  const got = Array.from(await out.download());
  words.destroy();
  out.destroy();
  return got;
}

describe('PRELUDE weft_trailing_zeros', () => {
  it('matches countTrailingZeros on 0, every single bit, every low mask, and random words', async () => {
    await gpuTest(async (device) => {
      const inputs: number[] = [0, 0xffffffff, 0x80000000, 0x7fffffff];
      for (let b = 0; b < 32; b++) inputs.push(2 ** b, 2 ** 32 - 2 ** b, (2 ** b) | 0x80000000);
      let s = 12345;
      for (let i = 0; i < 1000; i++) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        // Clear a random number of low bits so every answer 0..31 appears often.
        inputs.push((s >>> 0) & (~(2 ** (i % 32) - 1) >>> 0));
      }
      const got = await applyPerElement(
        device,
        'u32',
        new Uint32Array(inputs),
        'weft_trailing_zeros(words[i])',
      );
      const want = inputs.map((x) => trailingZeros(x >>> 0));
      expect(got).toEqual(want);
    });
  });

  it('weft_trailing_zeros4 gives the lowest set bit of 128-bit masks, 128 for none', async () => {
    await gpuTest(async (device) => {
      // Masks with their lowest set bit in each word at every position, beside zero words and noise above.
      const masks: number[][] = [[0, 0, 0, 0]];
      for (let bit = 0; bit < 128; bit++) {
        const m = [0, 0, 0, 0];
        const w = bit >> 5;
        m[w] = (2 ** (bit & 31)) >>> 0;
        for (let above = w + 1; above < 4; above++) m[above] = (0xdeadbeef * (bit + 1)) >>> 0;
        if (bit % 3 === 0) m[w] = (m[w]! | 0x80000000) >>> 0;
        masks.push(m);
      }
      const got = await applyPerElement(
        device,
        'vec4<u32>',
        new Uint32Array(masks.flat()),
        'weft_trailing_zeros4(words[i])',
      );
      const want = masks.map((m) => {
        const w = m.findIndex((x) => x !== 0);
        return w < 0 ? 128 : 32 * w + trailingZeros(m[w]!);
      });
      expect(got).toEqual(want);
    });
  });
});
